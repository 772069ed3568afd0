"""Group rollouts for GRPO-style training: G episodes of one task and variation, run in parallel by the workers.

A group is a run over exactly one task with G attempts, so it goes through the same
queue (Celery with a broker, the episode rows on the embedded default), shows on the
run pages, and can be cancelled like any run. Each attempt hands its agent a different
seed (the attempt number), which is what makes the samples of a group differ.
`group_rollout_collect` waits for the group and returns each episode's rewards (the
agent-facing view: signals, never the verifier's detail) and trajectory.
"""

import math
import time
from dataclasses import dataclass, field

from replicagym.catalogue.packs import task_current

from verifiers.agent_view import agent_view

from .models import Episode, Run
from .runs import RunError, run_launch
from .trajectory import trajectory_lines, trajectory_parse

MAX_GROUP = 64
POLL_SECONDS = 0.5  # the group is in the database rows; other processes write them


class RolloutError(ValueError):
    """A group that cannot be started or collected as asked; the message says why."""


@dataclass
class EpisodeRollout:
    episode: int
    attempt: int
    status: str
    reward: float
    rewards: dict
    passed: bool | None
    actions: list[str]
    trajectory: list[dict] = field(repr=False)


@dataclass
class GroupRollout:
    run: int
    task: str
    episodes: list[EpisodeRollout]

    @property
    def rewards(self) -> list[float]:
        return [e.reward for e in self.episodes]

    def advantages(self, *, eps: float = 1e-6) -> list[float]:
        """GRPO's group-relative advantages: each reward minus the group mean, over the group's standard deviation."""
        return group_advantages(self.rewards, eps=eps)


def group_advantages(rewards: list[float], *, eps: float = 1e-6) -> list[float]:
    """(r - mean) / (std + eps) over the group; all zeros when every reward is the same."""
    if not rewards:
        return []
    mean = sum(rewards) / len(rewards)
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / len(rewards))
    return [(r - mean) / (std + eps) for r in rewards]


def group_rollout_start(
    *,
    task: str,
    agent: str,
    size: int,
    agent_settings: dict | None = None,
    faults: bool = True,
    queue: str | None = None,
    owner=None,
    trace: bool = False,
) -> Run:
    """Queue G episodes of `task` (its current version, one variation for all) for the workers; returns the group's run."""
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_GROUP:
        raise RolloutError(f"a group has 1 to {MAX_GROUP} episodes, not {size!r}")
    if not isinstance(task, str) or not task.strip():
        raise RolloutError("task must be a task id such as testbed.open-note")
    try:
        task_obj = task_current(task.strip())
    except LookupError as exc:
        raise RolloutError(exc.args[0] if exc.args else str(exc)) from None
    try:
        # the task id as the run's filter: it holds no wildcard, so it matches this one task
        # one variation for the whole group: its samples must start from the same state to compare
        return run_launch(
            task_filter=task_obj.task_id,
            agent=agent,
            agent_settings=agent_settings,
            attempts=size,
            workers=size,
            faults=faults,
            owner=owner,
            queue=queue,
            trace=trace,
            shared_variation=True,
        )
    except RunError as exc:
        raise RolloutError(str(exc)) from None


def group_rollout_collect(*, run_id: int, timeout: float = 600.0) -> GroupRollout:
    """Wait until every episode of the group has ended (RolloutError after `timeout` s), then read them."""
    deadline = time.monotonic() + timeout
    while True:
        open_count = Episode.objects.filter(
            run_id=run_id, status__in=[Episode.Status.QUEUED, Episode.Status.RUNNING]
        ).count()
        if not open_count:
            break
        if time.monotonic() > deadline:
            raise RolloutError(
                f"group {run_id}: {open_count} episode(s) still open after {timeout:g} s (are workers running?)"
            )
        time.sleep(POLL_SECONDS)
    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        raise RolloutError(f"no group (run) {run_id}")
    episodes = list(Episode.objects.filter(run_id=run_id).select_related("task").order_by("attempt"))
    if not episodes:
        raise RolloutError(f"run {run_id} has no episodes")
    return GroupRollout(run=run_id, task=episodes[0].task.task_id, episodes=[_episode_rollout(e) for e in episodes])


def group_rollout(*, task: str, agent: str, size: int, timeout: float = 600.0, **options) -> GroupRollout:
    """Start a group and wait for it (group_rollout_start's options)."""
    run = group_rollout_start(task=task, agent=agent, size=size, **options)
    return group_rollout_collect(run_id=run.pk, timeout=timeout)


def _episode_rollout(episode: Episode) -> EpisodeRollout:
    view = agent_view(episode.verdict, episode.rewards)
    rewards = view["rewards"] or {}
    steps = trajectory_parse("\n".join(trajectory_lines(episode)), source=f"episode {episode.pk}").steps
    return EpisodeRollout(
        episode=episode.pk,
        attempt=episode.attempt,
        status=episode.status,
        # an episode that ended without rewards (errored, cancelled) scores 0, as the gym env does
        reward=float(rewards.get("episode_reward", 0.0)),
        rewards=rewards,
        passed=view["verdict"]["passed"] if view["verdict"] else None,
        actions=[s["action"] for s in steps],
        trajectory=steps,
    )
