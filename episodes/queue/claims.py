"""Claiming queued episodes (once, by a conditional update) and sweeping those of lost workers back.

Every claim counts a try, and the try number (Episode.tries) is the claim's fencing
token: a step, heartbeat or finish is written only while the episode is running under
the try that wrote it, so a worker presumed lost (or stalled) cannot write into the
episode once it was put back or claimed again. A worker is lost when its heartbeat
(episodes.queue.heartbeat) is silent; an episode whose browser crashed is retried at once by
its own worker (episode_retry), on the same budget of tries.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from episodes.creation import API_CLAIM, EpisodeError
from episodes.models import Episode, WorkerHeartbeat
from replicas.worlds.services import world_create, world_delete

log = logging.getLogger("replicagym.episodes")

# An episode driven by a process with no heartbeat thread (the gym, run_suite's own
# process) only beats at each step: it counts as abandoned after longer than an agent
# may think about one step (remote agents get 600 s).
ABANDONED_AFTER = timedelta(minutes=11)


class ClaimLost(EpisodeError):
    """The episode is no longer running under this claim (swept, claimed again, ended): stop writing to it."""


def claim_current(*, episode_id: int, tries: int):
    """The episode's rows that are running under try `tries`: update through this to fence a write."""
    return Episode.objects.filter(pk=episode_id, status=Episode.Status.RUNNING, tries=tries)


def claim_touch(*, episode_id: int, tries: int, beat: bool = True) -> None:
    """Beat for the claim (or with beat=False only look), or raise ClaimLost if it is no longer current.

    Called in the transaction of a write (a step): the update takes the row's lock, so
    the sweep either waits for the write or the write sees the episode gone.
    """
    current = claim_current(episode_id=episode_id, tries=tries)
    if not (current.update(heartbeat_at=timezone.now()) if beat else current.exists()):
        raise ClaimLost(
            f"episode {episode_id} is no longer running under try {tries}: a later claim or the sweep has it"
        )


def episode_claim(*, episode_id: int, worker: str) -> bool:
    """Move a queued episode to running for `worker`; False if anyone else got it first."""
    now = timezone.now()
    claimed = Episode.objects.filter(pk=episode_id, status=Episode.Status.QUEUED).update(
        status=Episode.Status.RUNNING,
        claimed_by=worker,
        started_at=now,
        heartbeat_at=now,
        tries=F("tries") + 1,
    )
    return claimed == 1


def episode_claim_next(*, queue: str, worker: str) -> int | None:
    """Claim the oldest queued episode of the highest priority in `queue` for `worker` (the embedded default's queue is
    the rows themselves).

    The claim is a conditional UPDATE: of two workers reading the same oldest row, one
    gets it and the other moves on to the next, and a message is never lost in a
    fetch, because there is none: the row stays queued until a worker holds it.
    """
    while True:
        pk = (
            Episode.objects.filter(queue=queue, status=Episode.Status.QUEUED)
            .order_by("-priority", "pk")
            .values_list("pk", flat=True)
            .first()
        )
        if pk is None:
            return None
        if episode_claim(episode_id=pk, worker=worker):
            return pk


def episode_sweep(*, stale_after: timedelta | None = None, max_tries: int | None = None) -> dict:
    """Put the running episodes of lost workers back in their queue, or error them with the reason.

    A worker is lost when its heartbeat and its episode's are older than `stale_after`
    (default WORKER_LOST_SECONDS); an episode of a process that keeps no heartbeat is
    lost after ABANDONED_AFTER without a step. The episode goes back to its queue with a fresh world and no
    steps, so its next try starts from the task's initial state and records one set of
    steps; after `max_tries` claims (default EPISODE_MAX_TRIES), or when it belongs to
    no queue, it is errored. Returns {"requeued": [ids], "errored": [ids]}.
    """
    stale_after = timedelta(seconds=settings.WORKER_LOST_SECONDS) if stale_after is None else stale_after
    max_tries = settings.EPISODE_MAX_TRIES if max_tries is None else max_tries
    now = timezone.now()
    cutoff = now - stale_after
    silent_worker = WorkerHeartbeat.objects.filter(name=OuterRef("claimed_by"), seen_at__lt=cutoff)
    # episodes driven through the API by a client's own browser have no worker to lose
    running = (
        Episode.objects.filter(status=Episode.Status.RUNNING, heartbeat_at__lt=cutoff)
        .filter(Exists(silent_worker) | models.Q(heartbeat_at__lt=now - ABANDONED_AFTER))
        .exclude(claimed_by__startswith=API_CLAIM)
    )
    out = {"requeued": [], "errored": []}
    for pk in list(running.order_by("pk").values_list("pk", flat=True)):
        outcome = _episode_recover(pk=pk, cutoff=cutoff, stale_after=stale_after, max_tries=max_tries)
        if outcome:
            out[outcome].append(pk)
    return out


@transaction.atomic
def _episode_recover(*, pk: int, cutoff, stale_after: timedelta, max_tries: int) -> str | None:
    # conditional again, under the row lock: the worker may have finished or beaten since the read
    episode = (
        Episode.objects.select_for_update(of=("self",))
        .select_related("task", "world")
        .filter(pk=pk, status=Episode.Status.RUNNING, heartbeat_at__lt=cutoff)
        .first()
    )
    if episode is None:
        return None
    silence = (timezone.now() - episode.heartbeat_at).total_seconds()
    lost = f"worker {episode.claimed_by} lost: no heartbeat for {silence:.0f} s"
    if not episode.queue or episode.tries >= max_tries:
        why = (
            f"after {episode.tries} tries"
            if episode.queue
            else "it belongs to no queue, so no worker can take it again"
        )
        Episode.objects.filter(pk=pk).update(
            status=Episode.Status.ERRORED, finished_at=timezone.now(), error=f"{lost}; {why}"
        )
        return "errored"
    _episode_restart(episode, status=Episode.Status.QUEUED, claimed_by="", started_at=None, heartbeat_at=None)
    log.warning(
        "episode %s: %s; back in queue %s (try %s of %s)", pk, lost, episode.queue, episode.tries + 1, max_tries
    )
    return "requeued"


def _episode_restart(episode, **fields) -> None:
    """Give `episode` a fresh world and no steps, so its next try starts from the task's initial state and records
    one set of steps.
    """
    old_world = episode.world
    fresh = world_create(
        replica=episode.task.replica,
        seed=episode.world_seed,
        variant=episode.task.variant,
        faults=episode.instance.faults if episode.faults else [],
    )
    episode.steps.all().delete()
    Episode.objects.filter(pk=episode.pk).update(world=fresh, error="", **fields)
    if old_world is not None:
        world_delete(world=old_world)


@transaction.atomic
def episode_retry(*, episode_id: int, tries: int, reason: str, max_tries: int | None = None) -> int | None:
    """Claim an episode again in place after try `tries` broke (its browser crashed), as the sweep would a lost
    worker's.

    The same worker takes it again with a fresh world and no steps; the claim counts a
    try, so whatever the broken try still writes is refused. Returns the new try number,
    or None when the episode is errored instead (the budget of EPISODE_MAX_TRIES is spent)
    or is no longer this claim's (nothing is changed then).
    """
    max_tries = settings.EPISODE_MAX_TRIES if max_tries is None else max_tries
    episode = (
        Episode.objects.select_for_update(of=("self",))
        .select_related("task", "world")
        .filter(pk=episode_id, status=Episode.Status.RUNNING, tries=tries)
        .first()
    )
    if episode is None:
        return None
    if tries >= max_tries:
        claim_current(episode_id=episode_id, tries=tries).update(
            status=Episode.Status.ERRORED, finished_at=timezone.now(), error=f"{reason}; after {tries} tries"[:5000]
        )
        return None
    now = timezone.now()
    _episode_restart(episode, tries=F("tries") + 1, started_at=now, heartbeat_at=now)
    log.warning("episode %s: %s; retried by its worker (try %s of %s)", episode_id, reason, tries + 1, max_tries)
    return tries + 1
