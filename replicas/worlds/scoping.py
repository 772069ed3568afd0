"""Which world the running code acts in.

Replica code never names a world: the routing middleware (or a service, a
command, a test) binds one for the duration of the work, and every world-scoped
query and write goes through it. Code that runs with no world bound and touches
replica rows fails loudly instead of reading across worlds.
"""

from contextlib import contextmanager
from contextvars import ContextVar

_current = ContextVar("replicagym_world", default=None)


class NoWorldBound(RuntimeError):
    """Replica rows were touched outside of any world."""


class CrossWorldWrite(RuntimeError):
    """A row of one world was about to be written while another world is bound."""


def current_world():
    world = _current.get()
    if world is None:
        raise NoWorldBound("no world is bound: wrap the work in bound_world(world)")
    return world


def current_world_or_none():
    return _current.get()


@contextmanager
def bound_world(world):
    token = _current.set(world)
    try:
        yield world
    finally:
        _current.reset(token)
