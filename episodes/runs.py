"""Runs: a suite x agent x attempts, its episodes, and the report over them."""
from collections import defaultdict
from statistics import mean

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from replicagym.catalogue.packs import suite_current

from .models import Episode, Run
from .services import episode_create

# Celery's own default queue name, so a `celery worker` started without -Q serves it
DEFAULT_QUEUE = "celery"
REWARD_KEYS = ("task_completion", "efficiency", "error_recovery", "action_precision", "collateral", "episode_reward")


def run_create(*, suite: str, agent: str, attempts: int = 1, workers: int = 1, owner=None) -> Run:
    if not isinstance(attempts, int) or attempts < 1:
        raise ValueError(f"attempts must be at least 1, not {attempts!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers!r}")
    return Run.objects.create(suite=suite_current(suite), agent=agent, attempts=attempts, workers=workers, owner=owner)


def run_episodes_create(*, run_id: int, enqueue: bool = True, queue: str | None = None) -> list[Episode]:
    """One queued episode per (task, attempt); with `enqueue`, each goes to the queue on commit."""
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


def enqueue_episodes(episode_ids: list[int], *, queue: str | None = None) -> None:
    """Put queued episodes on `queue` (DEFAULT_QUEUE if none).

    On the embedded default the rows are the queue: they carry its name and workers
    claim them from there. With a broker, each also goes out as a run_episode message
    once the transaction commits (sent by name: the task module imports this one).
    """
    name = queue or DEFAULT_QUEUE
    Episode.objects.filter(pk__in=episode_ids).update(queue=name)
    if settings.EPISODE_QUEUE == "celery":
        for pk in episode_ids:
            transaction.on_commit(lambda pk=pk: current_app.send_task("episodes.run_episode", args=(pk,), queue=name))


def episodes_requeued(episode_ids: list[int]) -> None:
    """Hand episodes the sweep put back to their queues again (a broker's message went with the lost worker)."""
    by_queue = defaultdict(list)
    for pk, queue in Episode.objects.filter(pk__in=episode_ids, status=Episode.Status.QUEUED).values_list("pk", "queue"):
        by_queue[queue].append(pk)
    for queue, pks in by_queue.items():
        enqueue_episodes(pks, queue=queue)


def runs_finish(*, run_ids: list[int] | None = None) -> list[int]:
    """Mark done each run (of `run_ids`, or any) whose episodes are all final; returns their ids.

    A run with no episodes yet is still being fanned out and stays open.
    """
    open_runs = Run.objects.exclude(status=Run.Status.DONE).filter(episodes__isnull=False)
    if run_ids is not None:
        open_runs = open_runs.filter(pk__in=run_ids)
    candidates = open_runs.exclude(episodes__status__in=[Episode.Status.QUEUED, Episode.Status.RUNNING]).distinct()
    done = []
    for pk in candidates.values_list("pk", flat=True):
        if Run.objects.filter(pk=pk).exclude(status=Run.Status.DONE).update(status=Run.Status.DONE, finished_at=timezone.now()):
            done.append(pk)
    return done


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
