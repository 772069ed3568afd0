"""Verifier inputs built from real testbed worlds: snapshot, change rows, snapshot again."""

import pytest

from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot
from verifiers.inputs import VerifierInputs


class Before:
    """A world with its initial snapshot; `inputs()` snapshots it again as the final state."""

    def __init__(self, world):
        self.world = world
        self.initial = snapshot(world)

    def bound(self):
        return bound_world(self.world)

    def inputs(self, **kwargs) -> VerifierInputs:
        kwargs.setdefault("clock", self.world.clock.isoformat().replace("+00:00", "Z"))
        return VerifierInputs(initial=self.initial, final=snapshot(self.world), replica=self.world.replica, **kwargs)


@pytest.fixture
def before(world):
    return Before(world)
