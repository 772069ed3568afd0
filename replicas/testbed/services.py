"""Writes of the testbed, with the world bound: note edits, sign-in, the reminder job."""

from django.contrib.sessions.backends.db import SessionStore
from django.core.exceptions import ValidationError

from replicas.worlds import clock
from replicas.worlds.registry import ReplicaUser
from replicas.worlds.scoping import bound_world

from .models import Member, Note

SESSION_MEMBER = "testbed_member"
SESSION_WORLD = "testbed_world"


def member_password(*, seed: int, public_id: int) -> str:
    """Each member's password, fixed by the world's seed (tasks quote it to the agent)."""
    return f"pw-{seed % 1000}-{public_id}"


def member_authenticate(*, email: str, password: str, seed: int) -> Member:
    member = Member.objects.filter(email__iexact=email.strip()).first()
    if member is None or password != member_password(seed=seed, public_id=member.public_id):
        raise ValidationError("Wrong email or password.")
    return member


def note_update(*, note: Note, title: str, done: bool) -> Note:
    title = title.strip()
    if not title:
        raise ValidationError("A note needs a title.")
    if len(title) > 120:
        raise ValidationError("Titles are at most 120 characters.")
    if (note.title, note.done) != (title, done):
        note.title, note.done, note.updated_at = title, done, clock.now()
        note.save(update_fields=["title", "done", "updated_at"])
    return note


def reminders_run() -> int:
    """Flag the notes whose reminder time has come; returns how many."""
    return Note.objects.filter(remind_at__lte=clock.now(), reminded=False).update(reminded=True)


def member_sign_in(*, world, role: str) -> ReplicaUser | None:
    """The first member of `role` signed in on `world`, without the form."""
    with bound_world(world):
        member = Member.objects.filter(role=role).order_by("public_id").first()
        if member is None:
            return None
        store = SessionStore()
        store[SESSION_WORLD] = world.token
        store[SESSION_MEMBER] = member.public_id
        store.create()
    return ReplicaUser(
        role=role,
        login=member.email,
        password=member_password(seed=world.seed, public_id=member.public_id),
        session_key=store.session_key,
    )
