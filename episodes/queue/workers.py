"""What keeps episodes moving: running a claimed episode, the embedded default's worker loop, the scheduler's tick.

The embedded default's queue is the Episode rows: a worker claims the oldest queued
episode of its queue with a conditional UPDATE and runs it under its heartbeat. A
worker killed at any moment leaves either a queued row (nothing was taken) or a
running row whose heartbeat stops; the scheduler's sweep puts the latter back.
"""

import logging
import threading
from datetime import timedelta

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from episodes.driver import episode_run
from episodes.external import external_episodes_expire
from episodes.models import Episode
from episodes.runs import episodes_requeued, runs_finish
from episodes.variation import variation_templates_build
from replicas.worlds.services import world_gc
from replicas.worlds.workspaces import workspace_gc

from .claims import episode_claim_next, episode_sweep
from .heartbeat import episode_heartbeat, heartbeat_start, worker_name

log = logging.getLogger("replicagym.episodes")

# The hard limit of one episode under Celery; task limits cap max_seconds far below it.
EPISODE_SOFT_LIMIT = 15 * 60
EPISODE_HARD_LIMIT = EPISODE_SOFT_LIMIT + 60
# Templates of the variation pool the scheduler builds per tick (a small world's build takes ~0.2 s).
TEMPLATES_PER_TICK = 8


def episode_execute(*, episode_id: int) -> str:
    """Run an episode this process has claimed; whatever fails errors it with the reason. Returns its status.

    The process's heartbeat thread (heartbeat_start, called by each kind of worker) beats
    for it meanwhile. Its run is marked done here when it was the run's last open episode.
    """
    claimed = Episode.objects.filter(pk=episode_id).values_list("tries", "run_id").first()
    if claimed is None:
        return "missing"
    tries, run_id = claimed
    with episode_heartbeat(episode_id, tries):
        try:
            status = episode_run(episode_id=episode_id).status
        except Exception as exc:
            if isinstance(exc, SoftTimeLimitExceeded):
                reason = f"worker time limit of {EPISODE_SOFT_LIMIT} s exceeded"
            else:
                log.exception("episode %s failed outside the engine's own error handling", episode_id)
                reason = f"worker: {type(exc).__name__}: {exc}"
            # only this claim's episode: if the sweep gave it to another worker, that one owns it now
            Episode.objects.filter(pk=episode_id, status=Episode.Status.RUNNING, tries=tries).update(
                status=Episode.Status.ERRORED, finished_at=timezone.now(), error=reason[:5000]
            )
            status = Episode.Status.ERRORED
        finally:
            if run_id is not None:
                runs_finish(run_ids=[run_id])
    return status


def worker_loop(*, queue: str, stop: threading.Event, poll_seconds: float = 0.5) -> int:
    """Claim and run episodes of `queue` until `stop` is set (after the episode at hand); returns how many ran."""
    heartbeat_start()
    name = worker_name()
    ran = 0
    while not stop.is_set():
        episode_id = episode_claim_next(queue=queue, worker=name)
        if episode_id is None:
            stop.wait(poll_seconds)  # an empty queue: look again shortly
            continue
        episode_execute(episode_id=episode_id)
        ran += 1
    return ran


def episodes_recover(*, stale_after: timedelta | None = None) -> dict:
    """The sweep, then the requeued episodes handed to their queues and the runs it completed marked done."""
    swept = episode_sweep(stale_after=stale_after)
    if swept["requeued"]:
        episodes_requeued(swept["requeued"])
    runs = list(Episode.objects.filter(pk__in=swept["errored"]).exclude(run=None).values_list("run_id", flat=True))
    swept["runs_finished"] = runs_finish(run_ids=runs) if runs else []
    return swept


def scheduler_tick(*, stale_after: timedelta | None = None, gc_after: timedelta | None = None) -> dict:
    """One round of upkeep: recover lost workers' episodes, finish runs, collect worlds and workspaces unused for
    `gc_after`, build missing templates of the variation pool."""
    out = episodes_recover(stale_after=stale_after)
    # runs whose last episode ended while nobody was watching (a worker killed right after finishing it)
    out["runs_finished"] += runs_finish()
    # episodes in agents' own browsers that their agents left past the time limit
    out["api_timed_out"] = external_episodes_expire()
    # an episode's world is promised to it until the episode ends, however long it waits in the queue
    open_worlds = Episode.objects.filter(status__in=[Episode.Status.QUEUED, Episode.Status.RUNNING]).exclude(world=None)
    gc_after = timedelta(hours=settings.WORLD_GC_HOURS) if gc_after is None else gc_after
    out["worlds_collected"] = world_gc(older_than=gc_after, keep=open_worlds.values_list("world_id", flat=True))[
        "worlds"
    ]
    # workspaces go whole, when none of their worlds was used for as long (world_gc leaves their members alone)
    out["workspaces_collected"] = workspace_gc(older_than=gc_after)["workspaces"]
    # the variation pool's templates, a few a tick so a tick stays short; episodes draw only among built ones
    out["templates_built"] = [f"{r}/{v}/{s}" for r, v, s in variation_templates_build(limit=TEMPLATES_PER_TICK)]
    return out
