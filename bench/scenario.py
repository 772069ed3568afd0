"""What the benchmarks drive, from the replica's contract: its bench task (filled from its
answer key) for the start, step, throughput, memory and BrowserGym sections, its bench
pages and a signed-in user for the server and step sections, and fresh worlds."""

from dataclasses import dataclass

from catalogue.models import Task
from catalogue.packs import TaskNotFound, task_current
from replicas.worlds.registry import ReplicaConfig, get_replica, replicas
from replicas.worlds.routing import world_origin
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create


@dataclass(frozen=True)
class Scenario:
    task_id: str
    replica: str
    seed: int
    variant: str
    instruction: str
    start_page: str
    actions: tuple[str, ...]


def bench_replica(name: str | None) -> ReplicaConfig:
    """The replica `name`; with None, the first (by name) that declares a bench task."""
    if name:
        return get_replica(name)
    declared = sorted((c for c in replicas().values() if c.bench_task), key=lambda c: c.label)
    if not declared:
        raise LookupError("no replica declares a bench_task: pass --replica")
    return declared[0]


def resolve_task(task_id: str | None, replica: str | None = None):
    """The catalogue's current version of `task_id`; with None, the replica's bench task or,
    while its pack lacks it, its first task that has a reference solution."""
    if task_id is not None:
        return task_current(task_id)
    config = bench_replica(replica)
    if config.bench_task:
        try:
            return task_current(config.bench_task)
        except TaskNotFound:
            pass
    for task in Task.objects.filter(replica=config.label, is_current=True).order_by("task_id"):
        if task.reference_solution:
            return task
    raise TaskNotFound(
        f"no task {config.bench_task!r} and no {config.label} task with a reference solution in the catalogue "
        f"(sync its pack first: manage.py task_sync {config.label})"
    )


def scenario_for(task_id: str | None, replica: str | None = None) -> Scenario:
    """The task as an episode runs it (filled from its answer key), with its reference solution."""
    task = resolve_task(task_id, replica)
    actions = tuple(task.reference_solution)
    if not actions:
        raise ValueError(f"task {task.task_id!r} has no reference solution to drive")
    return Scenario(
        task_id=task.task_id,
        replica=task.replica,
        seed=task.seed,
        variant=task.variant,
        instruction=task.instruction,
        start_page=task.start_page,
        actions=actions,
    )


def scenario_world(scenario: Scenario):
    return world_create(replica=scenario.replica, seed=scenario.seed, variant=scenario.variant)


def bench_pages(world) -> list[str]:
    """The replica's bench pages in `world` (the first has a text field to type into)."""
    with bound_world(world):
        return get_replica(world.replica).bench_pages(world)


def signed_in_user(world):
    """The replica's default user signed in on `world`, or None when it has no sign-in."""
    return get_replica(world.replica).sign_in(world)


def signed_in_cookies(world, port: int) -> list[dict]:
    """Playwright cookies of a signed-in session on `world` (none for a replica without sign-in)."""
    user = signed_in_user(world)
    return user.cookies(world_origin(world, port)) if user is not None else []
