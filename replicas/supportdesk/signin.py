"""Signed-in agent sessions made without the sign-in form: for the platform's
`sign_in` contract (tests, benchmarks) and the desk's own screenshot commands."""

from replicas.worlds.registry import ReplicaUser
from replicas.worlds.scoping import bound_world

from .models import User
from .policies import SIGNIN
from .views.common import SESSION_TABS


def agent_session(world, agent: User | None = None, tabs: list[int] | None = None) -> tuple[str | None, User | None]:
    """A session key signed in as `agent` (default: the desk's first administrator) on `world`.

    (None, None) when the world has no administrator (e.g. it was deleted).
    """
    if agent is None:
        with bound_world(world):
            agent = User.objects.filter(role=User.Role.ADMIN).order_by("public_id").first()
        if agent is None:
            return None, None
    return SIGNIN.new_session(world, agent.public_id, **{SESSION_TABS: list(tabs or [])}), agent


def user_sign_in(world, role: str) -> ReplicaUser | None:
    """The first user of `role` (admin or agent) in public-id order, signed in on `world`."""
    with bound_world(world):
        user = User.objects.filter(role=role).order_by("public_id").first()
    if user is None:
        return None
    return SIGNIN.replica_user(world, role=role, login=user.email, user_id=user.public_id, **{SESSION_TABS: []})
