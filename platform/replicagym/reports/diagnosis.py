"""Failure diagnosis across one run or several: why episodes failed, ranked.

Each failed episode is read three ways: the first required assertion its verdict failed,
the kinds of error it ran into (element not found, refused navigation, time or step limit,
a fault it did not recover from, a wrong answer), and the patterns of its actions (loops
on one element, repeated writes, giving up early, actions that change nothing). Every
(way, label) is a weakness; they are ranked by the share of failed episodes they cover,
each with example episodes, so the top of the list is what to fix first.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from episodes.models import Episode, Run, Step
from verifiers.actions import ANSWER_ACTIONS, ActionError, action_parts, parse_action
from verifiers.rewards import faults_met, harmful_repeats

EXAMPLES = 3  # example episodes shown per weakness
LOOP_RUN = 3  # the same element acted on this many steps in a row is a loop
INEFFECTIVE_SHARE = 0.5  # more than half the acting steps changed nothing

ASSERTION, ERROR, PATTERN = "first failing assertion", "error kind", "action pattern"
# among weaknesses that cover as many failures, what went wrong (an error) before how (a pattern)
# before where it showed (an assertion)
DIMENSIONS = (ERROR, PATTERN, ASSERTION)

# error kinds
ELEMENT_NOT_FOUND = "element not found"
REFUSED_NAVIGATION = "refused navigation"
TIME_LIMIT = "time limit"
STEP_LIMIT = "step limit"
FAULT_NOT_RECOVERED = "fault not recovered"
ANSWER_WRONG = "answer wrong"
ERRORED = "episode errored"
# action patterns
LOOP = "loops on one element"
REPEATED_WRITES = "repeated writes"
GAVE_UP = "giving up early"
INEFFECTIVE = "actions that change nothing"

# how the engine words a step's error (episodes.engine.browser): a missing element, a refused page
_NOT_FOUND_MARKS = ("no element matches",)
_REFUSED_MARKS = ("was refused", "was blocked")


class DiagnosisError(ValueError):
    """Runs that cannot be diagnosed (none given, unknown ids)."""


@dataclass
class Weakness:
    dimension: str
    label: str
    episodes: list[int] = field(default_factory=list)
    tasks: set = field(default_factory=set)
    share: float = 0.0

    @property
    def count(self) -> int:
        return len(self.episodes)

    @property
    def examples(self) -> list[int]:
        return self.episodes[:EXAMPLES]

    def as_dict(self) -> dict:
        return {
            "dimension": self.dimension,
            "label": self.label,
            "count": self.count,
            "share": round(self.share, 4),
            "tasks": sorted(self.tasks),
            "examples": self.examples,
        }


@dataclass
class Diagnosis:
    runs: list[int]
    episodes: int
    failures: int
    weaknesses: list[Weakness]
    per_episode: dict[int, dict]  # episode id -> {"task", "assertion", "errors", "patterns"}

    def by(self, dimension: str) -> list[Weakness]:
        return [w for w in self.weaknesses if w.dimension == dimension]

    def as_dict(self) -> dict:
        return {
            "runs": self.runs,
            "episodes": self.episodes,
            "failures": self.failures,
            "weaknesses": [w.as_dict() for w in self.weaknesses],
        }


def parse_run_ids(text: str) -> list[int]:
    """Run ids from "1,2 3" (a query string or command line); DiagnosisError names a bad one."""
    ids = []
    for part in text.replace(",", " ").split():
        if not part.isdigit() or int(part) < 1:
            raise DiagnosisError(f"{part!r} is not a run id (a positive integer)")
        ids.append(int(part))
    if not ids:
        raise DiagnosisError("name at least one run, as in 1,2")
    return ids


def diagnose(*, run_ids: list[int]) -> Diagnosis:
    """The diagnosis of the failed episodes of these runs (errored ones included: they failed too)."""
    run_ids = list(dict.fromkeys(run_ids))
    if not run_ids:
        raise DiagnosisError("name at least one run")
    found = set(Run.objects.filter(pk__in=run_ids).values_list("pk", flat=True))
    missing = [pk for pk in run_ids if pk not in found]
    if missing:
        raise DiagnosisError(f"no run {', '.join(map(str, missing))}")
    episodes = list(
        Episode.objects.filter(run_id__in=run_ids, status__in=Episode.FINAL).select_related("task").order_by("pk")
    )
    failed = [e for e in episodes if not e.passed]
    steps = _steps_of([e.pk for e in failed])
    groups: dict[tuple[str, str], Weakness] = {}
    per_episode = {}
    for episode in failed:
        reading = episode_reading(episode, steps.get(episode.pk, []))
        per_episode[episode.pk] = reading
        labels = [(ASSERTION, reading["assertion"])] if reading["assertion"] else []
        labels += [(ERROR, kind) for kind in reading["errors"]] + [(PATTERN, p) for p in reading["patterns"]]
        for dimension, label in labels:
            weakness = groups.setdefault((dimension, label), Weakness(dimension, label))
            weakness.episodes.append(episode.pk)
            weakness.tasks.add(episode.task.task_id)
    for weakness in groups.values():
        weakness.share = weakness.count / len(failed)
    # most failures first; ties in a fixed order so the same runs always read the same
    ranked = sorted(groups.values(), key=lambda w: (-w.count, DIMENSIONS.index(w.dimension), w.label))
    return Diagnosis(
        runs=run_ids, episodes=len(episodes), failures=len(failed), weaknesses=ranked, per_episode=per_episode
    )


def _steps_of(episode_ids: list[int]) -> dict[int, list[dict]]:
    """Each episode's steps as the reward signals read them, in one query for all episodes."""
    out = defaultdict(list)
    rows = (
        Step.objects.filter(episode_id__in=episode_ids)
        .order_by("episode_id", "index")
        .values("episode_id", "action", "error", "changed", "writes", "fault_events")
    )
    for row in rows:
        step = {"action": row["action"], "error": row["error"], "fault_events": row["fault_events"]}
        if row["changed"] is not None:
            step["changed"] = row["changed"]
        if row["writes"] is not None:
            step["writes"], step["state_changed"] = row["writes"], bool(row["writes"])
        out[row["episode_id"]].append(step)
    return out


def episode_reading(episode: Episode, steps: list[dict]) -> dict:
    """How one failed episode failed: its first failing assertion, its error kinds, its action patterns."""
    instance = episode.instance
    return {
        "task": episode.task.task_id,
        "assertion": first_failing_assertion(episode.verdict),
        "errors": error_kinds(episode, steps, max_steps=int(instance.limits["max_steps"])),
        "patterns": action_patterns(
            steps,
            reference_steps=len(instance.reference_solution),
            hit_limit=episode.status == Episode.Status.TIMED_OUT or len(steps) >= int(instance.limits["max_steps"]),
        ),
    }


def first_failing_assertion(verdict: dict | None) -> str | None:
    for assertion in (verdict or {}).get("assertions", []):
        if assertion.get("required", True) and not assertion.get("passed"):
            return assertion.get("name") or assertion.get("kind")
    return None


def error_kinds(episode: Episode, steps: list[dict], *, max_steps: int) -> list[str]:
    kinds = []
    if episode.status == Episode.Status.ERRORED:
        kinds.append(ERRORED)
    if episode.status == Episode.Status.TIMED_OUT:
        kinds.append(TIME_LIMIT)
    elif len(steps) >= max_steps:
        kinds.append(STEP_LIMIT)
    errors = [s["error"] for s in steps if s["error"]]
    if any(mark in e for e in errors for mark in _NOT_FOUND_MARKS):
        kinds.append(ELEMENT_NOT_FOUND)
    if any(mark in e for e in errors for mark in _REFUSED_MARKS):
        kinds.append(REFUSED_NAVIGATION)
    # a failed episode that met a fault did not recover from it (error_recovery is 0 for it)
    if faults_met(steps):
        kinds.append(FAULT_NOT_RECOVERED)
    # an answer the agent gave and the verifier refused; giving none is giving up, not a wrong answer
    answers = [a for a in (episode.verdict or {}).get("assertions", []) if a.get("kind") == "answer"]
    if episode.messages and any(a.get("required", True) and not a.get("passed") for a in answers):
        kinds.append(ANSWER_WRONG)
    return kinds


def _target(action: str) -> str | None:
    """The element an action acts on (None for page-wide actions and text that does not parse)."""
    try:
        return getattr(parse_action(action), "element", None)
    except ActionError:
        return None


def action_patterns(steps: list[dict], *, reference_steps: int, hit_limit: bool) -> list[str]:
    patterns = []
    targets = [_target(s["action"]) for s in steps]
    run = 1
    for before, after in zip(targets, targets[1:], strict=False):
        run = run + 1 if after is not None and after == before else 1
        if run >= LOOP_RUN:
            patterns.append(LOOP)
            break
    if harmful_repeats(steps, -1):
        patterns.append(REPEATED_WRITES)
    # canonical names, so an alias (send_message_to_user) counts as the answer it is
    names = [action_parts(s["action"])[0] for s in steps]
    gave_up = "report_infeasible" in names
    # stopping short of the reference's length without a limit forcing it, and with no answer given
    stopped_short = not hit_limit and len(steps) < reference_steps and not ANSWER_ACTIONS.intersection(names)
    if gave_up or stopped_short:
        patterns.append(GAVE_UP)
    acting = [s for s, name in zip(steps, names, strict=True) if name not in ANSWER_ACTIONS]
    idle = [s for s in acting if s["error"] or s.get("changed") is False]
    if acting and len(idle) / len(acting) > INEFFECTIVE_SHARE:
        patterns.append(INEFFECTIVE)
    return patterns
