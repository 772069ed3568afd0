"""Episodes in the agent's own browser (API episodes): their steps are their world's request log."""

import logging
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from replicas.worlds.faults import fault_events
from replicas.worlds.requestlog import last_page, logged_requests, request_log_close
from replicas.worlds.routing import world_origin

from .creation import API_CLAIM, EpisodeError
from .models import Episode, Step
from .verdict import episode_finish

log = logging.getLogger("replicagym.episodes")


def request_doc(r) -> dict:
    return {
        "seq": r.seq,
        "method": r.method,
        "path": r.path,
        "fields": r.fields,
        "status": r.status,
        "clock": r.clock.isoformat().replace("+00:00", "Z"),
    }


def _external_steps_record(episode) -> list[Step]:
    """The steps of an episode in the agent's own browser, from its world's request log.

    A step is one request of the agent's, with the redirect it answered followed (a
    form POST and the page it led to); requests refused as 'episode over' are none.
    Each step carries the fault events written while it was answered and the rows it
    wrote. It errored when its last answer was 4xx or 5xx; it changed something when it
    wrote rows, was accepted with a redirect or no content (a form or a dismissal), or
    (a GET) showed another page than the step before, or the same one after a write.
    """
    world = episode.world
    origin = world_origin(world)
    groups: dict[int, list] = {}
    for r in logged_requests(world=world):
        if not r.refused:
            groups.setdefault(r.step, []).append(r)
    events = fault_events(world=world, since=0) if world.faults else []
    steps, seen, previous_path, previous_wrote = [], 0, None, False
    for index, group in enumerate(groups.values()):
        first, last = group[0], group[-1]
        upto = max(seen, *(r.fault_seq for r in group))
        writes = [w for r in group for w in r.writes]
        if first.method in ("GET", "HEAD"):
            changed = bool(writes) or last.path != previous_path or previous_wrote
        else:
            changed = bool(writes) or 300 <= first.status < 400 or first.status == 204
        fields = f" [{', '.join(first.fields)}]" if first.fields else ""
        steps.append(
            Step(
                episode=episode,
                index=index,
                action=f"{first.method} {first.path}{fields}",
                parsed=None,
                error=f"HTTP {last.status}" if last.status >= 400 else "",
                url=(origin + last.path)[:2000],
                action_ms=sum(r.ms for r in group),
                fault_events=[e for e in events if seen < e["seq"] <= upto],
                changed=changed,
                requests=[request_doc(r) for r in group],
                writes=writes,
            )
        )
        seen, previous_path, previous_wrote = upto, last.path, bool(writes)
    try:
        with transaction.atomic():
            return Step.objects.bulk_create(steps)
    except IntegrityError:
        raise EpisodeError(f"episode {episode.pk} is already being finished") from None


def episode_finish_external(*, episode, messages: list[str]) -> Episode:
    """Finish an episode driven by a client's own browser: verify and reward what its world recorded.

    The world first stops taking requests, so nothing changes between reading its log
    and the final snapshot. The steps are the world's log of the session; the final
    page is the last HTML page the world served it (as the agent saw it, signed in),
    never a page rendered afresh; no page at all if it was served none.
    """
    if episode.status != Episode.Status.RUNNING or not episode.claimed_by.startswith(API_CLAIM):
        raise EpisodeError(f"episode {episode.pk} is {episode.status}: only a running API episode can be finished")
    world = episode.world
    request_log_close(world=world, reason="the episode is finished")
    _external_steps_record(episode)
    served = last_page(world=world)
    page = (
        {"url": world_origin(world) + served["path"], "title": served["title"], "html": served["html"]}
        if served
        else None
    )
    status = None
    elapsed = (timezone.now() - episode.started_at).total_seconds() if episode.started_at else 0
    limit = float(episode.instance.limits["max_seconds"])
    if elapsed > limit:
        status = Episode.Status.TIMED_OUT
    return episode_finish(
        episode=episode,
        messages=messages,
        final_page=page,
        status=status,
        error=f"finished after {elapsed:.0f} s, over the limit of {limit:.0f} s" if status else "",
    )


# An agent whose time is up may still be sending its /finish: the sweep leaves it this long to.
FINISH_GRACE = timedelta(seconds=30)


def external_episodes_expire(*, grace: timedelta = FINISH_GRACE) -> list[int]:
    """End the API episodes still running `grace` after their time limit; returns their ids.

    No worker watches an episode in the agent's own browser: one whose agent crashed or
    forgot it would hold its token's concurrency slot and its world for good. Each is
    finished as the agent's /finish would (timed out, with no messages), so its verdict,
    rewards and final page come from the same path; its world is then no longer an open
    episode's, and the world gc collects it.
    """
    now = timezone.now()
    running = Episode.objects.filter(
        status=Episode.Status.RUNNING, claimed_by__startswith=API_CLAIM, started_at__lt=now - grace
    ).select_related("task", "world")
    expired = []
    for episode in running:
        if episode.started_at + timedelta(seconds=float(episode.instance.limits["max_seconds"])) + grace > now:
            continue
        try:
            episode_finish_external(episode=episode, messages=[])
        except EpisodeError:  # the agent's own /finish got there first
            continue
        except Exception as exc:
            # errored rather than left running: a finish that fails would fail again at every tick,
            # and the episode would hold its slot for good, which is what this sweep is for
            log.exception("ending API episode %s past its time limit failed", episode.pk)
            Episode.objects.filter(pk=episode.pk, status=Episode.Status.RUNNING).update(
                status=Episode.Status.ERRORED,
                finished_at=timezone.now(),
                error=f"past its time limit; ending it failed: {type(exc).__name__}: {exc}"[:5000],
            )
        expired.append(episode.pk)
    return expired
