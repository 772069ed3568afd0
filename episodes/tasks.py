"""Celery tasks of the episode engine: one task runs one episode; a run fans suite x attempts out.

Tasks take ids and keep their outcome in the database rows; a worker that dies
mid-episode leaves the row running with a stale heartbeat, which the sweep marks
errored (acks_late redelivers the message, and the claim refuses to run it twice).
"""
import logging
from datetime import timedelta

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

from .models import Episode, Run
from .services import episode_claim, episode_run, episode_sweep, heartbeat_write, worker_name

log = logging.getLogger("replicagym.episodes")

# The hard limit of one episode; task limits cap max_seconds far below it.
EPISODE_SOFT_LIMIT = 15 * 60
EPISODE_HARD_LIMIT = EPISODE_SOFT_LIMIT + 60
# longer than a remote agent may think about one step (at most 600 s), so a live episode is never swept
SWEEP_STALE_AFTER = timedelta(minutes=11)


@shared_task(name="episodes.run_episode", acks_late=True, soft_time_limit=EPISODE_SOFT_LIMIT, time_limit=EPISODE_HARD_LIMIT)
def run_episode(episode_id: int) -> str:
    worker = worker_name()
    heartbeat_write(name=worker)
    if not episode_claim(episode_id=episode_id, worker=worker):
        # already claimed (a redelivered message, a second worker): never run an episode twice
        log.info("episode %s already claimed; skipping", episode_id)
        return "skipped"
    try:
        episode = episode_run(episode_id=episode_id)
    except SoftTimeLimitExceeded:
        Episode.objects.filter(pk=episode_id, status=Episode.Status.RUNNING).update(
            status=Episode.Status.ERRORED, finished_at=timezone.now(),
            error=f"worker time limit of {EPISODE_SOFT_LIMIT} s exceeded",
        )
        return Episode.Status.ERRORED
    finally:
        heartbeat_write(name=worker)
        run_refresh(episode_id=episode_id)
    return episode.status


def run_refresh(*, episode_id: int) -> None:
    """Mark the episode's run done when none of its episodes is left to run."""
    run_id = Episode.objects.filter(pk=episode_id).values_list("run_id", flat=True).first()
    if run_id is None:
        return
    open_ = Episode.objects.filter(run_id=run_id, status__in=[Episode.Status.QUEUED, Episode.Status.RUNNING])
    if not open_.exists():
        Run.objects.filter(pk=run_id).exclude(status=Run.Status.DONE).update(status=Run.Status.DONE, finished_at=timezone.now())


@shared_task(name="episodes.run_start", bind=True, acks_late=True, soft_time_limit=600, time_limit=660)
def run_start(self, run_id: int, queue: str | None = None) -> int:
    """Create one queued episode per task x attempt of the run's suite and enqueue each (on commit).

    The episodes go to `queue`, by default the queue this task came from, so a run
    started on a dedicated queue stays on the workers that serve it.
    """
    from .runs import run_episodes_create

    queue = queue or (self.request.delivery_info or {}).get("routing_key") or None
    episodes = run_episodes_create(run_id=run_id, queue=queue)
    return len(episodes)


def enqueue_episodes(episode_ids: list[int], *, queue: str | None = None) -> None:
    """Enqueue run_episode for each id once the creating transaction commits."""
    options = {"queue": queue} if queue else {}
    for pk in episode_ids:
        transaction.on_commit(lambda pk=pk: run_episode.apply_async((pk,), **options))


@shared_task(name="episodes.sweep_episodes")
def sweep_episodes(stale_seconds: int = int(SWEEP_STALE_AFTER.total_seconds())) -> list[int]:
    return episode_sweep(stale_after=timedelta(seconds=stale_seconds))


@shared_task(name="episodes.worker_ping")
def worker_ping() -> dict:
    beat = heartbeat_write()
    return {"name": beat.name, "system": beat.system, "python": beat.python}
