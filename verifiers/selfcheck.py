"""The verifier's self-test of a task: its reference solution must pass, doing nothing and its negative examples must
fail.

A verifier that passes the empty trajectory checks nothing; one that fails the
reference solution is wrong or the task is impossible; one that passes a negative
example lets a known wrong way through.
"""

from dataclasses import dataclass, field


@dataclass
class Outcome:
    """What one scripted run gave: passed/failed, or errored (no verdict to trust)."""

    label: str
    passed: bool | None  # None: the episode errored
    detail: str = ""
    task_completion: float | None = None
    episode: int | None = None
    action_error: str = ""  # the run's first action error, often why it went where it should not


@dataclass
class TaskCheck:
    task_id: str
    reference: Outcome | None = None
    empty: Outcome | None = None
    negatives: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _first_failure(verdict: dict) -> str:
    for a in verdict.get("assertions") or []:
        if a.get("required", True) and not a.get("passed"):
            return f"{a.get('name')}: {a.get('detail')}"
    return ""


def _step_errors(episode) -> str:
    """The first action error of the run, which usually says why a reference solution went wrong."""
    steps = getattr(episode, "steps", None)
    if steps is None or not hasattr(steps, "exclude"):
        return ""
    step = steps.exclude(error="").order_by("index").first()
    return f"first action error: step {step.index} {step.action}: {step.error[:300]}" if step else ""


def _why(outcome: Outcome) -> str:
    return f" ({outcome.action_error})" if outcome.action_error else ""


def _outcome(label: str, episode) -> Outcome:
    verdict = episode.verdict or {}
    rewards = episode.rewards or {}
    if episode.verdict is None:
        return Outcome(label, None, episode.error or f"no verdict (episode {episode.status})", None, episode.pk)
    passed = bool(verdict.get("passed"))
    return Outcome(
        label,
        passed,
        "" if passed else _first_failure(verdict),
        rewards.get("task_completion"),
        episode.pk,
        _step_errors(episode),
    )


@dataclass(frozen=True)
class Check:
    """One run of a task's self-check: what it is, what its verdict must be, and the agent spec that plays it."""

    label: str
    expect: str  # "pass" or "fail"
    agent: str  # "oracle", "nothing", "negative:<index>": the episode's own task, filled for its world


def check_plan(task) -> list[Check]:
    """The runs every task's verifier is held to: its reference solution passes (with full completion),
    doing nothing fails, each negative example fails. `verify_tasks` plays them in this process; the
    editor's test runs queue them (with the random agent as a baseline)."""
    plan = [Check("reference", "pass", "oracle")] if task.reference_solution else []
    plan.append(Check("empty", "fail", "nothing"))
    plan += [Check(example["name"], "fail", f"negative:{i}") for i, example in enumerate(task.negative_examples)]
    return plan


def task_selfcheck(*, task, play) -> TaskCheck:
    """Play the task's check plan through `play(task_id=..., agent=<spec>)`, which returns a finished episode
    with `.verdict` and `.rewards` (the engine's `episode_play`), and say what is wrong."""
    check = TaskCheck(task.task_id)
    if not task.reference_solution:
        check.problems.append("reference: the task has no reference solution")
    for run in check_plan(task):
        outcome = _outcome(run.label, play(task_id=task.task_id, agent=run.agent))
        what = (
            "reference" if run.agent == "oracle" else "empty" if run.agent == "nothing" else f"negative {run.label!r}"
        )
        if run.agent == "oracle":
            check.reference = outcome
        elif run.agent == "nothing":
            check.empty = outcome
        else:
            check.negatives.append(outcome)
        if outcome.passed is None:
            check.problems.append(f"{what}: errored: {outcome.detail}")
        elif run.expect == "pass" and (not outcome.passed or outcome.task_completion != 1):
            check.problems.append(f"{what}: must pass, failed: {outcome.detail}{_why(outcome)}")
        elif run.expect == "fail" and outcome.passed:
            problem = (
                "doing nothing passes the verifier" if run.agent == "nothing" else f"must fail, passed{_why(outcome)}"
            )
            check.problems.append(f"{what}: {problem}")
    return check
