"""The task the step, start, throughput and BrowserGym sections drive: one support desk
task from the replica's task pack, filled from its answer key, plus fresh worlds for it."""
from dataclasses import dataclass

from django.conf import settings

from replicas.worlds.routing import world_origin
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


def scenario_for(task_id: str) -> Scenario:
    """The task `task_id` (`<replica>.<slug>`) as its pack file says, with its reference solution."""
    from replicagym.catalogue.models import Task
    from replicagym.catalogue.packs import load_pack

    replica, _, slug = task_id.partition(".")
    if not replica or not slug:
        raise ValueError(f"task id {task_id!r} is not <replica>.<slug>")
    found = {t.task_id: t for t in load_pack(replica)}
    if task_id not in found:
        known = ", ".join(sorted(found)) or "none"
        raise LookupError(f"no task {task_id!r} in the {replica} pack (known: {known})")
    packed = found[task_id]
    task = Task(task_id=packed.task_id, replica=replica, slug=slug, spec=packed.spec, params=packed.params)
    actions = tuple(task.reference_solution)
    if not actions:
        raise ValueError(f"task {task_id!r} has no reference solution to drive")
    return Scenario(task_id=task_id, replica=replica, seed=task.seed, variant=task.variant,
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
