"""The testbed plugs in as a folder: found, served, seeded, verified and benchmarked with no
edit outside replicas/testbed/ (settings discover the app, the platform uses its ReplicaConfig)."""

import json
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command

from catalogue.packs import task_current, task_sync
from episodes.driver import episode_play
from replicas.testbed import apps
from replicas.testbed.models import Member, Note
from replicas.worlds.clock import world_clock_advance
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash


@pytest.fixture
def testbed_world(make_world):
    return make_world(replica="testbed", variant="small")


def test_the_folder_is_found_as_an_installed_replica():
    assert "replicas.testbed" in settings.INSTALLED_APPS
    config = get_replica("testbed")
    assert isinstance(config, apps.TestbedConfig)
    assert [m.__name__ for m in config.world_models] == ["Member", "Note"]


@pytest.mark.django_db
def test_worlds_are_seeded_deterministically_with_reminders_already_due_flagged(make_world):
    a, b = make_world(replica="testbed", seed=3), make_world(replica="testbed", seed=3)
    assert a.rows == 3 + 6 and a.state_hash == b.state_hash == state_hash(snapshot(b))
    with bound_world(a):
        assert set(Note.objects.filter(remind_at__lte=a.clock).values_list("reminded", flat=True)) <= {True}
        assert not Note.objects.filter(remind_at__gt=a.clock, reminded=True).exists()


@pytest.mark.django_db
def test_every_clock_move_runs_the_replica_clock_hook(testbed_world):
    with bound_world(testbed_world):
        later = Note.objects.filter(remind_at__gt=testbed_world.clock).order_by("remind_at").first()
    assert later is not None
    world_clock_advance(world=testbed_world, seconds=(later.remind_at - testbed_world.clock).total_seconds())
    later.refresh_from_db()
    assert later.reminded


@pytest.mark.django_db
def test_pages_are_served_on_the_world_origin_signed_in_through_the_contract(testbed_world, world_client):
    anonymous = world_client(testbed_world, signed_in=False).get("/notes")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login?next=")
    client = world_client(testbed_world)
    with bound_world(testbed_world):
        note = Note.objects.order_by("public_id").first()
    page = client.get("/notes")
    assert page.status_code == 200 and note.title in page.content.decode()
    assert client.get("/notes/999").status_code == 404


@pytest.mark.django_db
def test_the_form_saves_a_valid_edit_and_refuses_an_empty_title_changing_nothing(testbed_world, world_client):
    client = world_client(testbed_world)
    with bound_world(testbed_world):
        note = Note.objects.order_by("public_id").first()
    before = state_hash(snapshot(testbed_world))
    refused = client.post(f"/notes/{note.public_id}", {"title": "   ", "done": "on"})
    assert refused.status_code == 400 and "needs a title" in refused.content.decode()
    assert state_hash(snapshot(testbed_world)) == before
    assert client.post(f"/notes/{note.public_id}", {"title": "Renamed"}).status_code == 302
    note.refresh_from_db()
    assert note.title == "Renamed" and not note.done


@pytest.mark.django_db
def test_sign_in_gives_credentials_that_the_sign_in_page_accepts(testbed_world, world_client):
    user = get_replica("testbed").sign_in(testbed_world, "member")
    with bound_world(testbed_world):
        assert Member.objects.get(email=user.login).role == "member"
    client = world_client(testbed_world, signed_in=False)
    wrong = client.post("/login", {"email": user.login, "password": "nope"})
    assert wrong.status_code == 400 and client.get("/notes").status_code == 302
    assert (
        client.post("/login", {"email": user.login, "password": user.password, "next": "/notes"})["Location"]
        == "/notes"
    )
    assert client.get("/notes").status_code == 200
    with pytest.raises(ValueError, match="no role 'admin'"):
        get_replica("testbed").sign_in(testbed_world, "admin")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_tasks_are_verified_in_real_episodes_with_the_step_clock_from_the_task_limits():
    task_sync(replica="testbed")
    task = task_current("testbed.complete-note")
    episode = episode_play(task_id=task.task_id, actions=list(task.reference_solution))
    assert episode.status == "succeeded", episode.verdict
    steps = len(task.reference_solution)
    assert episode.clock_end - episode.world.template.clock == timedelta(seconds=60 * steps)
    # the reference passes, doing nothing and each negative example fail
    call_command("verify_tasks", "testbed", "--task", "testbed.rename-note")


@pytest.mark.django_db(transaction=True)
def test_the_bench_measures_the_replica_named_with_replica(tmp_path):
    out = tmp_path / "bench.json"
    call_command(
        "bench",
        "--replica",
        "testbed",
        "--only",
        "reset,server",
        "--variants",
        "small",
        "--repeat",
        "2",
        "--requests",
        "20",
        "--world-variant",
        "small",
        "--servers",
        "engine",
        "--out",
        str(out),
    )
    sections = json.loads(out.read_text())["sections"]
    assert sections["reset"]["replica"] == "testbed" and sections["reset"]["variants"]["small"]["rows"] == 9
    server = sections["server"]
    assert server["replica"] == "testbed" and server["pages"][1] == "/notes"
    assert server["servers"]["engine"]["ok"] > 0 and not server["servers"]["engine"]["pages_not_served"]
