"""The mutation audit of a task's verifier: wrong variants of the reference episode that must not pass.

From the reference solution's episode (its world at the start and end, final page,
steps and messages) the audit derives mutants, each a plausible piece of wrong work
judged by the same verifier on the same inputs with one thing changed:

- choice: another value of a field the episode set (every other status, speed,
  priority of a choice field; the other side of a flag; a date a day off; a count
  one off), so an instruction's constraint that no assertion reads shows up;
- target: the same change made to another row of the table (another order of the
  customer, another ticket), or a reference to another row (another card, another
  assignee);
- text: text the agent typed, saved emptied, truncated, without one of the task's
  facts, or with a false claim added (the replica lists claims an agent must not make);
- structure: an added row dropped or added twice, a change undone, a removal kept;
- collateral: one unrelated change next to the right work;
- answer: the agent's messages dropped, or their numbers and dates one off;
- channel: for a task that requires an interaction, the steps that made it replaced by
  requests that write the same rows without it (`POST <path>`, as the agent's own browser
  is recorded).

A mutant the verifier still passes (task complete, nothing collateral) is a survivor:
a hole an RL optimizer would find. The task file either kills it with a stronger
assertion or declares it equivalent in `audit.equivalent` (`{"mutant id pattern":
"why the instruction allows it"}`, with `*` and `?` as wildcards). The static checks go with it:
every param the instruction names is read by an assertion (`audit.unread_params`
says why not), and an answer task's key changes across seeds (`audit.fixed_key`).

State mutants change the end state the reference reached, not the actions: one episode
in a browser audits hundreds of mutants in milliseconds each. Pure: no database, no
browser; `episodes` plays the reference and hands its inputs here.
"""

import dataclasses
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation

from replicas.worlds.registry import get_replica
from replicas.worlds.snapshot import diff as snapshot_diff

from .actions import ActionError, action_parts, parse_action
from .engine import verify
from .fields import KEY_FIELD, tables
from .inputs import VerifierInputs
from .placeholders import placeholder_paths
from .spec import assertion_paths, fill_params

MAX_REF_TARGETS = 3  # other rows a reference may point to, per field
MAX_ROW_TARGETS = 2  # other rows a change is moved to, per row
MIN_TYPED = 3  # typed text shorter than this is a keystroke, not text an assertion should read
TYPING_ACTIONS = {"fill", "keyboard_type", "keyboard_insert_text", "type"}
DEFAULT_CLAIMS = (
    "I have issued a full refund to your original payment method.",
    "This is done and closed; nothing else is needed from you.",
)


@dataclass(frozen=True)
class AuditHints:
    """What a replica tells the audit (`ReplicaConfig.audit`): fields an agent cannot choose
    (`derived`: table -> field names the server computes), params that are sign-in details
    rather than constraints (`credential_params`), and claims an agent must never make
    unless it did the work (`false_claims`)."""

    derived: dict = field(default_factory=dict)
    credential_params: frozenset = frozenset()
    false_claims: tuple = DEFAULT_CLAIMS

    @classmethod
    def of(cls, replica: str) -> "AuditHints":
        """The replica's hints; a workspace's (its replicas joined by commas) are every member's together."""
        hints = [getattr(get_replica(name), "audit", None) or {} for name in replica.split(",")]
        claims = [c for declared in hints for c in declared.get("false_claims", DEFAULT_CLAIMS)]
        return cls(
            derived={t: frozenset(f) for declared in hints for t, f in declared.get("derived", {}).items()},
            credential_params=frozenset(p for declared in hints for p in declared.get("credential_params", ())),
            false_claims=tuple(dict.fromkeys(claims)),
        )


@dataclass(frozen=True)
class Mutant:
    id: str  # stable for the task's seed: what `audit.equivalent` patterns match
    kind: str
    inputs: VerifierInputs = field(repr=False)


@dataclass
class Survivor:
    id: str
    kind: str
    reason: str = ""  # the task's declaration; empty: undeclared


@dataclass
class TaskAudit:
    task_id: str
    mutants: int = 0
    killed: int = 0
    by_kind: dict = field(default_factory=dict)  # kind -> [played, survived]
    survivors: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # static checks and stale declarations
    seconds: float = 0.0

    @property
    def undeclared(self) -> list:
        return [s for s in self.survivors if not s.reason]

    @property
    def ok(self) -> bool:
        return not self.undeclared and not self.problems

    def as_dict(self) -> dict:
        return {
            "task": self.task_id,
            "ok": self.ok,
            "mutants": self.mutants,
            "killed": self.killed,
            "declared": [dataclasses.asdict(s) for s in self.survivors if s.reason],
            "undeclared": [dataclasses.asdict(s) for s in self.undeclared],
            "by_kind": self.by_kind,
            "problems": self.problems,
            "seconds": round(self.seconds, 2),
        }


# --- the mutants ----------------------------------------------------------------------------


def _short(value) -> str:
    text = json.dumps(value) if value is None or isinstance(value, bool) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _typed(trajectory: list) -> list[str]:
    out = []
    for step in trajectory:
        try:
            action = parse_action(step.get("action", ""))
        except ActionError:
            continue
        if action.name in TYPING_ACTIONS:
            text = getattr(action, "value", None) or getattr(action, "text", "")
            if len(text.strip()) >= MIN_TYPED:
                out.append(text)
    return out


def _is_typed(value, typed: list[str]) -> bool:
    """Whether a saved text is the agent's writing: all of it typed, or holding typed text of a few words.

    A ticket number typed into a search box does not make the server's note that cites it
    ("Merged into #8012") the agent's text."""
    if not isinstance(value, str) or len(value) < MIN_TYPED:
        return False
    return any(value in t or (t in value and len(t.split()) >= MIN_TYPED) for t in typed)


def _facts(text: str, params: dict) -> list[str]:
    """The task's facts a text states: params' values written in it, longest first."""
    values = {str(v) for v in params.values() if isinstance(v, str | int | float) and not isinstance(v, bool)}
    found = [v for v in values if len(v) >= 2 and re.search(rf"(?<!\w){re.escape(v)}(?!\w)", text)]
    return sorted(found, key=lambda v: (-len(v), v))


def _text_variants(value: str, params: dict, hints: AuditHints) -> Iterator[tuple[str, str]]:
    yield "empty", ""
    words = value.split()
    if len(words) > 1:
        yield "truncated", " ".join(words[: len(words) // 2])
    for fact in _facts(value, params):
        yield f"without:{_short(fact)}", re.sub(rf"(?<!\w){re.escape(fact)}(?!\w)", "", value)
    for i, claim in enumerate(hints.false_claims):
        yield f"claim{i}", f"{value}\n\n{claim}"


def _number_variants(info, value) -> Iterator[tuple[str, object]]:
    if info.kind == "int" and isinstance(value, int):
        yield "+1", value + 1
        yield "0", 0 if value else 1
    elif info.kind == "decimal" and value is not None:
        try:
            amount = Decimal(str(value))
        except InvalidOperation:
            return
        places = -amount.as_tuple().exponent if amount.as_tuple().exponent < 0 else 0
        quantum = Decimal(1).scaleb(-places)
        yield "+1", str(amount + 1)
        yield "half", str((amount / 2).quantize(quantum))
    elif info.kind == "float" and isinstance(value, int | float):
        yield "+1", value + 1


def _date_variants(value) -> Iterator[tuple[str, object]]:
    try:
        day = date.fromisoformat(str(value))
    except ValueError:
        return
    yield "+1d", (day + timedelta(days=1)).isoformat()
    yield "-1d", (day - timedelta(days=1)).isoformat()


class _Mutator:
    """Builds mutant inputs from one reference episode's inputs."""

    def __init__(self, inputs: VerifierInputs, hints: AuditHints):
        self.inputs = inputs
        self.hints = hints
        self.fields = tables(inputs.replica)
        self.typed = _typed(inputs.trajectory)
        self.added_keys = {k for ops in inputs.diff["tables"].values() for k in ops["added"]}

    def with_rows(self, table: str, rows: dict) -> VerifierInputs:
        """The reference's inputs with `table`'s final rows replaced by `rows`."""
        final = {**self.inputs.final, "tables": {**self.inputs.final["tables"], table: rows}}
        return dataclasses.replace(
            self.inputs, final=final, diff=snapshot_diff(self.inputs.initial, final, known=self.inputs.diff, only=table)
        )

    def set_field(self, table: str, key: str, name: str, value) -> VerifierInputs:
        rows = dict(self.inputs.final["tables"][table])
        rows[key] = {**rows[key], name: value}
        return self.with_rows(table, rows)

    def chooseable(self, table: str) -> dict:
        """The fields of `table` an agent's work decides (not the key, server-set times or derived fields)."""
        derived = self.hints.derived.get(table, frozenset())
        return {
            n: i
            for n, i in self.fields.get(table, {}).items()
            if n != KEY_FIELD and n not in derived and i.kind != "datetime"
        }

    def column_values(self, table: str, name: str) -> list:
        seen = {}
        for snap in (self.inputs.initial, self.inputs.final):
            for row in snap["tables"].get(table, {}).values():
                value = row.get(name)
                if value is not None and not isinstance(value, dict | list):
                    seen[str(value)] = value
        return [seen[k] for k in sorted(seen)]

    def similar_rows(self, table: str, key: str, exclude: set) -> list[str]:
        """Other rows of `table`, the most alike `key`'s first (the same customer, project, ticket)."""
        rows = self.inputs.initial["tables"].get(table, {})
        base = rows.get(key) or self.inputs.final["tables"].get(table, {}).get(key) or {}
        refs = [n for n, i in self.fields.get(table, {}).items() if i.kind == "ref"]

        def likeness(other: str) -> tuple:
            row = rows[other]
            return (-sum(row.get(n) == base.get(n) and base.get(n) is not None for n in refs), other)

        return sorted((k for k in rows if k != key and k not in exclude), key=likeness)

    # one field's wrong values ------------------------------------------------------------
    def field_mutants(self, table: str, key: str, name: str, info, value, avoid=()) -> Iterator[Mutant]:
        where = f"{table}[{key}].{name}"
        wrong = []
        if info.choices:
            wrong = [("choice", c, c) for c in info.choices if c != value and c not in avoid]
        elif info.kind == "bool" and isinstance(value, bool):
            wrong = [("choice", str(not value).lower(), not value)]
        elif info.kind == "ref" and value not in self.added_keys:
            # (a row added under a parent the same work added, an order's line say, cannot be
            # moved under another parent by any action: only references to rows that were there are)
            others = [v for v in self.column_values(table, name) if v != value and v not in avoid]
            wrong = [("target", _short(v), v) for v in others[:MAX_REF_TARGETS]]
            if info.nullable and value is not None:
                wrong.append(("target", "null", None))
        elif info.kind in ("int", "decimal", "float"):
            wrong = [("choice", label, v) for label, v in _number_variants(info, value)]
        elif info.kind == "date":
            wrong = [("choice", label, v) for label, v in _date_variants(value)]
        elif info.kind == "text" and _is_typed(value, self.typed):
            wrong = [("text", label, v) for label, v in _text_variants(value, self.inputs.params, self.hints)]
        for kind, label, new in wrong:
            if _same(new, value):  # half of 0.00, a text with nothing to cut: no wrong work at all
                continue
            yield Mutant(f"{kind}:{where}={label}", kind, self.set_field(table, key, name, new))

    # the diff's rows ---------------------------------------------------------------------
    def added(self, table: str, key: str, row: dict) -> Iterator[Mutant]:
        rows = self.inputs.final["tables"][table]
        yield Mutant(
            f"structure:{table}[{key}]=dropped",
            "structure",
            self.with_rows(table, {k: r for k, r in rows.items() if k != key}),
        )
        yield Mutant(
            f"structure:{table}[{key}]=twice", "structure", self.with_rows(table, {**rows, f"{key}~again": dict(row)})
        )
        for name, info in self.chooseable(table).items():
            yield from self.field_mutants(table, key, name, info, row.get(name))

    def changed(self, table: str, key: str, changes: dict, touched: set) -> Iterator[Mutant]:
        initial_row = self.inputs.initial["tables"][table][key]
        final_rows = self.inputs.final["tables"][table]
        chooseable = self.chooseable(table)
        decided = [n for n in changes if n in chooseable]
        if not decided:
            return
        yield Mutant(
            f"structure:{table}[{key}]=undone", "structure", self.with_rows(table, {**final_rows, key: initial_row})
        )
        for name in decided:
            if len(decided) > 1:
                yield Mutant(
                    f"structure:{table}[{key}].{name}=undone",
                    "structure",
                    self.set_field(table, key, name, changes[name]["from"]),
                )
            info = chooseable[name]
            yield from self.field_mutants(table, key, name, info, changes[name]["to"], avoid=(changes[name]["from"],))
        for other in self.similar_rows(table, key, touched)[:MAX_ROW_TARGETS]:
            moved = {**final_rows[other], **{n: c["to"] for n, c in changes.items()}}
            yield Mutant(
                f"target:{table}[{key}]->{other}",
                "target",
                self.with_rows(table, {**final_rows, key: initial_row, other: moved}),
            )

    def removed(self, table: str, key: str, row: dict, touched: set) -> Iterator[Mutant]:
        rows = self.inputs.final["tables"].get(table, {})
        yield Mutant(f"structure:{table}[{key}]=kept", "structure", self.with_rows(table, {**rows, key: row}))
        for other in self.similar_rows(table, key, touched)[:MAX_ROW_TARGETS]:
            if other in rows:
                kept = {k: r for k, r in rows.items() if k != other}
                yield Mutant(f"target:{table}[{key}]->{other}", "target", self.with_rows(table, {**kept, key: row}))

    def collateral(self, table: str, touched: set) -> Iterator[Mutant]:
        """One change to an untouched row like the ones the work touched: the field an agent
        would most plausibly change by mistake (a choice field, else a flag, else typed text)."""
        rows = self.inputs.final["tables"].get(table, {})
        first = min(touched, default=None)
        for other in self.similar_rows(table, first, touched)[:1] if first else []:
            if other not in rows:
                continue
            for name, info in self.chooseable(table).items():
                value = rows[other].get(name)
                new = next((c for c in info.choices if c != value), None) if info.choices else None
                if new is None and info.kind == "bool" and isinstance(value, bool):
                    new = not value
                if new is not None:
                    yield Mutant(
                        f"collateral:{table}[{other}].{name}={_short(new)}",
                        "collateral",
                        self.set_field(table, other, name, new),
                    )
                    return

    def answers(self) -> Iterator[Mutant]:
        messages = self.inputs.messages
        if not messages:
            return
        yield Mutant("answer:none", "answer", dataclasses.replace(self.inputs, messages=[]))
        last = messages[-1]
        for label, pattern, shift in (
            ("number+1", r"(?<![\w.,-])\d+(?:\.\d+)?(?![\w])", _plus_one),
            ("date+1d", r"\b\d{4}-\d{2}-\d{2}\b", _day_later),
        ):
            wrong = re.sub(pattern, shift, last)
            if wrong != last:
                yield Mutant(
                    f"answer:{label}", "answer", dataclasses.replace(self.inputs, messages=[*messages[:-1], wrong])
                )

    def channel(self, interaction_actions: set) -> Iterator[Mutant]:
        """The steps that made the interaction replaced by the requests they sent: same writes, no interaction."""
        steps = self.inputs.trajectory
        hits = [i for i, s in enumerate(steps) if action_parts(s.get("action", ""))[0] in interaction_actions]
        if not hits:
            return
        replaced = []
        for i, step in enumerate(steps):
            if i in hits:
                step = {**step, "action": f"POST {_path(step.get('url', ''))}"}
            replaced.append(step)
        yield Mutant(
            "channel:" + ",".join(sorted(interaction_actions)) + "=request",
            "channel",
            dataclasses.replace(self.inputs, trajectory=replaced),
        )


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    try:
        return Decimal(str(a)) == Decimal(str(b))
    except InvalidOperation:
        return a == b


def _plus_one(match: re.Match) -> str:
    text = match.group(0)
    if "." in text:
        return str(Decimal(text) + 1)
    return str(int(text) + 1)


def _day_later(match: re.Match) -> str:
    return (date.fromisoformat(match.group(0)) + timedelta(days=1)).isoformat()


def _path(url: str) -> str:
    return re.sub(r"^[a-z]+://[^/]+", "", url or "") or "/"


def mutants_of(
    inputs: VerifierInputs, *, hints: AuditHints, interaction_actions: set = frozenset()
) -> Iterator[Mutant]:
    """Every mutant of the reference episode's inputs, in a stable order."""
    m = _Mutator(inputs, hints)
    for table, ops in inputs.diff["tables"].items():
        if not m.chooseable(table):  # every field derived: the server's own record (an event log) of the work
            continue
        touched = set(ops["added"]) | set(ops["changed"]) | set(ops["removed"])
        for key, row in ops["added"].items():
            yield from m.added(table, key, row)
        for key, changes in ops["changed"].items():
            yield from m.changed(table, key, changes, touched)
        for key, row in ops["removed"].items():
            yield from m.removed(table, key, row, touched)
        yield from m.collateral(table, touched)
    yield from m.answers()
    if interaction_actions:
        yield from m.channel(interaction_actions)


def passes(spec: dict, inputs: VerifierInputs) -> bool:
    """Full reward: every required assertion holds and nothing collateral changed."""
    verdict = verify(spec, inputs)
    return bool(verdict.passed and verdict.collateral_ok)


# --- static checks ---------------------------------------------------------------------------


def unread_params(spec: dict, hints: AuditHints) -> list[str]:
    """Params the instruction names that no assertion reads (constraints nobody checks)."""
    declared = set((spec.get("audit") or {}).get("unread_params", {}))
    named = {name for _, name in placeholder_paths(spec.get("instruction", ""))}
    read = {name for _, name in placeholder_paths(spec.get("verifier", {}).get("assertions", []))}
    return sorted(named - read - hints.credential_params - declared)


def answer_keys(spec: dict, params_list: list[dict]) -> list[str] | None:
    """The answer assertions' expected values per params (one per seed); None for a task without answers."""
    assertions = spec.get("verifier", {}).get("assertions", [])
    # a conditional's answers (its when, its branches) are answer keys too
    answers = [a for _, a in assertion_paths(assertions) if a.get("kind") == "answer"]
    if not answers:
        return None
    keys = []
    for params in params_list:
        filled = fill_params({"assertions": answers}, params, strict=False)["assertions"]
        keys.append(repr([{k: a.get(k) for k in ("expected", "values", "pattern")} for a in filled]))
    return keys


def id_matches(mutant_id: str, pattern: str) -> bool:
    """`*` (any text) and `?` (one character) are the only wildcards: ids hold brackets literally."""
    regex = re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".")
    return re.fullmatch(regex, mutant_id, flags=re.DOTALL) is not None


def declared_reason(spec: dict, mutant_id: str) -> str:
    for pattern, reason in ((spec.get("audit") or {}).get("equivalent") or {}).items():
        if id_matches(mutant_id, pattern):
            return reason
    return ""


def audit_reference(
    *, task_id: str, spec: dict, verifier: dict, inputs: VerifierInputs, interaction_actions: set = frozenset()
) -> TaskAudit:
    """Judge every mutant of a passing reference episode; survivors declared or not, per the task file."""
    report = TaskAudit(task_id)
    hints = AuditHints.of(inputs.replica)
    seen = set()
    matched_patterns = set()
    for mutant in mutants_of(inputs, hints=hints, interaction_actions=interaction_actions):
        if mutant.id in seen:
            continue
        seen.add(mutant.id)
        report.mutants += 1
        played = report.by_kind.setdefault(mutant.kind, [0, 0])
        played[0] += 1
        if not passes(verifier, mutant.inputs):
            report.killed += 1
            continue
        played[1] += 1
        reason = declared_reason(spec, mutant.id)
        if reason:
            matched_patterns |= {p for p in spec["audit"]["equivalent"] if id_matches(mutant.id, p)}
        report.survivors.append(Survivor(mutant.id, mutant.kind, reason))
    stale = set((spec.get("audit") or {}).get("equivalent") or {}) - matched_patterns
    report.problems += [f"audit.equivalent: {p!r} matches no surviving mutant (remove it)" for p in sorted(stale)]
    for name in unread_params(spec, hints):
        report.problems.append(f"param {{{name}}} is named in the instruction but read by no assertion")
    return report
