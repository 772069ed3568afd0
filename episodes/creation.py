"""Episode creation: a queued (or, for the gym and the API, running) episode in a fresh world with its faults armed."""

import time

from django.db import transaction
from django.utils import timezone

from catalogue.models import Task
from catalogue.packs import task_current
from catalogue.task_templates import TemplateError
from replicas.worlds.pool import world_take
from replicas.worlds.requestlog import request_log_open
from replicas.worlds.workspaces import workspace_create, workspace_world
from verifiers.interaction import interaction_actions
from verifiers.placeholders import fill

from .blobs import world_snapshot_store
from .engine.observation import observation_settings
from .models import Episode
from .queue.heartbeat import worker_name
from .variation import WordingError, instruction_pick, variation_draw, variation_resolve

# claimed_by of an episode driven through the API in the agent's own browser: no worker runs it
API_CLAIM = "api:"


class EpisodeError(ValueError):
    """A request about an episode that cannot be honoured (bad state, bad input)."""


def own_browser_refusal(task) -> str:
    """Why `task` cannot be an episode in the agent's own browser, or "" when it can.

    Such an episode is judged on the requests its world receives, and a request does not
    show how a change was made: a card dragged on the board and the same form posted
    directly are one POST. A task that requires an interaction (its `interaction`) could
    only be judged on its outcome there, which is the shortcut the requirement closes.
    """
    required = interaction_actions(task.spec.get("interaction"))
    if not required:
        return ""
    return (
        f"{task.task_id} requires the {' and '.join(required)} interaction it asks for, and an episode in your own "
        "browser is judged on the requests its world receives, which do not show how a change was made: "
        "run this task with the engine (the gym API, OpenEnv, MCP or a run)"
    )


def _resolve_task(task) -> Task:
    if isinstance(task, Task):
        return task
    return task_current(task)


def episode_create(
    *,
    task,
    agent: str,
    run=None,
    attempt: int = 0,
    owner=None,
    seed: int | None = None,
    variation: int | None = None,
    vary: bool = False,
    agent_seed: int | None = None,
    status: str = Episode.Status.QUEUED,
    claimed_by: str = "",
    faults: bool = True,
    agent_settings: dict | None = None,
    priority: int = 0,
    trace: bool = False,
) -> Episode:
    """A queued episode of `task` (a Task version or a task id) in a fresh world with the task's faults armed.

    `seed` overrides the task's world seed; the answer key is then computed for that world.
    `variation` varies the world seed (unless `seed` is given) and the task's picks (episodes.variation);
    `vary=True` draws a fresh variation when neither `seed` nor `variation` is given, which every entry
    point an agent reaches asks for. Without either, the task's own seed and picks (verify_tasks, self-checks).
    `faults=False` leaves the task's faults unarmed (a run with faults off); `trace=True` records a Playwright trace.
    """
    task = _resolve_task(task)
    try:  # every way in (runs, the API, the gateways) meets the same check of the observation mode
        observation_settings(agent_settings)
    except ValueError as exc:
        raise EpisodeError(str(exc)) from None
    dense = (agent_settings or {}).get("dense_checkpoints", False)
    if not isinstance(dense, bool):  # episodes.engine.checkpoints: the dense reward is on or off
        raise EpisodeError(f"agent setting 'dense_checkpoints' must be true or false, not {dense!r}")
    own_browser = status == Episode.Status.RUNNING and claimed_by.startswith(API_CLAIM)
    if own_browser and (why := own_browser_refusal(task)):
        raise EpisodeError(why)
    workspace = task.spec.get("workspace")
    if workspace is not None and (own_browser or seed is not None or variation is not None):
        # one fixed workspace template per task: its params are read there, and its tabs are the engine's
        raise EpisodeError(
            f"{task.task_id} is a cross-app task: it is played by the engine in its own workspace, "
            "with no other seed or variation"
        )
    if vary and seed is None and variation is None and workspace is None:
        variation = variation_draw()
    try:
        chosen = variation_resolve(task=task, seed=seed, variation=variation)
    except (TemplateError, LookupError) as exc:  # a world the caller chose holds nothing the task can be about
        raise EpisodeError(f"task {task.task_id} cannot be played on world seed {seed}: {exc}") from None
    world_seed, params = chosen.world_seed, chosen.params
    try:  # the wording the episode's instance will give (Episode.instance): a bad wordings file refuses it here
        instruction_pick(task, chosen.variation)
    except WordingError as exc:
        raise EpisodeError(str(exc)) from None
    instance = task.with_params(params)
    with transaction.atomic():
        if workspace is not None:
            # a clone of the cached workspace template; the episode's world is its first tab's app, and the
            # group's state is what it is judged on (replicas.worlds.workspaces.episode_snapshot)
            group = workspace_create(
                replicas=workspace["replicas"],
                seed=world_seed,
                variant=task.variant,
                faults=fill(workspace.get("faults", {}), params) if faults else {},
            )
            world = workspace_world(group, workspace["replicas"][0])
        else:
            # from the warm pool when one is ready (a claim), else a clone; the pool refills after commit
            world, _ = world_take(
                replica=task.replica, seed=world_seed, variant=task.variant, faults=instance.faults if faults else []
            )
        initial = world_snapshot_store(world, initial=True)
        now = timezone.now()
        running = status == Episode.Status.RUNNING
        if own_browser:
            # An episode in the agent's own browser has no engine watching: its world logs
            # the session as its steps, enforces the limits, moves its clock per step and
            # keeps the pages it serves (the last one is the final page).
            limits = instance.limits
            request_log_open(
                world=world,
                keep_pages=True,
                max_steps=int(limits["max_steps"]),
                deadline=time.time() + float(limits["max_seconds"]),
                step_seconds=float(limits["step_seconds"]),
            )
        return Episode.objects.create(
            task=task,
            agent=agent,
            world=world,
            run=run,
            attempt=attempt,
            owner=owner,
            seed=attempt if agent_seed is None else agent_seed,
            world_seed=world_seed,
            variation=chosen.variation,
            params=params,
            initial_state=initial,
            status=status,
            faults=faults,
            agent_settings=agent_settings or {},
            priority=priority,
            trace=trace,
            claimed_by=(claimed_by or worker_name()) if running else "",
            started_at=now if running else None,
            heartbeat_at=now if running else None,
            tries=1 if running else 0,
        )
