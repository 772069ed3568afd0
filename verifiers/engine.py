"""Evaluates a verifier spec over an episode's inputs: one verdict of binary assertions.

Pure and read-only: it reads snapshots, their diff, the final page's HTML, the
trajectory and the agent's messages; it never touches the database. Python
checks get a deep copy of the inputs, so a faulty check cannot alter them.
"""

import copy
import json
import re
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from urllib.parse import urlsplit

from . import checks, dom
from .actions import action_parts
from .conditions import condition_holds
from .fields import FieldInfo, path_info, resolve_path, tables
from .inputs import VerifierInputs
from .interaction import written_by
from .spec import fill_params, validate_spec
from .values import (
    answer_text,
    clock_relative,
    computed_date,
    currency_matches,
    dates_in,
    is_computed_date,
    money_in,
    normalize_answer,
    numbers_in,
    parse_date,
    to_decimal,
)

MAX_LISTED = 5


@dataclass
class Verdict:
    assertions: list = field(default_factory=list)  # {"name", "kind", "required", "passed", "detail"}
    passed: bool = False  # every required assertion holds
    partial: float = 0.0  # fraction of all assertions that hold
    collateral: list = field(default_factory=list)  # changes outside `allowed_changes`
    collateral_ok: bool = True
    checkpoints: list = field(default_factory=list)  # {"name", "points", "reached"}, in the spec's order
    partial_completion: float | None = None  # the checkpoints' partial credit; None without checkpoints

    def to_dict(self) -> dict:
        return asdict(self)


class _Context:
    def __init__(self, inputs: VerifierInputs):
        self.inputs = inputs
        self.fields = tables(inputs.replica)
        self.clock = inputs.clock_at
        self._page = None

    @property
    def page(self) -> dom.Node:
        if self._page is None:
            self._page = dom.parse_html((self.inputs.final_page or {}).get("html", ""))
        return self._page


def verify(spec: dict, inputs: VerifierInputs) -> Verdict:
    """Fill the spec's placeholders from `inputs.params`, check it, and evaluate every assertion.

    The spec may come filled already (the catalogue's task instance) or not; filling
    is lenient here, and a placeholder left unfilled fails validation where a value
    of a type is needed. Unfilled specs are best: they are filled exactly once.
    """
    spec = fill_params(spec, inputs.params, strict=False)
    validate_spec(spec, replica=inputs.replica)
    ctx = _Context(inputs)
    results = []
    for assertion in spec["assertions"]:
        passed, detail = _evaluate(assertion, ctx, spec)
        results.append(
            {
                "name": assertion["name"],
                "kind": assertion["kind"],
                "required": assertion.get("required", True),
                "passed": bool(passed),
                "detail": detail,
            }
        )
    collateral = collateral_changes(spec, inputs, ctx=ctx)
    required = [r for r in results if r["required"]]
    held = {r["name"] for r in results if r["passed"]}
    reached = [
        {"name": c["name"], "points": c.get("points", 1), "reached": set(c["assertions"]) <= held}
        for c in spec.get("checkpoints", [])
    ]
    return Verdict(
        assertions=results,
        passed=all(r["passed"] for r in required),
        partial=sum(r["passed"] for r in results) / len(results),
        collateral=collateral,
        collateral_ok=not collateral,
        checkpoints=reached,
        partial_completion=checkpoint_credit(reached),
    )


def checkpoint_credit(checkpoints: list[dict]) -> float | None:
    """TheAgentCompany's partial credit: 0.5 x (points reached / all points) + 0.5 x (1 if all reached)."""
    if not checkpoints:
        return None
    total = sum(c["points"] for c in checkpoints)
    earned = sum(c["points"] for c in checkpoints if c["reached"])
    return 0.5 * earned / total + 0.5 * (earned == total)


def _evaluate(assertion, ctx, spec) -> tuple[bool, str]:
    try:
        return _EVALUATE[assertion["kind"]](assertion, ctx, spec)
    except Exception as e:  # noqa: BLE001 - a failing check fails its assertion, never the verdict
        return False, f"error while checking: {type(e).__name__}: {e}"


# --- rows -----------------------------------------------------------------------------------


def _lookup(ctx, snap: dict, table: str, key: str, row: dict, name: str):
    """(FieldInfo, value, the row holding it) of a field or a relation path (`owner__name`) of a row of `snap`.

    A path follows references inside `snap`, the episode's world, so it never reads another world's rows.
    """
    info = path_info(ctx.inputs.replica, table, name)
    value, holder = resolve_path(snap, ctx.inputs.replica, table, key, row, name)
    return info, value, holder


def _row_matches(ctx, snap: dict, table: str, conditions: dict, key: str, row: dict) -> bool:
    return _first_mismatch(ctx, snap, table, conditions, key, row) is None


def _first_mismatch(ctx, snap: dict, table: str, conditions: dict, key: str, row: dict) -> str | None:
    for name, raw in conditions.items():
        info, actual, holder = _lookup(ctx, snap, table, key, row, name)
        if not condition_holds(raw, info, actual, row=holder, clock=ctx.clock):
            return f"{name} is {json.dumps(actual)}, expected {json.dumps(raw)}"
    return None


def _snap_of(ctx, op: str) -> dict:
    """The snapshot a diff row is read from: the initial one for a removed row, else the final one."""
    return ctx.inputs.initial if op == "removed" else ctx.inputs.final


def _count_ok(n: int, count) -> bool:
    bounds = count.values() if isinstance(count, dict) else [count]
    unfilled = [b for b in bounds if isinstance(b, str)]
    if unfilled:
        # the schema lets a {param} stand for a count; one the task's params do not fill counts nothing
        raise ValueError(f"count {unfilled[0]} is not filled: the task has no such param")
    if not isinstance(count, dict):  # an integer, or 3.0 from a param (JSON Schema's integer)
        return n == count
    return count.get("min", 0) <= n <= count.get("max", n)


def _count_text(count) -> str:
    if not isinstance(count, dict):
        return str(count)
    lo, hi = count.get("min"), count.get("max")
    return (
        f"{lo} to {hi}"
        if lo is not None and hi is not None
        else (f"at least {lo}" if lo is not None else f"at most {hi}")
    )


def _keys(keys) -> str:
    keys = list(keys)
    shown = ", ".join(keys[:MAX_LISTED])
    return shown + (f" and {len(keys) - MAX_LISTED} more" if len(keys) > MAX_LISTED else "")


def _state(a, ctx, spec):
    table, snap = a["table"], ctx.inputs.initial if a.get("at") == "initial" else ctx.inputs.final
    rows = snap["tables"].get(table, {})
    matched = [(k, r) for k, r in rows.items() if _row_matches(ctx, snap, table, a.get("where", {}), k, r)]
    expect = a["expect"]
    # expecting field values of no rows at all would pass vacuously: at least one row is needed then
    count = expect.get("count", {"min": 1})
    if not _count_ok(len(matched), count):
        return False, f"{len(matched)} row(s) of {table} match, expected {_count_text(count)}" + (
            f": {_keys(k for k, _ in matched)}" if matched else ""
        )
    for key, row in matched:
        why = _first_mismatch(ctx, snap, table, expect.get("fields", {}), key, row)
        if why:
            return False, f"{table} {key}: {why}"
    return True, f"{len(matched)} row(s) of {table} match" + (f": {_keys(k for k, _ in matched)}" if matched else "")


def _diff_rows(ctx, table: str, op: str):
    """(key, row, changed fields) of the rows `op` in `table`; row is the final one, or the initial one if removed."""
    entry = ctx.inputs.diff.get("tables", {}).get(table, {})
    if op == "changed":
        final = ctx.inputs.final["tables"].get(table, {})
        initial = ctx.inputs.initial["tables"].get(table, {})
        return [(k, final.get(k) or initial.get(k, {}), changes) for k, changes in entry.get("changed", {}).items()]
    return [(k, row, {}) for k, row in entry.get(op, {}).items()]


def _diff(a, ctx, spec):
    if a.get("only_allowed"):
        collateral = collateral_changes(spec, ctx.inputs, ctx=ctx)
        if collateral:
            return False, f"{len(collateral)} change(s) outside allowed_changes: " + _keys(
                _describe(c) for c in collateral
            )
        return True, "nothing changed outside allowed_changes"
    table, op, fields = a["table"], a["op"], ctx.fields[a["table"]]
    matched = []
    for key, row, changes in _diff_rows(ctx, table, op):
        if not _row_matches(ctx, _snap_of(ctx, op), table, a.get("where", {}), key, row):
            continue
        ok = True
        for name, fromto in a.get("changes", {}).items():
            change = changes.get(name)
            if change is None:
                ok = False
                break
            for side in ("from", "to"):
                if side in fromto and not condition_holds(
                    fromto[side], fields[name], change[side], row=row, clock=ctx.clock
                ):
                    ok = False
            if not ok:
                break
        if ok:
            matched.append(key)
    count = a.get("count", {"min": 1})
    passed = _count_ok(len(matched), count)
    detail = f"{len(matched)} {op} row(s) of {table} match" + (f": {_keys(matched)}" if matched else "")
    return passed, detail if passed else f"{detail}; expected {_count_text(count)}"


def _describe(change: dict) -> str:
    text = f"{change['table']} {change['key']} {change['op']}"
    return text + (f" ({change['field']})" if change.get("field") else "")


def collateral_changes(spec: dict, inputs: VerifierInputs, *, ctx=None) -> list[dict]:
    """Changes of the diff that no rule of `allowed_changes` covers (none when the spec sets no rule).

    Rows added or removed are judged whole; a changed row field by field, so one rule
    may allow `status` and another `updated_at`.
    """
    rules = spec.get("allowed_changes")
    if rules is None:
        return []
    ctx = ctx or _Context(inputs)
    out = []
    for table in sorted(inputs.diff.get("tables", {})):
        for op in ("added", "removed", "changed"):
            for key, row, changes in _diff_rows(ctx, table, op):
                applicable = [
                    r
                    for r in rules
                    if r["table"] == table
                    and op in r.get("ops", ("added", "changed", "removed"))
                    and _row_matches(ctx, _snap_of(ctx, op), table, r.get("where", {}), key, row)
                ]
                if op != "changed":
                    if not applicable:
                        out.append({"table": table, "op": op, "key": key})
                    continue
                for name in sorted(changes):
                    if not any("fields" not in r or name in r["fields"] for r in applicable):
                        out.append({"table": table, "op": op, "key": key, "field": name, **changes[name]})
    return out


# --- page -----------------------------------------------------------------------------------


def _page(a, ctx, spec):
    page = ctx.inputs.final_page or {}
    path = urlsplit(page.get("url", "")).path or "/"
    if "url" in a and not re.fullmatch(a["url"], path):
        return False, f"the final page is {path}, which does not match {a['url']!r}"
    if "title" in a and not re.search(a["title"], page.get("title", "")):
        return False, f"the final page's title {page.get('title', '')!r} does not match {a['title']!r}"
    if "element" not in a:
        return True, f"the final page is {path}"
    el = a["element"]
    found = dom.find(
        ctx.page,
        role=el.get("role"),
        name=el.get("name"),
        label=el.get("label"),
        text=el.get("text"),
        exact=el.get("exact", False),
    )
    what = ", ".join(f"{k}={v!r}" for k, v in el.items() if k != "exact")
    state = a.get("state", "visible")
    visible = [n for n in found if dom.is_visible(n)]
    if state == "absent":
        return (not found), f"{len(found)} element(s) with {what}"
    if state == "present" and not found:
        return False, f"no element with {what}"
    if state == "hidden":
        if not found or visible:
            return False, f"{len(found)} element(s) with {what}, {len(visible)} visible; expected present and hidden"
        candidates = found
    elif state == "visible":
        if not visible:
            return False, f"no visible element with {what}" + (f" ({len(found)} hidden)" if found else "")
        candidates = visible
    else:
        candidates = found
    if "checked" in a:
        candidates = [n for n in candidates if dom.is_checked(n) is a["checked"]]
        if not candidates:
            return False, f"no element with {what} is {'checked' if a['checked'] else 'unchecked'}"
    if "value" in a:
        as_kind = {"text": "text", "number": "decimal", "money": "decimal", "date": "date"}[a.get("as", "text")]
        info = FieldInfo("value", as_kind, nullable=True)
        values = [dom.value_of(n) for n in candidates]
        if not any(condition_holds(a["value"], info, v, clock=ctx.clock) for v in values):
            return (
                False,
                f"element with {what} holds {_keys(json.dumps(v) for v in values)}, expected {json.dumps(a['value'])}",
            )
    return True, f"{len(candidates)} element(s) with {what} on {path}"


# --- answer ---------------------------------------------------------------------------------
#
# Strict by default: the message must state exactly one candidate of the answer's type
# (one amount, one number, one date; one match of `candidates` for one_of and regex
# searches), and it must be the right one. Listing every date of two years, or every
# amount on an invoice, is not an answer. `"match": "any"` (with a `reason`, which the
# spec validator requires) accepts the right value among others.


def _answer(a, ctx, spec):
    messages = [m for m in ctx.inputs.messages if isinstance(m, str)]
    if not messages:
        return False, "the agent sent no message"
    candidates = messages[-1:] if a.get("message", "last") == "last" else messages
    kind = a["type"]
    why = ""
    for message in candidates:
        ok, seen = _ANSWER_MATCH[kind](a, message, ctx)
        if ok:
            return True, f"found {seen} in {_quote(message)}"
        why = why or seen or ""
    where = "the last message" if len(candidates) == 1 else f"{len(candidates)} messages"
    expected = json.dumps(a.get("expected", a.get("values", a.get("pattern"))))
    return False, f"{where} ({_quote(candidates[-1])}) does not answer {expected}" + (f": {why}" if why else "")


def _quote(text: str, limit: int = 120) -> str:
    return json.dumps(text if len(text) <= limit else text[: limit - 1] + "…")


def _tolerance(a) -> Decimal:
    return to_decimal(a.get("tolerance", 0))


def _one_answer(a, found: list, fits, show) -> tuple[bool, str]:
    """Judge the distinct candidates a message states: exactly one and right, or (match "any") one right."""
    if not found:
        return False, "it states no candidate"
    if a.get("match") in ("any", "search") and "candidates" not in a:
        hit = next((c for c in found if fits(c)), None)
        return (True, show(hit)) if hit is not None else (False, f"none of {_keys(show(c) for c in found)} is right")
    if len(found) > 1:
        return (
            False,
            f"it states {len(found)} candidates ({_keys(show(c) for c in found)}); an answer states exactly one",
        )
    return fits(found[0]), show(found[0]) if fits(found[0]) else f"{show(found[0])} is not right"


def _distinct(values: list) -> list:
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def _answer_number(a, message, ctx):
    expected, tol = to_decimal(a["expected"]), _tolerance(a)
    found = _distinct(numbers_in(answer_text(message, keep_money=False)))
    return _one_answer(a, found, lambda n: abs(n - expected) <= tol, str)


def _answer_money(a, message, ctx):
    expected = a["expected"]
    currency = None
    if isinstance(expected, dict):
        currency = expected.get("currency")
        expected = expected["amount"]
    amount, tol = to_decimal(expected), _tolerance(a)
    text = answer_text(message)
    written = money_in(text)
    # amounts written with a currency are the candidates; only without any, every bare number is
    with_currency = [(n, c) for n, c in written if c is not None]
    pairs = with_currency or [(n, None) for n in numbers_in(text)]
    found = _distinct([n for n, _ in pairs])

    def fits(n):
        if abs(n - amount) > tol:
            return False
        currencies = [c for m, c in pairs if m == n and c is not None]
        if not currencies:
            return currency is None or not a.get("require_currency")
        return currency is None or all(currency_matches(c, currency) for c in currencies)

    def show(n):
        currencies = _distinct([c for m, c in pairs if m == n and c is not None])
        return f"{n} {'/'.join(currencies)}".strip()

    return _one_answer(a, found, fits, show)


def _answer_date(a, message, ctx):
    expected = a["expected"]
    if isinstance(expected, dict):
        if ctx.clock is None:
            return False, "no world clock to read a relative date from"
        if is_computed_date(expected):
            wanted = computed_date(expected, ctx.clock)
        else:
            wanted = clock_relative(expected["clock"], ctx.clock).date()
    else:
        wanted = parse_date(expected)
    found = _distinct(dates_in(message, day_first=a.get("day_first", False)))
    return _one_answer(a, found, lambda d: d == wanted, lambda d: d.isoformat())


def _candidates(a, message) -> list[str]:
    """The distinct texts of the answer's type (`candidates`, a regex) the message states, normalised."""
    found = re.finditer(rf"(?<!\w)(?:{a['candidates']})(?!\w)", " ".join(message.split()), re.IGNORECASE)
    return _distinct([normalize_answer(m.group(0)) for m in found])


def _answer_one_of(a, message, ctx):
    said = normalize_answer(message)
    accepted = [normalize_answer(v) for v in a["values"]]
    if a.get("match", "full") == "full":
        return (said in accepted), json.dumps(said) if said in accepted else f"{json.dumps(said)} is none of them"
    if "candidates" in a:
        return _one_answer(a, _candidates(a, message), lambda c: c in accepted, json.dumps)
    found = [v for v in accepted if v and re.search(rf"(?<!\w){re.escape(v)}(?!\w)", said)]
    return _one_answer(a, found, lambda v: True, json.dumps)


def _answer_regex(a, message, ctx):
    said = " ".join(message.split())
    if a.get("match", "full") == "full":
        m = re.fullmatch(a["pattern"], said.rstrip(" .!"), re.IGNORECASE)
        return m is not None, json.dumps(m.group(0)) if m else "the message does not match the pattern"
    if "candidates" in a:
        right = lambda c: re.fullmatch(a["pattern"], c, re.IGNORECASE) is not None  # noqa: E731
        return _one_answer(a, _candidates(a, message), right, json.dumps)
    m = re.search(rf"(?<!\w)(?:{a['pattern']})(?!\w)", said, re.IGNORECASE)
    return m is not None, json.dumps(m.group(0)) if m else "the pattern is not in the message"


_ANSWER_MATCH = {
    "number": _answer_number,
    "money": _answer_money,
    "date": _answer_date,
    "one_of": _answer_one_of,
    "regex": _answer_regex,
}


# --- trajectory -----------------------------------------------------------------------------


def fault_label(event) -> str:
    if isinstance(event, dict):
        for key in ("fault", "kind", "name", "type"):
            if isinstance(event.get(key), str):
                return event[key]
        return json.dumps(event, sort_keys=True)
    return str(event)


def fault_event_type(event) -> str | None:
    """What happened ("armed", "fired", "recovered", ...) when the fault library says so."""
    return event.get("event") if isinstance(event, dict) and isinstance(event.get("event"), str) else None


def _event_matches(matcher: dict, event: tuple) -> bool:
    kind = event[0]
    if "fault" in matcher:
        if kind != "fault" or re.fullmatch(matcher["fault"], event[1]) is None:
            return False
        happened = event[2]
        # a fault "met" is one that acted: arming or recovering is not meeting it, unless asked for
        wanted = matcher.get("event", "fired")
        return happened is None or re.fullmatch(wanted, happened) is not None
    if kind != "action":
        return False
    if "action" in matcher and matcher["action"] != event[1]:
        return False
    return "args" not in matcher or re.search(matcher["args"], event[2]) is not None


def _trajectory(a, ctx, spec):
    steps = ctx.inputs.trajectory
    if "max_steps" in a and len(steps) > a["max_steps"]:
        return False, f"{len(steps)} steps taken, at most {a['max_steps']} allowed"
    events, fault_positions = [], []
    for i, step in enumerate(steps):
        index = step.get("index", i)
        name, args = action_parts(step.get("action", ""))
        events.append(("action", name, args, index))
        for fault in step.get("fault_events") or []:
            events.append(("fault", fault_label(fault), fault_event_type(fault), index))
            fault_positions.append((i, events[-1]))
    for matcher in a.get("forbidden_actions", []):
        hit = next((e for e in events if _event_matches(matcher, e)), None)
        if hit:
            return False, f"step {hit[3]} did a forbidden action ({json.dumps(matcher)})"
    for pattern in a.get("forbidden_pages", []):
        urls = [(step.get("index", i), step.get("url", "")) for i, step in enumerate(steps)]
        urls.append(("final", (ctx.inputs.final_page or {}).get("url", "")))
        for index, url in urls:
            if url and re.fullmatch(pattern, urlsplit(url).path or "/"):
                return False, f"step {index} visited a forbidden page {urlsplit(url).path}"
    order = a.get("order")
    if order:
        position = 0
        for event in events:
            if position < len(order) and _event_matches(order[position], event):
                position += 1
        if position < len(order):
            return False, f"events in order: matched {position} of {len(order)}; missing {json.dumps(order[position])}"
    for requirement in a.get("written_by", []):
        matcher = {"fault": requirement.get("fault", "")}
        passed, detail = written_by(
            requirement,
            steps,
            lambda pos, m=matcher: any(p <= pos and _event_matches(m, e) for p, e in fault_positions),
        )
        if not passed:
            return False, detail
    return True, f"{len(steps)} steps"


# --- python ---------------------------------------------------------------------------------


def _conditional(a, ctx, spec):
    held, why = _evaluate(a["when"], ctx, spec)
    branch = "then" if held else "else"
    said = f"{json.dumps(a['when']['name'])} {'holds' if held else 'does not hold'} ({why})"
    for nested in a.get(branch, []):
        passed, detail = _evaluate(nested, ctx, spec)
        if not passed:
            return False, f"{said}, so {json.dumps(nested['name'])} must hold: {detail}"
    return True, f"{said}; {branch}: " + (
        ", ".join(json.dumps(n["name"]) for n in a.get(branch, [])) or "nothing asked"
    )


def _for_each(a, ctx, spec):
    items = a["in"]
    if not isinstance(items, list):
        return False, f"in is not a list: {items!r}"
    for item in items:
        # the item is filled as a param is: typed where a value is exactly {as}, escaped inside a regex
        for nested in fill_params(a["assert"], {a["as"]: item}):
            passed, detail = _evaluate(nested, ctx, spec)
            if not passed:
                return False, f"for {a['as']} = {json.dumps(item)}: {json.dumps(nested['name'])} fails: {detail}"
    return True, f"{len(items)} item{'s' * (len(items) != 1)}, every part holds"


def _python(a, ctx, spec):
    checks.load_checks(ctx.inputs.replica)
    check = checks.get_check(a["check"])
    result = check.fn(copy.deepcopy(ctx.inputs), **a.get("args", {}))
    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], bool)):
        return False, f"check {a['check']!r} returned {result!r}, not (passed, detail)"
    return result[0], str(result[1])


_EVALUATE = {
    "for_each": _for_each,
    "conditional": _conditional,
    "state": _state,
    "diff": _diff,
    "page": _page,
    "answer": _answer,
    "trajectory": _trajectory,
    "python": _python,
}
