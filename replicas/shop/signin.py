"""Signed-in shop sessions made without the sign-in form: for the platform's `sign_in` contract
(tests, benchmarks) and the shop's own screenshot command."""

from django.contrib.sessions.backends.db import SessionStore

from replicas.worlds.registry import ReplicaUser
from replicas.worlds.scoping import bound_world

from .models import Account
from .policies import password_for

SESSION_ACCOUNT = "shop_account"
SESSION_WORLD = "shop_world"


def account_session(world, account: Account) -> str:
    store = SessionStore()
    store[SESSION_WORLD] = world.token
    store[SESSION_ACCOUNT] = account.public_id
    store.create()
    return store.session_key


def account_sign_in(world, role: str) -> ReplicaUser | None:
    """The first account of `role` in public-id order, signed in on `world`."""
    with bound_world(world):
        account = Account.objects.filter(role=role).order_by("public_id").first()
    if account is None:
        return None
    return ReplicaUser(
        role=role,
        login=account.email,
        password=password_for(seed=world.seed, public_id=account.public_id),
        session_key=account_session(world, account),
    )
