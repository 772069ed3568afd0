"""Verifier inputs built from real support desk worlds: snapshot, change rows, snapshot again."""
import pytest

from replicas.supportdesk.models import Ticket
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot
from verifiers.inputs import VerifierInputs


class Desk:
    """A support desk world with its initial snapshot; `inputs()` snapshots it again as the final state."""

    def __init__(self, world):
        self.world = world
        self.initial = snapshot(world)

    def bound(self):
        return bound_world(self.world)

    def ticket(self, **filters):
        with self.bound():
            return Ticket.objects.filter(**filters).order_by("public_id").first()

    def update_ticket(self, public_id, **values):
        with self.bound():
            Ticket.objects.filter(public_id=public_id).update(**values)

    def inputs(self, **kwargs) -> VerifierInputs:
        kwargs.setdefault("clock", self.world.clock.isoformat().replace("+00:00", "Z"))
        return VerifierInputs(initial=self.initial, final=snapshot(self.world), replica="supportdesk", **kwargs)


@pytest.fixture
def desk(world):
    return Desk(world)
