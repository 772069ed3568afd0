"""The testbed's access rule and what templates read of it: the owner edits every note, a member only their own
(policies.editable_owners, enforced by the note form); the `member` picker signs a member in."""

from decimal import Decimal

import pytest
from django.conf import settings

from replicas.testbed.models import Member, Note
from replicas.testbed.policies import editable_owners
from replicas.testbed.services import member_password
from replicas.testbed.tasks.params import member_signin
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_world):
    return make_world(replica="testbed", variant="small")


def _as(world_client, world, role):
    client = world_client(world, signed_in=False)
    client.cookies[settings.SESSION_COOKIE_NAME] = get_replica("testbed").sign_in(world, role).session_key
    return client


def test_a_member_edits_their_own_notes_and_is_refused_anyone_else_s(world, world_client):
    client = _as(world_client, world, "member")
    with bound_world(world):
        me = Member.objects.filter(role="member").order_by("public_id").first()
        mine = Note.objects.filter(owner=me).order_by("public_id").first()
        theirs = Note.objects.exclude(owner=me).order_by("public_id").first()
    assert mine is not None and theirs is not None
    before = state_hash(snapshot(world))
    refused = client.post(f"/notes/{theirs.public_id}", {"title": "Mine now"})
    assert (
        refused.status_code == 403 and "Only the team&#x27;s owner or the note&#x27;s owner" in refused.content.decode()
    )
    assert state_hash(snapshot(world)) == before
    assert client.post(f"/notes/{mine.public_id}", {"title": "Reviewed"}).status_code == 302
    mine.refresh_from_db()
    assert mine.title == "Reviewed"


def test_the_owner_edits_every_note(world, world_client):
    client = _as(world_client, world, "owner")
    with bound_world(world):
        owner = Member.objects.get(role="owner")
        theirs = Note.objects.exclude(owner=owner).order_by("public_id").first()
    assert client.post(f"/notes/{theirs.public_id}", {"title": "Checked", "done": "on"}).status_code == 302
    theirs.refresh_from_db()
    assert (theirs.title, theirs.done) == ("Checked", True)


def test_the_policy_names_whose_notes_a_member_may_edit_and_the_picker_signs_one_in(world):
    with bound_world(world):
        members = list(Member.objects.order_by("public_id"))
        owner = next(m for m in members if m.role == "owner")
        member = next(m for m in members if m.role == "member")
        assert editable_owners(world, owner.public_id) == [m.public_id for m in members]
        assert editable_owners(world, member.public_id) == [member.public_id]
        with pytest.raises(LookupError):
            editable_owners(world, 999)
        assert member_signin(world, world.seed, role="member") == {
            "email": member.email,
            "name": member.name,
            "id": member.public_id,
            "password": member_password(seed=world.seed, public_id=member.public_id),
        }
        with pytest.raises(LookupError):
            member_signin(world, world.seed, role="auditor")
        estimates = list(Note.objects.values_list("estimate_hours", flat=True))
    assert all(Decimal("0.25") <= e <= Decimal("12") and e % Decimal("0.25") == 0 for e in estimates)


def test_the_list_shows_each_note_s_estimate(world, world_client):
    with bound_world(world):
        note = Note.objects.order_by("public_id").first()
    assert f"<td>{note.estimate_hours} h</td>" in world_client(world).get("/notes").content.decode()
