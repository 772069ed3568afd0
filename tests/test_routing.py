"""Requests are bound to exactly one world by their host."""
import pytest

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
