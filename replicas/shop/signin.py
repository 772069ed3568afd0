"""The shop's sign-in on the worlds' kit (HMAC passwords, world-bound sessions), and signed-in
sessions made without the form: for the platform's `sign_in` contract (tests, benchmarks) and
the shop's own screenshot command."""

from replicas.worlds.registry import ReplicaUser
from replicas.worlds.scoping import bound_world
from replicas.worlds.signin import WorldSignIn

from .models import Account

SIGNIN = WorldSignIn(replica="shop", who="account")


def account_password(*, seed: int, public_id: int) -> str:
    """Each account's password in worlds of `seed` on this installation (tasks may hand it out)."""
    return SIGNIN.password(seed=seed, user_id=public_id)


def account_session(world, account: Account) -> str:
    return SIGNIN.new_session(world, account.public_id)


def account_sign_in(world, role: str) -> ReplicaUser | None:
    """The first account of `role` in public-id order, signed in on `world`."""
    with bound_world(world):
        account = Account.objects.filter(role=role).order_by("public_id").first()
    if account is None:
        return None
    return SIGNIN.replica_user(world, role=role, login=account.email, user_id=account.public_id)
