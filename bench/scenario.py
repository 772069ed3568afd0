"""The task the step, start, throughput and BrowserGym sections drive: one support desk
task from the replica's task pack, filled from its answer key, plus fresh worlds for it."""
from dataclasses import dataclass

from django.conf import settings

from replicas.worlds.routing import world_origin
from replicas.worlds.services import world_create

DEFAULT_TASK = "supportdesk.refund-duplicate-charge"


@dataclass(frozen=True)
class Scenario:
    task_id: str
    replica: str
    seed: int
    variant: str
    instruction: str
    start_page: str
    actions: tuple[str, ...]


def resolve_task(task_id: str | None):
    """The catalogue's current version of `task_id`; with None, the default task or, while
    the pack lacks it, the first support desk task that has a reference solution."""
    from replicagym.catalogue.models import Task
    from replicagym.catalogue.packs import TaskNotFound, task_current

    if task_id is not None:
        return task_current(task_id)
    try:
        return task_current(DEFAULT_TASK)
    except TaskNotFound:
        pass
    for task in Task.objects.filter(replica="supportdesk", is_current=True).order_by("task_id"):
        if task.reference_solution:
            return task
    raise TaskNotFound(f"no task {DEFAULT_TASK!r} and no support desk task with a reference solution in the catalogue")


def scenario_for(task_id: str | None) -> Scenario:
    """The task as an episode runs it (filled from its answer key), with its reference solution."""
    task = resolve_task(task_id)
    actions = tuple(task.reference_solution)
    if not actions:
        raise ValueError(f"task {task.task_id!r} has no reference solution to drive")
    return Scenario(task_id=task.task_id, replica=task.replica, seed=task.seed, variant=task.variant,
                    instruction=task.instruction, start_page=task.start_page, actions=actions)


def scenario_world(scenario: Scenario):
    return world_create(replica=scenario.replica, seed=scenario.seed, variant=scenario.variant)


def signed_in_cookies(world, port: int) -> list[dict]:
    """Playwright cookies of an agent session on `world`, for browsers other than the engine's."""
    from replicas.supportdesk.management.browser import agent_session

    key, _agent = agent_session(world)
    host = world_origin(world, port).split("://", 1)[1].rsplit(":", 1)[0]
    return [{"name": settings.SESSION_COOKIE_NAME, "value": key, "domain": host, "path": "/",
             "httpOnly": True, "secure": False, "sameSite": "Lax", "expires": -1}]
