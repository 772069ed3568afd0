"""`manage.py screenshots REPLICA`: one command for every replica's doc pictures, driven by its screenshot_tour hook."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("replica", ["supportdesk", "board", "shop"])
def test_each_replica_with_pictures_has_a_tour_that_finds_its_showcase_rows_in_a_fresh_world(replica):
    world = world_create(replica=replica, seed=7, variant="default")
    with bound_world(world):
        shoot = get_replica(replica).screenshot_tour(world)
    assert callable(shoot)


def test_the_command_refuses_an_unknown_replica_and_one_without_a_tour(tmp_path):
    with pytest.raises(CommandError, match="unknown replica 'nosuch'"):
        call_command("screenshots", "nosuch", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="testbed has no screenshot tour"):
        call_command("screenshots", "testbed", "--out", str(tmp_path))
    assert list(tmp_path.iterdir()) == []
