"""The world clock: each world has its own now, and only it tells time."""

from datetime import timedelta

import pytest
from django.template import Context, Template

from replicas.worlds import clock
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create

pytestmark = pytest.mark.django_db


def test_each_world_has_its_own_now_fixed_by_its_seed(make_world):
    a, b, c = make_world(seed=1), make_world(seed=1), make_world(seed=2)
    with bound_world(a):
        now_a = clock.now()
    assert now_a == b.clock != c.clock


def test_advancing_one_world_clock_leaves_the_others(make_world):
    a, b = make_world(), make_world()
    before = a.clock
    clock.world_clock_advance(world=a, seconds=3600)
    a.refresh_from_db()
    b.refresh_from_db()
    assert a.clock - before == timedelta(hours=1)
    assert b.clock == before


def test_the_clock_never_goes_back(world):
    with pytest.raises(ValueError):
        clock.world_clock_advance(world=world, seconds=-1)


def test_relative_times_on_pages_are_measured_on_the_world_clock():
    world = world_create(replica="testbed", seed=5, variant="small")
    with bound_world(world):
        text = Template("{% load worldtime %}{{ t|ago }}").render(Context({"t": world.clock - timedelta(days=3)}))
    assert text == "3\xa0days ago"


def test_times_less_than_a_minute_before_the_world_now_read_just_now(world):
    with bound_world(world):
        text = Template("{% load worldtime %}{{ t|ago }}").render(Context({"t": world.clock - timedelta(seconds=20)}))
    assert text == "just now"
