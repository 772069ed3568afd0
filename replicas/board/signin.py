"""Team members' sign-in on the worlds' kit (HMAC passwords, world-bound sessions): the sign-in
form, the `sign_in` contract and the views share it."""

from replicas.worlds.registry import ReplicaUser
from replicas.worlds.scoping import bound_world
from replicas.worlds.signin import WorldSignIn

from .models import Person

# a session holds the person's username (the board's people are known by it, as in the product)
SIGNIN = WorldSignIn(replica="board", who="person", id_type=str)


def person_password(*, seed: int, username: str) -> str:
    """Each person's password in worlds of `seed` on this installation (tasks may state it)."""
    return SIGNIN.password(seed=seed, user_id=username)


def person_authenticate(*, world, email: str, password: str) -> Person | None:
    """The active person with this email and password, or None (one answer for every failure)."""
    person = Person.objects.filter(email__iexact=email.strip(), active=True).first()
    if person is None or not SIGNIN.password_matches(seed=world.seed, user_id=person.username, password=password):
        return None
    return person


def signed_in_person(request) -> Person | None:
    username = SIGNIN.signed_in_id(request)
    return None if username is None else Person.objects.filter(username=username, active=True).first()


def person_sign_in(world, role: str) -> ReplicaUser | None:
    """The first active administrator (or member) in public-id order, signed in on `world`."""
    with bound_world(world):
        person = Person.objects.filter(active=True, is_admin=role == "admin").order_by("public_id").first()
    if person is None:
        return None
    return SIGNIN.replica_user(world, role=role, login=person.email, user_id=person.username)
