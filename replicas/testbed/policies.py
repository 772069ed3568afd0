"""The team's rules: who may edit whose notes. The note form enforces them; declarative task templates
read them (TestbedConfig.policies), so a task names exactly the notes its member may change."""

from .models import Member, Note


def may_edit(member: Member, note: Note) -> bool:
    """The team's owner edits every note; a member edits only their own."""
    return member.role == Member.Role.OWNER or note.owner_id == member.pk


def editable_owners(world, member) -> list[int]:
    """Policy: the members (public ids) whose notes member `member` (a public id) may edit."""
    editor = Member.objects.filter(public_id=member).first()
    if editor is None:
        raise LookupError(f"no member {member!r} in this world")
    if editor.role == Member.Role.OWNER:
        return list(Member.objects.order_by("public_id").values_list("public_id", flat=True))
    return [editor.public_id]
