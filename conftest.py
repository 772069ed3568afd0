"""Fixtures shared by the whole suite."""
import pytest

from replicas.worlds.registry import get_replica
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
def world_client(client, settings):
    """A test client whose requests go to a world's own origin.

    It is signed in as the replica's default role (ReplicaConfig.sign_in) when the replica
    has sign-in; pass signed_in=False to stay anonymous.
    """

    def for_world(world, signed_in=True):
        client.defaults["HTTP_HOST"] = f"w-{world.token}.localhost:8000"
        client.cookies.pop(settings.SESSION_COOKIE_NAME, None)
        if signed_in and not world.is_template:
            user = get_replica(world.replica).sign_in(world)
            if user is not None:  # a deleted world has no user to sign in as
                client.cookies[settings.SESSION_COOKIE_NAME] = user.session_key
        return client

    return for_world
