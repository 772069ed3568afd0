"""The warm pool of worlds: a pooled world is a fresh clone in all but timing, handed out once, kept current."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from replicas.worlds import pool as world_pool
from replicas.worlds.models import FaultProgress, World
from replicas.worlds.pool import (
    pool_claim,
    pool_fill,
    pool_ready,
    pool_refill_later,
    pool_refill_wait,
    pool_status,
    world_take,
)
from replicas.worlds.services import template_get_or_build, world_create, world_gc
from replicas.worlds.snapshot import snapshot, state_hash

KEY = dict(replica="testbed", seed=7, variant="small")


@pytest.fixture
def pool_on(settings):
    settings.WORLD_POOL_SIZE = 2
    settings.WORLD_POOL_REFILL = "off"
    return settings


@pytest.mark.django_db
def test_a_pooled_world_is_indistinguishable_from_a_fresh_clone(pool_on):
    assert pool_fill(**KEY) == 2
    cloned = world_create(**KEY)
    taken, from_pool = world_take(**KEY)
    assert from_pool and not taken.pooled
    template = template_get_or_build(**KEY)
    assert taken.template_id == cloned.template_id == template.id
    assert state_hash(snapshot(taken)) == state_hash(snapshot(cloned)) == taken.state_hash == template.state_hash
    assert taken.clock == cloned.clock == template.clock
    assert taken.rows == cloned.rows and taken.token != cloned.token
    assert taken.created_at >= cloned.created_at  # stamped when taken, not when pooled


@pytest.mark.django_db
def test_a_pooled_world_gets_the_task_faults_armed_when_taken(pool_on):
    faults = [{"name": "server_error", "params": {"route": "^/p/"}, "trigger": {"step": 2}}]
    pool_fill(**KEY)
    assert all(w.faults == [] for w in World.objects.filter(pooled=True))
    cloned = world_create(**KEY, faults=faults)
    taken, from_pool = world_take(**KEY, faults=faults)
    assert from_pool
    taken.refresh_from_db()
    assert taken.faults == cloned.faults
    progress = lambda w: list(FaultProgress.objects.filter(world=w).values_list("index", "name", "trigger"))  # noqa: E731
    assert progress(taken) == progress(cloned) and progress(taken)


@pytest.mark.django_db
def test_an_empty_or_disabled_pool_falls_back_to_a_clone(pool_on):
    world, from_pool = world_take(**KEY)
    assert not from_pool and world.template is not None and not world.pooled
    pool_fill(**KEY)
    pool_on.WORLD_POOL_SIZE = 0
    world, from_pool = world_take(**KEY)
    assert not from_pool
    assert pool_ready(**KEY) == 2  # a disabled pool is left alone


@pytest.mark.django_db
def test_each_pooled_world_is_taken_once_then_the_pool_runs_dry(pool_on):
    pool_fill(**KEY)
    pooled = set(World.objects.filter(pooled=True).values_list("pk", flat=True))
    first, second = pool_claim(**KEY), pool_claim(**KEY)
    assert {first.pk, second.pk} == pooled
    assert pool_claim(**KEY) is None
    assert pool_ready(**KEY) == 0


@pytest.mark.django_db
def test_a_rolled_back_take_puts_the_world_back(pool_on):
    pool_fill(**KEY, size=1)
    with pytest.raises(RuntimeError), transaction.atomic():
        assert world_take(**KEY)[1]
        raise RuntimeError("the episode could not be created")
    assert pool_ready(**KEY) == 1


@pytest.mark.django_db
def test_fill_tops_up_to_the_size_and_only_current_worlds_count(pool_on):
    assert pool_fill(**KEY, size=3) == 3
    assert pool_fill(**KEY, size=3) == 0
    World.objects.filter(pooled=True).filter(pk=World.objects.filter(pooled=True).first().pk).update(
        generator_version="old"
    )
    assert pool_ready(**KEY) == 2
    assert pool_fill(**KEY, size=3) == 1
    assert {(r["generator_version"] == "old", r["ready"]) for r in pool_status()} == {(True, 1), (False, 3)}


@pytest.mark.django_db
def test_pooled_worlds_are_not_served_listed_or_collected_by_age(pool_on, client):
    pool_fill(**KEY, size=1)
    pooled = World.objects.get(pooled=True)
    World.objects.filter(pk=pooled.pk).update(last_used_at=timezone.now() - timedelta(days=30))
    assert world_gc(older_than=timedelta(hours=1)) == {"worlds": 0, "templates": 0}
    assert World.objects.filter(pk=pooled.pk, pooled=True).exists()
    from replicas.worlds.routing import world_origin

    answer = client.get("/", HTTP_HOST=world_origin(pooled).split("//")[1])
    assert answer.status_code == 404


@pytest.mark.django_db
def test_gc_removes_pooled_worlds_of_an_outdated_generator_or_a_lost_template(pool_on):
    pool_fill(**KEY, size=3)
    outdated, orphan, current = World.objects.filter(pooled=True).order_by("id")
    World.objects.filter(pk=outdated.pk).update(generator_version="old")
    World.objects.filter(pk=orphan.pk).update(template=None)
    assert world_gc() == {"worlds": 2, "templates": 0}
    assert list(World.objects.filter(pooled=True)) == [current]
    # a template replaced by a new generator takes its pool with it
    World.objects.filter(pk=current.template_id).update(generator_version="old")
    World.objects.filter(pk=current.pk).update(generator_version="old")
    assert world_gc() == {"worlds": 1, "templates": 1}
    assert not World.objects.filter(pooled=True).exists()


@pytest.mark.django_db
def test_the_world_command_fills_and_reports_the_pool(pool_on, capsys):
    import json

    from django.core.management import call_command

    call_command("world", "pool", "fill", "--replica", "testbed", "--seed", "7", "--variant", "small", "--size", "1")
    assert json.loads(capsys.readouterr().out)["added"] == 1
    call_command("world", "pool", "status")
    assert json.loads(capsys.readouterr().out)["ready"] == 1
    call_command("world", "list")
    assert capsys.readouterr().out == ""  # a pooled world is nobody's world yet


@pytest.mark.django_db(transaction=True)
def test_concurrent_takers_never_get_the_same_world(pool_on):
    takers, size = 6, 4
    pool_fill(**KEY, size=size)
    got, errors, start = [], [], threading.Barrier(takers)

    def take():
        try:
            start.wait()
            world, from_pool = world_take(**KEY, refill=False)
            got.append((world.pk, from_pool))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=take) for _ in range(takers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    ids = [pk for pk, _ in got]
    assert len(ids) == len(set(ids)) == takers
    assert sum(from_pool for _, from_pool in got) == size  # the pool was used up, the rest cloned
    assert pool_ready(**KEY) == 0


@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_in_processes_never_share_a_world(pool_on):
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from tests.world_pool_children import child_setup, claim_in_child

    pool_fill(**KEY, size=5)
    db_name = str(connection.settings_dict["NAME"])
    connection.close()
    with ProcessPoolExecutor(
        max_workers=3, mp_context=get_context("spawn"), initializer=child_setup, initargs=(db_name,)
    ) as executor:
        claimed = list(executor.map(claim_in_child, [KEY] * 8))
    taken = [pk for pk in claimed if pk is not None]
    assert len(taken) == len(set(taken)) == 5
    assert pool_ready(**KEY) == 0


@pytest.mark.django_db(transaction=True)
def test_a_take_refills_the_pool_in_the_background_after_commit(pool_on):
    pool_on.WORLD_POOL_REFILL = "thread"
    pool_fill(**KEY)
    with transaction.atomic():
        world, from_pool = world_take(**KEY)
        assert from_pool and pool_ready(**KEY) == 1
    assert pool_refill_wait(timeout=60)
    assert pool_ready(**KEY) == 2
    assert world.pk not in World.objects.filter(pooled=True).values_list("pk", flat=True)
    # refills off: a take leaves the pool short for `world pool fill`
    pool_on.WORLD_POOL_REFILL = "off"
    assert not pool_refill_later(*KEY.values())
    world_take(**KEY)
    assert pool_ready(**KEY) == 1
    assert world_pool._pending == []
