"""Requests are bound to exactly one world by their host."""

import pytest
from django.db import connection

from replicas.testbed.models import Note
from replicas.worlds.routing import world_token_from_host, world_url
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_delete

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "host, token",
    [
        ("w-abc123.localhost:8000", "abc123"),
        ("W-ABC123.LOCALHOST", "abc123"),
        ("localhost:8000", None),
        ("w-.localhost", None),
        ("w-a.b.localhost", None),
        ("w-abc.example.com", None),
    ],
)
def test_world_tokens_are_read_only_from_world_hosts(host, token):
    assert world_token_from_host(host) == token


def test_world_url_is_on_the_world_own_origin(world):
    assert world_url(world, "/notes/1") == f"http://w-{world.token}.localhost:8000/notes/1"


def test_two_worlds_served_side_by_side_never_see_each_other(make_world, world_client):
    a, b = make_world(), make_world()
    with bound_world(b):
        note = Note.objects.order_by("public_id").first()
        note.title = "Only in world B"
        note.save()
    page_a = world_client(a).get(f"/notes/{note.public_id}")
    assert page_a.status_code == 200
    assert b"Only in world B" not in page_a.content
    page_b = world_client(b).get(f"/notes/{note.public_id}")
    assert b"Only in world B" in page_b.content
    listing_a = world_client(a).get("/notes")
    assert b"Only in world B" not in listing_a.content


def test_an_unknown_world_gets_a_clear_404(world_client, world):
    world.token = "doesnotexist"
    response = world_client(world).get("/notes")
    assert response.status_code == 404
    assert b"This world does not exist" in response.content


def test_a_deleted_world_gets_a_404_and_no_other_world_data(make_world, world_client):
    a, b = make_world(), make_world()
    world_delete(world=a)
    response = world_client(a).get("/notes/1")
    assert response.status_code == 404
    assert b"This world does not exist" in response.content
    assert world_client(b).get("/notes/1").status_code == 200


def test_templates_are_never_served(world, world_client):
    response = world_client(world.template).get("/notes")
    assert response.status_code == 404


def test_the_platform_host_does_not_serve_replica_pages(client, world):
    assert client.get("/notes").status_code == 404
    assert client.get("/healthz").json() == {"ok": True}


# what Django's debug pages show: a traceback, its frames' variables, the settings
DEBUG_LEAKS = [b"Traceback", b"Local vars", b"INSTALLED_APPS", b"DATABASES", b"replicagym", b"Request information"]


def test_a_failing_view_answers_with_the_worlds_error_page_never_djangos_debug_page(
    world, world_client, settings, monkeypatch, caplog
):
    settings.DEBUG = True  # the embedded default: the servers episodes use share it
    client = world_client(world)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in a view")

    monkeypatch.setattr("replicas.testbed.views.render", broken)
    failed = client.get("/notes")
    assert failed.status_code == 500
    assert b"Testbed Notes could not do that." in failed.content
    assert not [leak for leak in DEBUG_LEAKS if leak in failed.content]
    assert any(r.exc_info and r.exc_info[1].args == ("a bug in a view",) for r in caplog.records)  # logged for us

    # a request Django refuses while the view reads it (more query fields than it parses): 400, the same page
    too_many = client.get("/login?" + "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)))
    assert too_many.status_code == 400 and b"Testbed Notes could not do that." in too_many.content
    assert not [leak for leak in DEBUG_LEAKS if leak in too_many.content]


def test_a_write_whose_view_fails_is_rolled_back_where_the_request_holds_the_worlds_lock(
    world, world_client, monkeypatch
):
    with bound_world(world):
        note = Note.objects.order_by("public_id").first()

    def broken(*args, **kwargs):
        raise RuntimeError("failed after the note was saved")

    monkeypatch.setattr("replicas.testbed.views.redirect", broken)
    response = world_client(world).post(f"/notes/{note.public_id}", {"title": "Half-done write", "done": "on"})
    assert response.status_code == 500
    with bound_world(world):
        note.refresh_from_db()
    # PostgreSQL: the request's transaction (it holds the world's write lock) is rolled back, not committed
    # because an error page answered; SQLite runs each write in its own transaction, as before
    assert (note.title != "Half-done write") is connection.features.has_select_for_update
