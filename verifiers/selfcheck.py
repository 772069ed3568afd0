"""The verifier's self-test of a task: its reference solution must pass, doing nothing and its negative examples must fail.

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


def task_selfcheck(*, task, play) -> TaskCheck:
    """Run the task's reference solution, the empty trajectory and each negative example through `play`.

    `play(task_id=..., actions=[...])` returns a finished episode with `.verdict`
    and `.rewards` (the engine's `episode_play`).
    """
    check = TaskCheck(task.task_id)
    reference = task.reference_solution
    if not reference:
        check.problems.append("reference: the task has no reference solution")
    else:
        check.reference = _outcome("reference", play(task_id=task.task_id, actions=reference))
        if check.reference.passed is None:
            check.problems.append(f"reference: errored: {check.reference.detail}")
        elif not check.reference.passed or check.reference.task_completion != 1:
            check.problems.append(f"reference: must pass, failed: {check.reference.detail}{_why(check.reference)}")
    check.empty = _outcome("empty", play(task_id=task.task_id, actions=[]))
    if check.empty.passed is None:
        check.problems.append(f"empty: errored: {check.empty.detail}")
    elif check.empty.passed:
        check.problems.append("empty: doing nothing passes the verifier")
    for example in task.negative_examples:
        outcome = _outcome(example["name"], play(task_id=task.task_id, actions=example["actions"]))
        check.negatives.append(outcome)
        if outcome.passed is None:
            check.problems.append(f"negative {example['name']!r}: errored: {outcome.detail}")
        elif outcome.passed:
            check.problems.append(f"negative {example['name']!r}: must fail, passed{_why(outcome)}")
    return check
