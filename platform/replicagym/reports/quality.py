"""The quality gate: a baseline agent runs k times per task; tasks it solves between `low` and `high`
times out of k are kept (neither trivial nor impossible for it). Results are stored per task version.

A gate is an ordinary run (attempts = k) with a QualityGate row beside it; its results are
recorded once every episode of the run is final, by whoever sees that first (the command that
ran the episodes, or a page following a gate the workers run), exactly once. The suite
`<suite>-gated` then holds the tasks the latest gates kept, for runs limited to them.
"""

from collections import Counter

from django.db import transaction
from django.utils import timezone

from catalogue.models import Suite, Task
from catalogue.packs import suite_current, suite_upsert
from episodes.models import Episode
from episodes.runs import MAX_ATTEMPTS, RunError, run_create, run_episodes_create

from .models import GateResult, QualityGate

DEFAULT_K, DEFAULT_LOW, DEFAULT_HIGH = 5, 2, 4
DEFAULT_AGENT = "noisy-oracle"
GATED_SUFFIX = "-gated"  # <suite> -> <suite>-gated: the suite of its kept tasks
MAX_K = MAX_ATTEMPTS  # the run machinery refuses more attempts per task


class GateError(ValueError):
    """A gate that cannot be started as asked (bad bounds, unknown suite, an agent that cannot play a task)."""


def gate_bounds_check(*, k, low, high) -> None:
    for value, name in ((k, "k"), (low, "low"), (high, "high")):
        if isinstance(value, bool) or not isinstance(value, int):
            raise GateError(f"{name} must be an integer, not {value!r}")
    if not 1 <= k <= MAX_K:
        raise GateError(f"k must be between 1 and {MAX_K}, not {k}")
    if not 0 <= low <= high <= k:
        raise GateError(f"the bounds must satisfy 0 <= low <= high <= k, not low={low}, high={high}, k={k}")


def gate_verdict(*, passes: int, low: int, high: int) -> str:
    if passes < low:
        return GateResult.Verdict.TOO_HARD
    if passes > high:
        return GateResult.Verdict.TOO_EASY
    return GateResult.Verdict.KEPT


def gate_start(
    *,
    suite: str,
    task_filter: str = "",
    agent: str = DEFAULT_AGENT,
    k: int = DEFAULT_K,
    low: int = DEFAULT_LOW,
    high: int = DEFAULT_HIGH,
    owner=None,
    enqueue: bool = True,
) -> QualityGate:
    """Create the gate's run (k attempts per task of the suite's current version, or of those its
    task filter picks) and its episodes.

    With `enqueue`, the episodes go to the workers' queue; without, the caller runs them
    (the quality_gate command). Nothing is created when the bounds, suite or agent are wrong.
    """
    gate_bounds_check(k=k, low=low, high=high)
    if not isinstance(suite, str) or not suite.strip():
        raise GateError("a gate needs a suite")
    with transaction.atomic():
        try:
            run = run_create(suite=suite, task_filter=task_filter, agent=agent, attempts=k, owner=owner)
        except RunError as exc:
            raise GateError(str(exc)) from None
        gate = QualityGate.objects.create(
            suite=run.suite, run=run, agent=run.agent, k=k, low=low, high=high, owner=owner
        )
        run_episodes_create(run_id=run.pk, enqueue=enqueue)
    return gate


def gate_settle(*, gate: QualityGate) -> bool:
    """Record the gate's results if its run is over; True once they are recorded (by this call or before)."""
    if gate.finished_at is not None:
        return True
    episodes = Episode.objects.filter(run_id=gate.run_id)
    if not episodes.exists() or episodes.exclude(status__in=Episode.FINAL).exists():
        return False
    passes = Counter(episodes.filter(status=Episode.Status.SUCCEEDED).values_list("task_id", flat=True))
    attempts = Counter(episodes.values_list("task_id", flat=True))
    with transaction.atomic():
        # the conditional update decides who records: two pages polling the same gate record it once
        if not QualityGate.objects.filter(pk=gate.pk, finished_at__isnull=True).update(finished_at=timezone.now()):
            gate.refresh_from_db()
            return True
        GateResult.objects.bulk_create(
            [
                GateResult(
                    gate=gate,
                    task_id=task_id,
                    passes=passes[task_id],
                    attempts=n,
                    verdict=gate_verdict(passes=passes[task_id], low=gate.low, high=gate.high),
                )
                for task_id, n in sorted(attempts.items())
            ]
        )
    gate.refresh_from_db()
    gated_suite_refresh(gate.suite.name)
    return True


def gated_suite_refresh(name: str) -> Suite | None:
    """Make `<name>-gated` the suite of the tasks of suite `name` that their latest gate kept, so any
    run (run_suite, the run form, the API) can be limited to them; retired when none is kept."""
    kept = gated_tasks(name)
    gated = f"{name}{GATED_SUFFIX}"
    if not kept:
        Suite.objects.filter(name=gated, is_current=True).update(is_current=False)
        return None
    with transaction.atomic():
        return suite_upsert(gated, kept, f"The tasks of {name} its latest quality gate kept")


def gate_results(*, gate: QualityGate) -> list[GateResult]:
    return list(gate.results.select_related("task").order_by("task__task_id"))


def latest_gate(task: Task) -> GateResult | None:
    """The most recent gate result of this task version (for the catalogue), or None if never gated."""
    return latest_gates([task]).get(task.pk)


def latest_gates(tasks) -> dict[int, GateResult]:
    """Each task version's most recent finished gate result, by task pk, in one query (the catalogue's list)."""
    latest = {}
    results = (
        GateResult.objects.filter(task__in=list(tasks), gate__finished_at__isnull=False)
        .select_related("gate")
        .order_by("-gate__finished_at", "-pk")
    )
    for result in results:
        latest.setdefault(result.task_id, result)
    return latest


def gated_tasks(suite: Suite | str) -> list[Task]:
    """The tasks of a suite (its current version, given a name) that their latest gate kept.

    A task version never gated, or whose latest gate found it too easy or too hard, is left out.
    """
    suite_obj = suite_current(suite) if isinstance(suite, str) else suite
    return [task for task in suite_obj.tasks.order_by("task_id") if (result := latest_gate(task)) and result.kept]
