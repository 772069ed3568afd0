"""Group rollouts for GRPO-style training: G episodes of one task and variation, run in parallel by the workers.

A group is a run over exactly one task with G attempts, so it goes through the same
queue (Celery with a broker, the episode rows on the embedded default), shows on the
run pages, and can be cancelled like any run. Each attempt hands its agent a different
seed (the attempt number), which is what makes the samples of a group differ.
`group_rollout_collect` waits for the group and returns each episode's rewards (the
agent-facing view: signals, never the verifier's detail) and trajectory.

A trainer that generates the actions itself opens a group with `group_open` instead: G
running episodes on one start state (one world seed and variation), which it steps from
outside, and closes with `group_finish` for per-member rewards and group advantages.
"""

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import transaction

from catalogue.models import Task
from catalogue.packs import task_current
from verifiers.agent_view import agent_view

from .creation import API_CLAIM, EpisodeError
from .external import episode_finish_external
from .models import Episode, Run
from .runs import RunError, run_launch, runs_finish
from .trajectory import trajectory_lines, trajectory_parse
from .variation import variation_draw

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

    @property
    def observations(self) -> list[str]:
        """Step i's observation text, in the episode's mode, as its agent was given it before action i."""
        return [s.get("observation", "") for s in self.trajectory]


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


def _group_size(size) -> int:
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_GROUP:
        raise RolloutError(f"a group has 1 to {MAX_GROUP} episodes, not {size!r}")
    return size


def _group_task(task) -> Task:
    if not isinstance(task, str) or not task.strip():
        raise RolloutError("task must be a task id such as testbed.open-note")
    try:
        return task_current(task.strip())
    except LookupError as exc:
        raise RolloutError(exc.args[0] if exc.args else str(exc)) from None


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
    """Queue G episodes of `task` (its current version, one variation for all) for the workers; returns the group's
    run.
    """
    size, task_obj = _group_size(size), _group_task(task)
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


# (task, world seed or None, variation or None) -> a running episode of the caller's, or an exception that
# refuses it (a quota, a scope): the REST API starts each member as it starts any episode of a token
MemberStart = Callable[[Task, int | None, int | None], Episode]


def group_open(
    *,
    task: str,
    size: int,
    agent: str,
    start: MemberStart,
    owner=None,
    seed: int | None = None,
    variation: int | None = None,
) -> Run:
    """Open a trainer-owned group: `size` running episodes of `task` on one start state, returned as their run.

    Every member gets the same world seed and variation (one is drawn when neither is given), so
    their worlds and answer keys are equal and only the trainer's actions make them differ. The
    members are started in one transaction: a refused one (`start` raising) leaves no group and no
    episode behind. The trainer steps each member from outside and ends the group with group_finish.
    """
    size, task_obj = _group_size(size), _group_task(task)
    if seed is None and variation is None:
        variation = variation_draw()
    with transaction.atomic():
        run = Run.objects.create(
            task_filter=task_obj.task_id,
            agent=agent,
            attempts=size,
            workers=size,
            shared_variation=True,
            owner=owner,
            status=Run.Status.RUNNING,
        )
        for attempt in range(size):
            member = start(task_obj, seed, variation)
            Episode.objects.filter(pk=member.pk).update(run=run, attempt=attempt)
    return run


def group_finish(*, run_id: int, messages: dict[int, list[str]] | None = None) -> GroupRollout:
    """Finish every member of a trainer-owned group still running, then return its rewards and advantages.

    Each member is finished as its own finish would (`episode_finish_external`), with the messages
    `messages` holds for it; members the trainer finished already keep their verdict. A group
    whose members are not all episodes in the agent's own browser is refused before any finishes.
    """
    messages = messages or {}
    members = list(Episode.objects.filter(run_id=run_id).select_related("task", "world").order_by("attempt"))
    if not members:
        raise RolloutError(f"no group {run_id}")
    ids = {m.pk for m in members}
    if stray := sorted(set(messages) - ids):
        raise RolloutError(f"messages for episode(s) {', '.join(map(str, stray))}, which are not of group {run_id}")
    if engine := [m.pk for m in members if not m.claimed_by.startswith(API_CLAIM)]:
        raise RolloutError(f"group {run_id} is run by the workers (episodes {engine}): collect it, do not finish it")
    for member in members:
        if member.status != Episode.Status.RUNNING:
            continue
        try:
            episode_finish_external(episode=member, messages=list(messages.get(member.pk, [])))
        except EpisodeError:  # finished meanwhile by its own finish or the sweep: its verdict stands
            continue
    runs_finish(run_ids=[run_id])
    return group_rollout_collect(run_id=run_id, timeout=0)


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
