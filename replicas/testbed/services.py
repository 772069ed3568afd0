"""Writes of the testbed, with the world bound: note edits, sign-in, the reminder job."""

from django.core.exceptions import ValidationError

from replicas.worlds import clock
from replicas.worlds.registry import ReplicaUser
from replicas.worlds.scoping import bound_world
from replicas.worlds.signin import WorldSignIn

from .models import Member, Note

# members sign in with the worlds' kit: passwords from the world secret, world-bound sessions
SIGNIN = WorldSignIn(replica="testbed", who="member")


def member_password(*, seed: int, public_id: int) -> str:
    """Each member's password in worlds of `seed` on this installation (tasks quote it to the agent)."""
    return SIGNIN.password(seed=seed, user_id=public_id)


def member_authenticate(*, email: str, password: str, seed: int) -> Member:
    member = Member.objects.filter(email__iexact=email.strip()).first()
    if member is None or not SIGNIN.password_matches(seed=seed, user_id=member.public_id, password=password):
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
    return SIGNIN.replica_user(world, role=role, login=member.email, user_id=member.public_id)
