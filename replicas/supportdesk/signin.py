"""Signed-in agent sessions made without the sign-in form: for the platform's
`sign_in` contract (tests, benchmarks) and the desk's own screenshot commands."""

from django.contrib.sessions.backends.db import SessionStore

from replicas.worlds.registry import ReplicaUser
from replicas.worlds.scoping import bound_world

from .models import User
from .policies import agent_password
from .views.common import SESSION_AGENT, SESSION_TABS, SESSION_WORLD


def agent_session(world, agent: User | None = None, tabs: list[int] | None = None) -> tuple[str | None, User | None]:
    """A session key signed in as `agent` (default: the desk's first administrator) on `world`.

    (None, None) when the world has no administrator (e.g. it was deleted).
    """
    with bound_world(world):
        if agent is None:
            agent = User.objects.filter(role=User.Role.ADMIN).order_by("public_id").first()
            if agent is None:
                return None, None
        store = SessionStore()
        store[SESSION_WORLD] = world.token
        store[SESSION_AGENT] = agent.public_id
        store[SESSION_TABS] = list(tabs or [])
        store.create()
    return store.session_key, agent


def user_sign_in(world, role: str) -> ReplicaUser | None:
    """The first user of `role` (admin or agent) in public-id order, signed in on `world`."""
    with bound_world(world):
        user = User.objects.filter(role=role).order_by("public_id").first()
    if user is None:
        return None
    key, _ = agent_session(world, user)
    return ReplicaUser(
        role=role,
        login=user.email,
        password=agent_password(seed=world.seed, agent_public_id=user.public_id),
        session_key=key,
    )
