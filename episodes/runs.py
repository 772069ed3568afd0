"""Runs: a suite x agent x attempts, its episodes, and the report over them."""
from collections import defaultdict
from statistics import mean

from django.db import transaction
from django.utils import timezone
from replicagym.catalogue.packs import suite_current

from .models import Episode, Run

REWARD_KEYS = ("task_completion", "efficiency", "error_recovery", "action_precision", "collateral", "episode_reward")


def run_create(*, suite: str, agent: str, attempts: int = 1, workers: int = 1, owner=None) -> Run:
    if not isinstance(attempts, int) or attempts < 1:
        raise ValueError(f"attempts must be at least 1, not {attempts!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers!r}")
    return Run.objects.create(suite=suite_current(suite), agent=agent, attempts=attempts, workers=workers, owner=owner)


def run_episodes_create(*, run_id: int, enqueue: bool = True, queue: str | None = None) -> list[Episode]:
    """One queued episode per (task, attempt); with `enqueue`, each goes to the queue on commit."""
    from .services import episode_create
    from .tasks import enqueue_episodes

    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.episodes.exists():  # a redelivered run_start: the fan-out happened already
            return list(run.episodes.order_by("pk"))
        episodes = [
            episode_create(task=task, agent=run.agent, run=run, attempt=attempt, owner=run.owner)
            for task in run.suite.tasks.order_by("task_id")
            for attempt in range(run.attempts)
        ]
        Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
        if enqueue:
            enqueue_episodes([e.pk for e in episodes], queue=queue)
    return episodes


def run_report(*, run: Run) -> dict:
    """Per task: attempts, passes, mean of each reward signal, mean steps and seconds; totals."""
    per_task = defaultdict(list)
    episodes = run.episodes.select_related("task").order_by("task__task_id", "attempt")
    for ep in episodes:
        per_task[ep.task.task_id].append(ep)

    def summary(eps):
        finished = [e for e in eps if e.is_final]
        seconds = [(e.finished_at - e.started_at).total_seconds() for e in finished if e.started_at and e.finished_at]
        out = {
            "attempts": len(eps),
            "passes": sum(e.passed for e in eps),
            "statuses": {s: n for s in Episode.Status.values if (n := sum(e.status == s for e in eps))},
            "mean_steps": round(mean(e.steps.count() for e in eps), 3) if eps else 0,
            "mean_seconds": round(mean(seconds), 3) if seconds else None,
            "rewards": {},
        }
        for key in REWARD_KEYS:
            values = [e.rewards[key] for e in eps if e.rewards and key in e.rewards]
            out["rewards"][key] = round(mean(values), 4) if values else None
        out["pass_rate"] = round(out["passes"] / len(eps), 4) if eps else 0
        return out

    tasks = {task_id: {"task_version": eps[0].task.content_hash[:12], **summary(eps)} for task_id, eps in per_task.items()}
    return {
        "run": run.pk,
        "suite": run.suite.name,
        "suite_version": run.suite.version[:12],
        "agent": run.agent,
        "attempts": run.attempts,
        "workers": run.workers,
        "tasks": tasks,
        "totals": summary(list(episodes)),
        "generated_at": timezone.now().isoformat(),
    }
