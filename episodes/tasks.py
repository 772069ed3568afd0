"""Celery tasks of the episode engine: one task runs one episode; a run fans suite x attempts out.

Tasks take ids and keep their outcome in the database rows. Messages are
acknowledged late, so a worker lost mid-episode leaves its message to be delivered
again (Redis after its visibility timeout, RabbitMQ at once); the scheduler's sweep
also puts the episode back in its queue once its heartbeat stops, and the
conditional claim makes sure it runs once however many messages arrive.
"""

import logging

from celery import shared_task

from .queue.claims import episode_claim
from .queue.heartbeat import heartbeat_start, heartbeat_write, worker_name
from .queue.workers import EPISODE_HARD_LIMIT, EPISODE_SOFT_LIMIT, episode_execute
from .runs import run_episodes_create

log = logging.getLogger("replicagym.episodes")


@shared_task(
    name="episodes.run_episode", acks_late=True, soft_time_limit=EPISODE_SOFT_LIMIT, time_limit=EPISODE_HARD_LIMIT
)
def run_episode(episode_id: int) -> str:
    heartbeat_start()  # before the claim: a claimed episode always has a worker heartbeat to watch
    if not episode_claim(episode_id=episode_id, worker=worker_name()):
        # already claimed (a redelivered message, a second worker): never run an episode twice
        log.info("episode %s already claimed; skipping", episode_id)
        return "skipped"
    return episode_execute(episode_id=episode_id)


@shared_task(name="episodes.run_start", bind=True, acks_late=True, soft_time_limit=600, time_limit=660)
def run_start(self, run_id: int, queue: str | None = None) -> int:
    """Create one queued episode per task x attempt of the run's suite and enqueue each (on commit).

    The episodes go to `queue`, by default the queue this task came from, so a run
    started on a dedicated queue stays on the workers that serve it.
    """
    queue = queue or (self.request.delivery_info or {}).get("routing_key") or None
    episodes = run_episodes_create(run_id=run_id, queue=queue)
    return len(episodes)


@shared_task(name="episodes.worker_ping")
def worker_ping() -> dict:
    beat = heartbeat_write()
    return {"name": beat.name, "system": beat.system, "python": beat.python}
