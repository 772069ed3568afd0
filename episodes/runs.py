"""The run lifecycle, in one place: create, enqueue, follow, cancel, finish.

A run is a suite (or a filter of task ids) x agent x attempts. Creating it validates
everything first (nothing is written for bad input), then makes one queued episode per
(task, attempt) and hands them to the queue. Workers (episodes.queue.workers, the Celery tasks,
run_suite's local pool) claim and run them; the run is done when every episode has ended.
Cancelling takes the queued episodes out at once (a conditional update, so no worker can
claim one afterwards) and lets each running episode stop at its next step
(`run_cancelled`, asked by the episode driver): it ends cancelled, with the steps it took,
no verdict and every reward 0, so nothing is left half-written.
"""

import fnmatch
import re
from collections import defaultdict

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Min
from django.utils import timezone

from catalogue.models import Suite, Task
from catalogue.packs import suite_current

from .agents import AgentError, agent_from_spec
from .creation import episode_create
from .engine.observation import OBSERVATION_SETTING, observation_settings
from .models import Episode, Run
from .variation import variation_check, variation_derive, variation_draw

# Celery's own default queue name, so a `celery worker` started without -Q serves it
DEFAULT_QUEUE = "celery"
MAX_ATTEMPTS = 100
MAX_WORKERS = 64
PRIORITIES = range(-10, 11)
MAX_EPISODES = 5000
TASK_FILTER = re.compile(r"^[\w.*?\[\]!-]{1,200}$")
# What a run may set of its agent, by agent kind: (type, low, high). Read by the agents themselves.
AGENT_SETTINGS = {
    "timeout": (float, 1, 600, ("http", "openai")),
    "max_failures": (int, 1, 50, ("http", "openai")),
    "temperature": (float, 0, 2, ("openai",)),
}


# Agents that read a file on the server (replay:FILE): only the command line may name them.
SERVER_FILE_AGENTS = ("replay",)


def agent_kind(agent: str) -> str:
    return agent.strip().partition(":")[0]


def agent_refused_from_outside(agent: str) -> bool:
    """Whether a run launched from the UI or the API must refuse this agent spec (it names a server path)."""
    return agent_kind(agent) in SERVER_FILE_AGENTS


class RunError(ValueError):
    """A run that cannot be made or changed as asked; the message says what to change."""


def _bounded_int(name: str, value, allowed: range) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
        raise RunError(f"{name} must be a whole number from {allowed.start} to {allowed.stop - 1}, not {value!r}")
    return value


def agent_settings_validate(agent: str, agent_settings) -> dict:
    """The settings checked against what the agent's kind accepts (empty is always fine)."""
    if agent_settings in (None, ""):
        return {}
    if not isinstance(agent_settings, dict):
        raise RunError('agent settings must be a JSON object, as in {"timeout": 30}')
    kind = agent_kind(agent)
    out = {}
    for name, value in agent_settings.items():
        if name == OBSERVATION_SETTING:  # what the engine observes, for any agent: kept as given once checked
            try:
                observation_settings(agent_settings)
            except ValueError as exc:
                raise RunError(str(exc)) from None
            out[name] = value
            continue
        if name not in AGENT_SETTINGS:
            known = ", ".join([*AGENT_SETTINGS, OBSERVATION_SETTING])
            raise RunError(f"unknown agent setting {name!r} (settings: {known})")
        type_, low, high, kinds = AGENT_SETTINGS[name]
        if kind not in kinds:
            raise RunError(f"agent setting {name!r} applies to {' and '.join(kinds)} agents, not {kind}")
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or (type_ is int and not float(value).is_integer())
        ):
            raise RunError(f"agent setting {name!r} must be a {'whole ' if type_ is int else ''}number, not {value!r}")
        if not low <= value <= high:
            raise RunError(f"agent setting {name!r} must be from {low} to {high}, not {value!r}")
        out[name] = type_(value)
    return out


def run_tasks(*, suite: Suite | None, task_filter: str = "") -> list[Task]:
    """The current task versions a run covers: the suite's (or all current tasks), narrowed by the filter."""
    tasks = suite.tasks.all() if suite is not None else Task.objects.filter(is_current=True)
    tasks = list(tasks.order_by("task_id"))
    if task_filter:
        tasks = [t for t in tasks if fnmatch.fnmatchcase(t.task_id, task_filter)]
    return tasks


def run_create(
    *,
    suite: str | None = None,
    task_filter: str = "",
    agent: str,
    agent_settings: dict | None = None,
    attempts: int = 1,
    workers: int = 1,
    faults: bool = True,
    priority: int = 0,
    owner=None,
    trace: bool = False,
    seed: int | None = None,
    vary: bool = True,
    shared_variation: bool = False,
) -> Run:
    """A queued run, after checking every input (RunError says what is wrong; nothing is written then).

    Its episodes vary (episodes.variation) from `seed` (drawn when not given), each task's attempts apart
    or, with `shared_variation`, all alike; `vary=False` plays every task's own seed and picks.
    """
    suite = (suite or "").strip() or None
    task_filter = (task_filter or "").strip()
    if suite is None and not task_filter:
        raise RunError("a run needs a suite, a task filter, or both")
    if task_filter and not TASK_FILTER.match(task_filter):
        raise RunError(f"task filter {task_filter!r}: use task-id characters and the wildcards * ? [ ] only")
    attempts = _bounded_int("attempts", attempts, range(1, MAX_ATTEMPTS + 1))
    workers = _bounded_int("workers", workers, range(1, MAX_WORKERS + 1))
    priority = _bounded_int("priority", priority, PRIORITIES)
    if not isinstance(faults, bool):
        raise RunError(f"faults must be true or false, not {faults!r}")
    if not isinstance(trace, bool):
        raise RunError(f"trace must be true or false, not {trace!r}")
    if not isinstance(vary, bool) or not isinstance(shared_variation, bool):
        raise RunError("vary and shared_variation must be true or false")
    if seed is not None:
        try:
            variation_check(seed, "seed")
        except ValueError as exc:
            raise RunError(str(exc)) from None
        if not vary:
            raise RunError("a run's seed sets its episodes' variations: give no seed to a run that does not vary")
    elif vary:
        seed = variation_draw()
    if not isinstance(agent, str) or not agent.strip() or len(agent) > 300:
        raise RunError("agent must be an agent spec of 1 to 300 characters")
    agent = agent.strip()
    agent_settings = agent_settings_validate(agent, agent_settings)
    try:
        suite_obj = suite_current(suite) if suite is not None else None
    except LookupError as exc:
        raise RunError(exc.args[0] if exc.args else str(exc)) from None
    tasks = run_tasks(suite=suite_obj, task_filter=task_filter)
    if not tasks:
        where = f"suite {suite!r}" if suite else "the catalogue"
        raise RunError(f"no task of {where} matches {task_filter!r}" if task_filter else f"{where} holds no tasks")
    if len(tasks) * attempts > MAX_EPISODES:
        raise RunError(f"{len(tasks)} tasks x {attempts} attempts is over {MAX_EPISODES} episodes: split the run")
    for task in tasks:  # a bad agent spec fails here, before any world is made
        try:
            # a run with an owner came from the UI or the API: a remote agent must be at an allow-listed endpoint
            agent_from_spec(agent, task=task, seed=0, settings=agent_settings, fenced=owner is not None)
        except AgentError as exc:
            raise RunError(f"agent {agent}: {exc} (task {task.task_id})") from None
    return Run.objects.create(
        suite=suite_obj,
        task_filter=task_filter,
        agent=agent,
        agent_settings=agent_settings,
        attempts=attempts,
        workers=workers,
        faults=faults,
        priority=priority,
        owner=owner,
        trace=trace,
        seed=seed,
        shared_variation=shared_variation,
    )


def run_episodes_create(*, run_id: int, enqueue: bool = True, queue: str | None = None) -> list[Episode]:
    """One queued episode per (task, attempt); with `enqueue`, each goes to the queue on commit."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.episodes.exists() or run.is_ended:  # a redelivered run_start, or a run cancelled before its fan-out
            return list(run.episodes.order_by("pk"))
        episodes = [
            episode_create(
                task=task,
                agent=run.agent,
                run=run,
                attempt=attempt,
                owner=run.owner,
                faults=run.faults,
                agent_settings=run.agent_settings,
                priority=run.priority,
                trace=run.trace,
                variation=run_variation(run, task, attempt),
            )
            for task in run_tasks(suite=run.suite, task_filter=run.task_filter)
            for attempt in range(run.attempts)
        ]
        Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
        if enqueue:
            enqueue_episodes([e.pk for e in episodes], queue=queue)
    return episodes


def run_variation(run: Run, task: Task, attempt: int) -> int | None:
    """The variation of a run's episode: fixed by the run's seed, the task and the attempt (not the attempt
    when the run shares one variation); None for a run that does not vary, and for a cross-app task, which plays
    its own workspace (one template per task: episodes.creation)."""
    if run.seed is None or task.spec.get("workspace") is not None:
        return None
    return variation_derive(run.seed, task.task_id, 0 if run.shared_variation else attempt)


def run_launch(*, queue: str | None = None, **fields) -> Run:
    """Create a run (run_create's arguments), its episodes, and queue them for the workers: what the UI and API call."""
    with transaction.atomic():
        run = run_create(**fields)
        run_episodes_create(run_id=run.pk, queue=queue)
    run.refresh_from_db()
    return run


def enqueue_episodes(episode_ids: list[int], *, queue: str | None = None) -> None:
    """Put queued episodes on `queue` (DEFAULT_QUEUE if none).

    On the embedded default the rows are the queue: they carry its name and workers
    claim them from there, higher priority first. With a broker, each also goes out as
    a run_episode message once the transaction commits (sent by name: the task module
    imports this one); a run that must jump the line gets its own queue and workers there.
    """
    name = queue or DEFAULT_QUEUE
    Episode.objects.filter(pk__in=episode_ids).update(queue=name)
    if settings.EPISODE_QUEUE == "celery":
        for pk in episode_ids:
            transaction.on_commit(lambda pk=pk: current_app.send_task("episodes.run_episode", args=(pk,), queue=name))


def episodes_requeued(episode_ids: list[int]) -> None:
    """Hand episodes the sweep put back to their queues again (a broker's message went with the lost worker)."""
    by_queue = defaultdict(list)
    for pk, queue in Episode.objects.filter(pk__in=episode_ids, status=Episode.Status.QUEUED).values_list(
        "pk", "queue"
    ):
        by_queue[queue].append(pk)
    for queue, pks in by_queue.items():
        enqueue_episodes(pks, queue=queue)


def run_cancel(*, run_id: int) -> Run:
    """Cancel a run: its queued episodes never start, its running ones stop at their next step.

    RunError if it has already ended. The run is marked cancelled at once; episodes still
    running finish on their own (cancelled) within one step.
    """
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            raise RunError(f"no run {run_id}")
        if run.is_ended:
            raise RunError(f"run {run_id} is already {run.status}")
        now = timezone.now()
        # conditional on QUEUED: an episode a worker claimed a moment ago is running and stops by itself
        Episode.objects.filter(run=run, status=Episode.Status.QUEUED).update(
            status=Episode.Status.CANCELLED, finished_at=now, error=f"run {run_id} was cancelled before it started"
        )
        Run.objects.filter(pk=run.pk).update(status=Run.Status.CANCELLED, finished_at=now)
    run.refresh_from_db()
    return run


def run_cancelled(run_id: int | None) -> bool:
    """Whether an episode of this run should stop (the driver asks before every step)."""
    return run_id is not None and Run.objects.filter(pk=run_id, status=Run.Status.CANCELLED).exists()


def runs_finish(*, run_ids: list[int] | None = None) -> list[int]:
    """Mark done each open run (of `run_ids`, or any) whose episodes have all ended; returns their ids.

    A run with no episodes yet is still being fanned out and stays open; a cancelled run stays cancelled.
    """
    open_runs = Run.objects.exclude(status__in=Run.ENDED).filter(episodes__isnull=False)
    if run_ids is not None:
        open_runs = open_runs.filter(pk__in=run_ids)
    candidates = open_runs.exclude(episodes__status__in=[Episode.Status.QUEUED, Episode.Status.RUNNING]).distinct()
    done = []
    for pk in candidates.values_list("pk", flat=True):
        if (
            Run.objects.filter(pk=pk)
            .exclude(status__in=Run.ENDED)
            .update(status=Run.Status.DONE, finished_at=timezone.now())
        ):
            done.append(pk)
    return done


def run_progress(run: Run) -> dict:
    """Episodes by state, and an ETA from the pace so far (None until one episode has ended).

    The pace is ended episodes per second of wall time since the first one started, so it
    already counts however many workers are taking the run's episodes.
    """
    counts = dict(run.episodes.values_list("status").annotate(n=Count("pk")).values_list("status", "n"))
    total = sum(counts.values())
    queued, running = counts.get(Episode.Status.QUEUED, 0), counts.get(Episode.Status.RUNNING, 0)
    failed = sum(counts.get(s, 0) for s in (Episode.Status.FAILED, Episode.Status.ERRORED, Episode.Status.TIMED_OUT))
    ended = total - queued - running
    first_start = run.episodes.aggregate(t=Min("started_at"))["t"]
    now = run.finished_at or timezone.now()
    elapsed = (now - first_start).total_seconds() if first_start else 0.0
    eta = None
    if not run.is_ended and ended and elapsed > 0:
        eta = round((queued + running) * elapsed / ended, 1)
    return {
        "run": run.pk,
        "status": run.status,
        "total": total,
        "queued": queued,
        "running": running,
        "succeeded": counts.get(Episode.Status.SUCCEEDED, 0),
        "failed": failed,
        "cancelled": counts.get(Episode.Status.CANCELLED, 0),
        "ended": ended,
        "elapsed_seconds": round(elapsed, 1),
        "eta_seconds": 0.0 if run.is_ended else eta,
    }
