"""Params of the testbed tasks: called as `fn(world)` with the (template) world bound."""

from ..models import Member, Note
from ..services import member_password


def _signed_in_as(world) -> dict:
    owner = Member.objects.filter(role=Member.Role.OWNER).order_by("public_id").first()
    return {"email": owner.email, "password": member_password(seed=world.seed, public_id=owner.public_id)}


def member_signin(world, seed, role=Member.Role.OWNER) -> dict:
    """Picker: the first member of `role` and what they sign in with; a template param named `member` gives
    member_email, member_name, member_password and member_id."""
    member = Member.objects.filter(role=role).order_by("public_id").first()
    if member is None:
        raise LookupError(f"no member with the role {role!r}")
    return {
        "email": member.email,
        "name": member.name,
        "password": member_password(seed=seed, public_id=member.public_id),
        "id": member.public_id,
    }


def open_note(world) -> dict:
    """The first open note, and another open one (what a careless agent would touch instead)."""
    notes = list(Note.objects.filter(done=False).order_by("public_id")[:2])
    if len(notes) < 2:
        raise LookupError("the world has fewer than two open notes")
    return {**_signed_in_as(world), "note": notes[0].public_id, "title": notes[0].title, "other": notes[1].public_id}


def renamed_note(world) -> dict:
    note = Note.objects.order_by("public_id").first()
    taken = Note.objects.exclude(pk=note.pk).order_by("public_id").first()
    return {
        **_signed_in_as(world),
        "note": note.public_id,
        "title": note.title,
        "new_title": f"{note.title} (reviewed)",
        "taken_title": taken.title,
    }
