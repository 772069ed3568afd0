"""The world clock: each world's own virtual now.

Replica code reads time only here, so SLAs, due dates and "3 days ago" are the
same in every run. The clock moves only when the platform advances it (the
episode engine does so by a fixed amount per step).
"""
from datetime import datetime, timedelta

from .scoping import current_world


def now() -> datetime:
    return current_world().clock


def world_clock_advance(*, world, seconds: float) -> datetime:
    from .models import World

    if seconds < 0:
        raise ValueError("the world clock never goes back")
    world.clock = world.clock + timedelta(seconds=seconds)
    World.objects.filter(pk=world.pk).update(clock=world.clock)
    return world.clock
