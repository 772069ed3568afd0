"""Pass rates and queue figures the dashboard and the catalogue show, read from episodes."""

from django.db.models import Count, Max, Q

from episodes.models import Episode, Run

from .models import SelfCheckEpisode


def task_pass_rates(task_ids) -> dict[str, dict]:
    """For each task_id: passed/total over its current version's episodes in the latest run that played it or,
    when no run did, over its other episodes. A test run's episodes never count: its do-nothing, negative and
    random episodes fail by design (a passing test run showed 25 %)."""
    rows = (
        Episode.objects.filter(task__task_id__in=list(task_ids), task__is_current=True, status__in=Episode.FINAL)
        .exclude(pk__in=SelfCheckEpisode.objects.values("episode"))
        .values("task__task_id", "run_id")
        .annotate(total=Count("id"), passed=Count("id", filter=Q(status=Episode.Status.SUCCEEDED)))
    )
    chosen = {}  # task_id -> the row of its latest run (runs are numbered in the order they were made)
    for row in rows:
        best = chosen.get(row["task__task_id"])
        if best is None or (row["run_id"] or 0) > (best["run_id"] or 0):
            chosen[row["task__task_id"]] = row
    return {task_id: {**_rate(row["passed"], row["total"]), "run": row["run_id"]} for task_id, row in chosen.items()}


def suite_latest_runs(suite_names) -> dict[str, dict]:
    """For each suite name: its latest run with at least one finished episode, and that run's pass rate."""
    latest = {}
    runs = (
        Run.objects.filter(suite__name__in=list(suite_names))
        .annotate(
            total=Count("episodes", filter=Q(episodes__status__in=Episode.FINAL)),
            passed=Count("episodes", filter=Q(episodes__status=Episode.Status.SUCCEEDED)),
        )
        .filter(total__gt=0)
        .select_related("suite")
        .order_by("-created_at")
    )
    for run in runs:
        latest.setdefault(run.suite.name, {"run": run, **_rate(run.passed, run.total)})
    return latest


def queue_depth() -> dict[str, int]:
    counts = dict(
        Episode.objects.filter(status__in=[Episode.Status.QUEUED, Episode.Status.RUNNING])
        .values_list("status")
        .annotate(n=Count("id"))
    )
    return {"queued": counts.get(Episode.Status.QUEUED, 0), "running": counts.get(Episode.Status.RUNNING, 0)}


def last_episode_at():
    return Episode.objects.aggregate(at=Max("finished_at"))["at"]


def _rate(passed: int, total: int) -> dict:
    return {"passed": passed, "total": total, "percent": round(100 * passed / total) if total else None}
