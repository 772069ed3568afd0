"""Seeded generation: one random stream per (replica, seed, variant).

Generators draw every name, amount and date from `gen.random` / `gen.faker` in a
fixed order and assign row ids in creation order, so a world never depends on
dict order, database primary keys or the wall clock.
"""

import hashlib
import random
from collections import defaultdict
from datetime import datetime

from faker import Faker

from .models import RowIds


def stream_seed(replica: str, seed: int, variant: str) -> int:
    digest = hashlib.sha256(f"{replica}\x00{seed}\x00{variant}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def candidates(items, rng: random.Random | None = None):
    """A task picker's candidates: `items` as they are (in their order, as lazy as they were), or a list
    of them shuffled by an episode's `rng`.

    A picker takes the first suitable one, which is then uniform among the suitable candidates
    (and the first of them without an rng: the task's fixed pick) while checking no more of them
    than it needs to.
    """
    if rng is None:
        return items
    items = list(items)
    rng.shuffle(items)
    return items


class Generation:
    """What a seed generator writes a world with."""

    BATCH = 2000

    def __init__(self, world, knobs: dict, models: list):
        self.world = world
        self.knobs = knobs
        self.random = random.Random(stream_seed(world.replica, world.seed, world.variant))
        self.faker = Faker("en_US")
        self.faker.seed_instance(self.random.getrandbits(64))
        self.ids = RowIds(world.id)
        self._models = models
        self._pending = defaultdict(list)

    @property
    def now(self) -> datetime:
        return self.world.clock

    def add(self, obj):
        """Give `obj` its id in this world and queue it for insertion; returns it."""
        obj.id = self.ids.next(type(obj))
        obj.world_id = self.world.id
        self._pending[type(obj)].append(obj)
        return obj

    @property
    def row_count(self) -> int:
        return sum(len(rows) for rows in self._pending.values())

    def flush(self):
        for model in self._models:
            rows = self._pending.pop(model, [])
            if rows:
                model.all_worlds.bulk_create(rows, batch_size=self.BATCH)
        if self._pending:
            names = ", ".join(m.__name__ for m in self._pending)
            raise TypeError(f"generated rows of models the replica does not declare: {names}")
