"""Fixtures shared by the whole suite."""
import pytest

from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create


@pytest.fixture
def make_world(db):
    def make(replica="supportdesk", seed=7, variant="small", **kwargs):
        return world_create(replica=replica, seed=seed, variant=variant, **kwargs)

    return make


@pytest.fixture
def world(make_world):
    return make_world()


@pytest.fixture
def in_world(world):
    with bound_world(world):
        yield world


@pytest.fixture
def world_client(client):
    """A test client whose requests go to a world's own origin."""

    def for_world(world):
        client.defaults["HTTP_HOST"] = f"w-{world.token}.localhost:8000"
        return client

    return for_world
