"""Finishing an episode: final snapshot, the verifier's verdict and the reward signals, written once."""

import dataclasses
import logging

from django.db import transaction
from django.utils import timezone

from replicas.worlds.workspaces import episode_snapshot
from verifiers.engine import verify
from verifiers.inputs import verifier_inputs_for
from verifiers.rewards import reward_signals, unscored_signals

from .blobs import snapshot_store
from .models import Episode

log = logging.getLogger("replicagym.episodes")


def _trajectory(episode) -> list[dict]:
    steps = []
    for s in episode.steps.order_by("index"):
        step = {"index": s.index, "action": s.action, "error": s.error, "url": s.url, "fault_events": s.fault_events}
        if s.changed is not None:  # what action_precision counts as an effective step
            step["changed"] = s.changed
        if s.writes is not None:  # rows the step wrote: error_recovery's repeat penalty compares them
            step["writes"] = s.writes
            step["state_changed"] = bool(s.writes)
        steps.append(step)
    return steps


def _jsonable(value):
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if hasattr(value, "as_dict"):
        return value.as_dict()
    return value


def episode_verifier_inputs(*, episode, final_doc: dict, messages: list[str], final_page: dict | None):
    """What the verifier reads of an episode: its world's start and end, final page, steps and messages."""
    return verifier_inputs_for(
        world=episode.world,
        initial=episode.initial_state.doc,
        final=final_doc,
        final_page=final_page,
        trajectory=_trajectory(episode),
        messages=messages,
        params=episode.params,
    )


def verdict_compute(
    *, episode, final_doc: dict, messages: list[str], final_page: dict | None, ended_by_agent: bool = True
) -> tuple[dict, dict]:
    """(verdict, rewards) from the verifier, read-only over the inputs (`ended_by_agent`: see reward_signals)."""
    instance = episode.instance
    inputs = episode_verifier_inputs(episode=episode, final_doc=final_doc, messages=messages, final_page=final_page)
    verdict = verify(instance.verifier, inputs)
    rewards = reward_signals(
        verdict=verdict,
        trajectory=inputs.trajectory,
        reference_steps=len(instance.reference_solution) or 1,
        weights=instance.reward_weights,
        ended_by_agent=ended_by_agent,
    )
    doc = _jsonable(verdict)
    if not isinstance(doc, dict):
        doc = {"passed": verdict.passed, "partial": verdict.partial, "assertions": verdict.assertions}
    doc.setdefault("passed", bool(verdict.passed))
    return doc, dict(rewards)


def episode_finish(
    *, episode, messages: list[str], final_page: dict | None, status: str | None = None, error: str = ""
) -> Episode:
    """Final snapshot, verdict and rewards; the status follows the verdict unless already decided.

    A status decided before the verdict (timed out, closed before its end, errored, cancelled)
    means the agent did not complete the task: every reward is 0 whatever the verdict says
    (reward_signals), so no interface, report, rollout or export reads a reward for it. The
    verdict of a timed-out or closed episode is still stored, for staff to read.
    Whatever fails here errors the episode with the reason; nothing leaves it running.
    """
    claimed_try = episode.tries  # the claim this finish belongs to (a lost worker's episode may run again)
    episode.refresh_from_db()
    world = episode.world
    verdict = rewards = None
    final = None
    try:
        if world is not None:
            world.refresh_from_db()
            final = snapshot_store(doc=episode_snapshot(world))
    except Exception as exc:
        log.exception("final snapshot failed on episode %s", episode.pk)
        status, error = Episode.Status.ERRORED, f"final snapshot failed: {type(exc).__name__}: {exc}"
    # an errored episode has no trustworthy end state, a cancelled one never reached its end: neither is scored
    if final is not None and status not in (Episode.Status.ERRORED, Episode.Status.CANCELLED):
        try:
            verdict, rewards = verdict_compute(
                episode=episode,
                final_doc=final.doc,
                messages=messages,
                final_page=final_page,
                ended_by_agent=status is None,
            )
        except Exception as exc:  # the verifier must never take the episode record down with it
            log.exception("verifier failed on episode %s", episode.pk)
            status, error = Episode.Status.ERRORED, f"verifier failed: {type(exc).__name__}: {exc}"
    if status is None:
        status = Episode.Status.SUCCEEDED if verdict and verdict.get("passed") else Episode.Status.FAILED
    if rewards is None:  # errored or cancelled: stored as 0 rather than absent, so no mean leaves it out
        rewards = unscored_signals()
    page = final_page or {}
    with transaction.atomic():
        updated = Episode.objects.filter(pk=episode.pk, status=Episode.Status.RUNNING, tries=claimed_try).update(
            status=status,
            error=error[:5000],
            verdict=verdict,
            rewards=rewards,
            final_state=final,
            messages=list(messages),
            final_url=(page.get("url") or "")[:2000],
            final_title=(page.get("title") or "")[:500],
            finished_at=timezone.now(),
            clock_end=world.clock if world else None,
        )
    if not updated:
        log.warning("episode %s was no longer running when it finished (swept?)", episode.pk)
    episode.refresh_from_db()
    # the page the verifier read, kept on this object only (not stored): the mutation audit re-judges it
    episode.final_page = final_page
    return episode
