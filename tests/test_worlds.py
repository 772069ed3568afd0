"""Worlds: determinism, cloning, isolation, lifecycle."""
import pytest

from replicas.supportdesk.models import Comment, Ticket, User
from replicas.worlds.models import World
from replicas.worlds.registry import UnknownReplica, UnknownVariant, get_replica
from replicas.worlds.scoping import CrossWorldWrite, NoWorldBound, bound_world
from replicas.worlds.services import (
    InvalidWorldRequest,
    template_get_or_build,
    world_create,
    world_delete,
    world_gc,
    world_generate,
)
from replicas.worlds.snapshot import diff, snapshot, state_hash

pytestmark = pytest.mark.django_db


def test_same_replica_seed_and_variant_give_the_same_state_hash(make_world):
    a, b = make_world(seed=7), make_world(seed=7)
    assert a.token != b.token
    assert state_hash(snapshot(a)) == state_hash(snapshot(b))


def test_different_seeds_give_different_state_hashes(make_world):
    assert state_hash(snapshot(make_world(seed=7))) != state_hash(snapshot(make_world(seed=8)))


def test_different_variants_give_different_state_hashes(make_world):
    assert state_hash(snapshot(make_world(variant="small"))) != state_hash(snapshot(make_world(variant="default")))


def test_a_clone_has_the_same_hash_as_a_world_generated_from_scratch(make_world):
    cloned = make_world(seed=11)
    fresh = world_generate(replica="supportdesk", seed=11, variant="small")
    assert cloned.template is not None and cloned.template.is_template
    assert state_hash(snapshot(cloned)) == state_hash(snapshot(fresh)) == cloned.state_hash


def test_the_template_is_generated_once_and_reused():
    first = template_get_or_build(replica="supportdesk", seed=3, variant="small")
    world_create(replica="supportdesk", seed=3, variant="small")
    assert template_get_or_build(replica="supportdesk", seed=3, variant="small") == first
    assert World.objects.filter(is_template=True, seed=3).count() == 1


def test_a_clone_has_the_template_rows_under_new_ids_and_public_ids_unchanged(make_world):
    a, b = make_world(), make_world()
    with bound_world(a):
        ta = list(Ticket.objects.order_by("public_id").values_list("id", "public_id", "requester__public_id"))
    with bound_world(b):
        tb = list(Ticket.objects.order_by("public_id").values_list("id", "public_id", "requester__public_id"))
    assert [t[1:] for t in ta] == [t[1:] for t in tb]
    assert not {t[0] for t in ta} & {t[0] for t in tb}


def test_snapshot_keys_rows_by_public_ids_and_writes_references_as_public_ids(world):
    snap = snapshot(world)
    tickets = snap["tables"]["supportdesk.ticket"]
    with bound_world(world):
        ticket = Ticket.objects.select_related("requester").order_by("public_id").first()
    row = tickets[str(ticket.public_id)]
    assert row["requester"] == str(ticket.requester.public_id)
    assert "id" not in row and "world" not in row
    assert str(ticket.id) not in tickets


def test_diff_reports_added_removed_and_changed_rows_field_by_field(make_world):
    a, b = make_world(), make_world()
    with bound_world(b):
        ticket = Ticket.objects.order_by("public_id").first()
        ticket.status = "solved" if ticket.status != "solved" else "open"
        ticket.save()
        agent = User.objects.filter(role="admin").get()
        Comment.objects.create(public_id=1, ticket=ticket, author=agent, body="Done", created_at=ticket.created_at)
        Comment.objects.filter(ticket__public_id=ticket.public_id).exclude(public_id=1).first().delete()
    d = diff(snapshot(a), snapshot(b))
    assert d["totals"] == {"added": 1, "removed": 1, "changed": 1}
    changed = d["tables"]["supportdesk.ticket"]["changed"][str(ticket.public_id)]
    assert set(changed) == {"status"} and changed["status"]["to"] == ticket.status
    assert d["tables"]["supportdesk.comment"]["added"]["1"]["body"] == "Done"
    assert d["before"] != d["after"]
    assert diff(snapshot(a), snapshot(a))["tables"] == {}


def test_replica_rows_cannot_be_read_with_no_world_bound(world):
    with pytest.raises(NoWorldBound):
        Ticket.objects.count()


def test_queries_see_only_the_bound_world(make_world):
    a, b = make_world(seed=7), make_world(seed=8)
    with bound_world(a):
        count_a = Ticket.objects.count()
        ids_a = set(Ticket.objects.values_list("id", flat=True))
    assert Ticket.all_worlds.filter(world_id__in=[a.id, b.id]).count() > count_a
    assert all(i >> 32 == a.id for i in ids_a)


def test_writing_a_row_of_another_world_is_refused(make_world):
    a, b = make_world(), make_world()
    with bound_world(b):
        foreign = Ticket.objects.first()
        foreign_user = User.objects.first()
    with bound_world(a):
        foreign.subject = "hijacked"
        with pytest.raises(CrossWorldWrite):
            foreign.save()
        mine = Ticket.objects.first()
        mine.requester_id = foreign_user.id
        with pytest.raises(CrossWorldWrite):
            mine.save()
    with bound_world(b):
        assert Ticket.objects.get(pk=foreign.pk).subject != "hijacked"


def test_bulk_updates_stay_inside_the_bound_world(make_world):
    a, b = make_world(), make_world()
    with bound_world(a):
        Ticket.objects.update(subject="changed")
    with bound_world(b):
        assert not Ticket.objects.filter(subject="changed").exists()


def test_world_delete_removes_every_row_of_that_world_only(make_world):
    a, b = make_world(), make_world()
    world_delete(world=a)
    assert not World.objects.filter(pk=a.pk).exists()
    for model in get_replica("supportdesk").world_models:
        assert not model.all_worlds.filter(world_id=a.id).exists()
    assert state_hash(snapshot(b)) == b.state_hash


def test_gc_removes_worlds_unused_for_longer_than_the_limit(make_world):
    from datetime import timedelta

    from django.utils import timezone

    old, recent = make_world(), make_world()
    World.objects.filter(pk=old.pk).update(last_used_at=timezone.now() - timedelta(hours=48))
    assert world_gc(older_than=timedelta(hours=24)) == {"worlds": 1, "templates": 0}
    assert not World.objects.filter(pk=old.pk).exists()
    assert World.objects.filter(pk=recent.pk).exists()
    assert World.objects.filter(pk=recent.template_id).exists()


def test_gc_removes_templates_of_an_outdated_generator(make_world):
    world = make_world()
    World.objects.filter(pk=world.template_id).update(generator_version="old")
    assert world_gc()["templates"] == 1
    world.refresh_from_db()
    assert world.template is None


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"replica": "nope", "seed": 1}, UnknownReplica),
        ({"replica": "supportdesk", "seed": 1, "variant": "nope"}, UnknownVariant),
        ({"replica": "supportdesk", "seed": -1}, InvalidWorldRequest),
        ({"replica": "supportdesk", "seed": "7"}, InvalidWorldRequest),
        ({"replica": "supportdesk", "seed": 2**64}, InvalidWorldRequest),
    ],
)
def test_bad_world_requests_are_refused_and_create_nothing(kwargs, error):
    before = World.objects.count()
    with pytest.raises(error):
        world_create(**kwargs)
    assert World.objects.count() == before


def test_registry_finds_replicas_and_orders_models_parents_first():
    config = get_replica("supportdesk")
    names = [m.__name__ for m in config.world_models]
    assert names.index("User") < names.index("Ticket") < names.index("Comment")
    assert names.index("Organization") < names.index("User")
    assert "default" in config.variants and config.start_pages
