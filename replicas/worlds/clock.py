"""The world clock: each world's own virtual now.

Replica code reads time only here, so SLAs, due dates and "3 days ago" are the
same in every run. The clock moves only when the platform advances it (the
episode engine does so after every step, by the task's `limits.step_seconds`), and
every move runs the replica's `on_clock_advance` hook (its time-based automations).
"""

from datetime import datetime, timedelta

from .models import World
from .registry import get_replica
from .scoping import bound_world, current_world


def now() -> datetime:
    return current_world().clock


def world_clock_advance(*, world, seconds: float) -> datetime:
    if seconds < 0:
        raise ValueError("the world clock never goes back")
    world.clock = world.clock + timedelta(seconds=seconds)
    World.objects.filter(pk=world.pk).update(clock=world.clock)
    with bound_world(world):
        get_replica(world.replica).on_clock_advance(world)
    return world.clock
