"""Worlds are marked used by the requests they serve, cheaply, and gc goes by that last use."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from replicas.worlds.models import World
from replicas.worlds.services import world_gc, world_touch

pytestmark = pytest.mark.django_db


def _age(world, **delta):
    World.objects.filter(pk=world.pk).update(last_used_at=timezone.now() - timedelta(**delta))


def test_a_request_to_a_world_marks_it_used(world, world_client):
    _age(world, hours=30)
    assert world_client(world).get("/notes/3").status_code == 200
    world.refresh_from_db()
    assert timezone.now() - world.last_used_at < timedelta(minutes=1)


def test_world_touch_writes_at_most_once_a_minute_per_world(world):
    _age(world, hours=2)
    world.refresh_from_db()
    assert world_touch(world=world) is True
    with CaptureQueriesContext(connection) as queries:
        assert world_touch(world=world) is False
    assert len(queries) == 0


def test_gc_keeps_a_world_used_recently_even_when_created_long_ago(make_world, world_client):
    used, idle = make_world(), make_world()
    World.objects.filter(pk__in=[used.pk, idle.pk]).update(
        created_at=timezone.now() - timedelta(days=3), last_used_at=timezone.now() - timedelta(days=3)
    )
    used.refresh_from_db()
    world_client(used).get("/notes/3")
    assert world_gc(older_than=timedelta(hours=24)) == {"worlds": 1, "templates": 0}
    assert set(World.objects.filter(is_template=False).values_list("pk", flat=True)) == {used.pk}


def test_gc_spares_the_worlds_it_is_told_to_keep(make_world):
    promised = make_world()
    _age(promised, days=3)
    assert world_gc(older_than=timedelta(hours=24), keep=[promised.pk]) == {"worlds": 0, "templates": 0}
    assert World.objects.filter(pk=promised.pk).exists()
