"""Requests are bound to exactly one world by their host."""
import pytest

from replicas.supportdesk.models import Ticket
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
    assert world_url(world, "/agent/tickets/8001") == f"http://w-{world.token}.localhost:8000/agent/tickets/8001"


def test_two_worlds_served_side_by_side_never_see_each_other(make_world, world_client):
    a, b = make_world(), make_world()
    with bound_world(b):
        ticket = Ticket.objects.order_by("public_id").first()
        ticket.subject = "Only in world B"
        ticket.save()
    page_a = world_client(a).get(f"/agent/tickets/{ticket.public_id}")
    assert page_a.status_code == 200
    assert b"Only in world B" not in page_a.content
    page_b = world_client(b).get(f"/agent/tickets/{ticket.public_id}")
    assert b"Only in world B" in page_b.content
    listing_a = world_client(a).get("/agent/filters/recently-updated")
    assert b"Only in world B" not in listing_a.content


def test_an_unknown_world_gets_a_clear_404(world_client, world):
    world.token = "doesnotexist"
    response = world_client(world).get("/agent/filters/unsolved")
    assert response.status_code == 404
    assert b"This world does not exist" in response.content


def test_a_deleted_world_gets_a_404_and_no_other_world_data(make_world, world_client):
    a, b = make_world(), make_world()
    world_delete(world=a)
    response = world_client(a).get("/agent/tickets/8001")
    assert response.status_code == 404
    assert b"This world does not exist" in response.content
    assert world_client(b).get("/agent/tickets/8001").status_code == 200


def test_templates_are_never_served(world, world_client):
    response = world_client(world.template).get("/agent/filters/unsolved")
    assert response.status_code == 404


def test_the_platform_host_does_not_serve_replica_pages(client, world):
    assert client.get("/agent/filters/unsolved").status_code == 404
    assert client.get("/healthz").json() == {"ok": True}
