"""The observations an episode's agent saw before each step, for datasets.

Steps keep their URL and screenshot but not the accessibility tree, so the tree is
captured by playing the episode's actions again in a fresh world of the same task and
seed: the engine is deterministic, and the capture checks it (the final state must
hash the same as the episode's), so what is kept is what the agent saw. Captured once
per episode.
"""

import logging

from episodes.agents import ScriptedAgent, task_info
from episodes.blobs import screenshot_store
from episodes.creation import episode_create
from episodes.driver import episode_run
from episodes.models import Episode

from .models import StepObservation

log = logging.getLogger("replicagym.annotation")
CAPTURE_AGENT = "observe:"  # the agent spec of capture episodes: "observe:<episode id>"


class CaptureError(RuntimeError):
    """The episode could not be observed again as it ran (a capture that ended elsewhere)."""


class ObservingAgent(ScriptedAgent):
    """Plays a fixed action list and keeps every observation it is shown (the last one after the last action)."""

    name = "observing"

    def __init__(self, actions: list[str]):
        super().__init__(actions)
        self.seen = []

    def reset(self, task_info=None):
        super().reset(task_info)
        self.seen = []  # a try the engine starts over (after a browser crash) shows every page again

    def act(self, observation):
        self.seen.append(observation)
        return super().act(observation)


def observations_for(episode: Episode) -> list[StepObservation]:
    """Observation i is what the agent saw before step i; one more, if the episode ran on, after its last step."""
    steps = list(episode.steps.order_by("index").values_list("action", flat=True))
    kept = list(StepObservation.objects.filter(episode=episode).select_related("screenshot").order_by("index"))
    if len(kept) >= len(steps) and steps:
        return kept
    return _capture(episode, steps)


def _capture(episode: Episode, actions: list[str]) -> list[StepObservation]:
    capture = episode_create(
        task=episode.task, agent=f"{CAPTURE_AGENT}{episode.pk}", seed=episode.world_seed, status=Episode.Status.RUNNING
    )
    agent = ObservingAgent(actions)
    agent.reset(task_info(capture.instance))
    capture = episode_run(episode_id=capture.pk, agent=agent)
    if (
        capture.final_state_id is None
        or episode.final_state_id is None
        or capture.final_state_id != episode.final_state_id
    ):
        raise CaptureError(
            f"episode {episode.pk} did not end in the same state when played again "
            f"(capture episode {capture.pk}: {capture.status})"
        )
    rows = []
    for index, obs in enumerate(agent.seen[: len(actions) + 1]):
        shot = screenshot_store(png=obs.screenshot) if obs.screenshot else None
        rows.append(
            StepObservation(
                episode=episode,
                index=index,
                url=obs.url[:2000],
                title=(obs.title or "")[:500],
                axtree=obs.axtree,
                screenshot=shot,
            )
        )
    StepObservation.objects.filter(episode=episode).delete()
    StepObservation.objects.bulk_create(rows)
    return list(StepObservation.objects.filter(episode=episode).select_related("screenshot").order_by("index"))
