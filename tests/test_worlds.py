"""Worlds: determinism, cloning, isolation, lifecycle."""

import pytest

from replicas.testbed.models import Member, Note
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
    fresh = world_generate(replica="testbed", seed=11, variant="small")
    assert cloned.template is not None and cloned.template.is_template
    assert state_hash(snapshot(cloned)) == state_hash(snapshot(fresh)) == cloned.state_hash


def test_the_template_is_generated_once_and_reused():
    first = template_get_or_build(replica="testbed", seed=3, variant="small")
    world_create(replica="testbed", seed=3, variant="small")
    assert template_get_or_build(replica="testbed", seed=3, variant="small") == first
    assert World.objects.filter(is_template=True, seed=3).count() == 1


def test_a_clone_has_the_template_rows_under_new_ids_and_public_ids_unchanged(make_world):
    a, b = make_world(), make_world()
    with bound_world(a):
        ta = list(Note.objects.order_by("public_id").values_list("id", "public_id", "owner__public_id"))
    with bound_world(b):
        tb = list(Note.objects.order_by("public_id").values_list("id", "public_id", "owner__public_id"))
    assert [t[1:] for t in ta] == [t[1:] for t in tb]
    assert not {t[0] for t in ta} & {t[0] for t in tb}


def test_snapshot_keys_rows_by_public_ids_and_writes_references_as_public_ids(world):
    snap = snapshot(world)
    notes = snap["tables"]["testbed.note"]
    with bound_world(world):
        note = Note.objects.select_related("owner").order_by("public_id").first()
    row = notes[str(note.public_id)]
    assert row["owner"] == str(note.owner.public_id)
    assert "id" not in row and "world" not in row
    assert str(note.id) not in notes


def test_diff_reports_added_removed_and_changed_rows_field_by_field(make_world):
    a, b = make_world(), make_world()
    with bound_world(b):
        note = Note.objects.order_by("public_id").first()
        note.done = not note.done
        note.save()
        owner = Member.objects.filter(role="owner").get()
        Note.objects.create(public_id=1000, title="Added", body="Done", owner=owner, updated_at=note.updated_at)
        Note.objects.order_by("-public_id").exclude(public_id=1000).first().delete()
    d = diff(snapshot(a), snapshot(b))
    assert d["totals"] == {"added": 1, "removed": 1, "changed": 1}
    changed = d["tables"]["testbed.note"]["changed"][str(note.public_id)]
    assert set(changed) == {"done"} and changed["done"]["to"] is note.done
    assert d["tables"]["testbed.note"]["added"]["1000"]["body"] == "Done"
    assert d["before"] != d["after"]
    assert diff(snapshot(a), snapshot(a))["tables"] == {}


def test_a_diff_built_on_a_known_one_equals_the_whole_diff_whatever_the_one_table_does(make_world):
    """The mutation audit's diffs (`known=`, `only=`): a table changed further, put back as it was, emptied, or
    gaining a row, and a table the known diff never saw change."""
    world = make_world()
    initial = snapshot(world)
    with bound_world(world):
        note = Note.objects.order_by("public_id").first()
        note.done = not note.done
        note.save()
    final = snapshot(world)
    known = diff(initial, final)
    notes, members = final["tables"]["testbed.note"], final["tables"]["testbed.member"]
    first, second = sorted(notes)[:2]
    some_member = sorted(members)[0]
    states = {
        "testbed.note": [
            {**notes, second: {**notes[second], "title": "Changed too"}},
            {**notes, first: initial["tables"]["testbed.note"][first]},
            {},
            {**notes, "1000": {**notes[first], "title": "Added"}},
        ],
        "testbed.member": [{**members, some_member: {**members[some_member], "role": "owner"}}],
    }
    for table, variants in states.items():
        for rows in variants:
            state = {**final, "tables": {**final["tables"], table: rows}}
            assert diff(initial, state, known=known, only=table) == diff(initial, state)


def test_replica_rows_cannot_be_read_with_no_world_bound(world):
    with pytest.raises(NoWorldBound):
        Note.objects.count()


def test_queries_see_only_the_bound_world(make_world):
    a, b = make_world(seed=7), make_world(seed=8)
    with bound_world(a):
        count_a = Note.objects.count()
        ids_a = set(Note.objects.values_list("id", flat=True))
    assert Note.all_worlds.filter(world_id__in=[a.id, b.id]).count() > count_a
    assert all(i >> 32 == a.id for i in ids_a)


def test_writing_a_row_of_another_world_is_refused(make_world):
    a, b = make_world(), make_world()
    with bound_world(b):
        foreign = Note.objects.first()
        foreign_member = Member.objects.first()
    with bound_world(a):
        foreign.title = "hijacked"
        with pytest.raises(CrossWorldWrite):
            foreign.save()
        mine = Note.objects.first()
        mine.owner_id = foreign_member.id
        with pytest.raises(CrossWorldWrite):
            mine.save()
    with bound_world(b):
        assert Note.objects.get(pk=foreign.pk).title != "hijacked"


def test_bulk_updates_stay_inside_the_bound_world(make_world):
    a, b = make_world(), make_world()
    with bound_world(a):
        Note.objects.update(title="changed")
    with bound_world(b):
        assert not Note.objects.filter(title="changed").exists()


def test_world_delete_removes_every_row_of_that_world_only(make_world):
    a, b = make_world(), make_world()
    world_delete(world=a)
    assert not World.objects.filter(pk=a.pk).exists()
    for model in get_replica("testbed").world_models:
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
        ({"replica": "testbed", "seed": 1, "variant": "nope"}, UnknownVariant),
        ({"replica": "testbed", "seed": -1}, InvalidWorldRequest),
        ({"replica": "testbed", "seed": "7"}, InvalidWorldRequest),
        ({"replica": "testbed", "seed": 2**64}, InvalidWorldRequest),
    ],
)
def test_bad_world_requests_are_refused_and_create_nothing(kwargs, error):
    before = World.objects.count()
    with pytest.raises(error):
        world_create(**kwargs)
    assert World.objects.count() == before


def test_registry_finds_replicas_and_orders_models_parents_first():
    config = get_replica("testbed")
    names = [m.__name__ for m in config.world_models]
    assert names.index("Member") < names.index("Note")
    assert "default" in config.variants and config.start_pages
