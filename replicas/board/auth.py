"""Team members' passwords and sessions: the sign-in form, the `sign_in` contract and the views share them."""

import hashlib

from django.contrib.sessions.backends.db import SessionStore

from replicas.worlds.registry import ReplicaUser
from replicas.worlds.scoping import bound_world

from .models import Person

SESSION_PERSON = "board_person"
SESSION_WORLD = "board_world"
_WORDS = [
    "amber",
    "birch",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "grove",
    "harbor",
    "indigo",
    "juniper",
    "kestrel",
    "lumen",
    "maple",
    "nectar",
    "orchid",
    "pebble",
    "quartz",
    "raven",
    "sierra",
    "tundra",
]


def person_password(*, seed: int, username: str) -> str:
    """Each person's password: derived from the world's seed, so task instructions can state it."""
    digest = hashlib.sha256(f"board-person\x00{seed}\x00{username}".encode()).digest()
    return f"{_WORDS[digest[0] % 20]}-{_WORDS[digest[1] % 20]}-{int.from_bytes(digest[2:4], 'big') % 10000:04d}"


def person_authenticate(*, world, email: str, password: str) -> Person | None:
    """The active person with this email and password, or None (one answer for every failure)."""
    person = Person.objects.filter(email__iexact=email.strip(), active=True).first()
    if person is None or password != person_password(seed=world.seed, username=person.username):
        return None
    return person


def session_sign_in(session, world, person: Person) -> None:
    session[SESSION_WORLD] = world.token
    session[SESSION_PERSON] = person.username


def signed_in_person(request) -> Person | None:
    if request.session.get(SESSION_WORLD) != request.world.token:
        return None
    username = request.session.get(SESSION_PERSON)
    if not isinstance(username, str):
        return None
    return Person.objects.filter(username=username, active=True).first()


def person_sign_in(world, role: str) -> ReplicaUser | None:
    """The first active administrator (or member) in public-id order, signed in on `world`."""
    with bound_world(world):
        person = Person.objects.filter(active=True, is_admin=role == "admin").order_by("public_id").first()
        if person is None:
            return None
        store = SessionStore()
        session_sign_in(store, world, person)
        store.create()
    return ReplicaUser(
        role=role,
        login=person.email,
        password=person_password(seed=world.seed, username=person.username),
        session_key=store.session_key,
    )
