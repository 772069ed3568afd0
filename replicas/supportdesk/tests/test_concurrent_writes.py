"""Concurrent writes into one world: row ids and public ids stay unique, no request fails."""

import threading

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from replicas.supportdesk.models import Comment, Ticket, User
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create

WRITERS = 16


def _post_in_threads(world, count: int, form) -> list:
    """`count` threads, each with its own client and database connection, POST a new ticket at once."""
    session = get_replica(world.replica).sign_in(world).session_key
    start = threading.Barrier(count)
    results = [None] * count

    def write(i):
        client = Client(HTTP_HOST=f"w-{world.token}.localhost:8000", raise_request_exception=False)
        client.cookies[settings.SESSION_COOKIE_NAME] = session
        try:
            start.wait(timeout=30)
            results[i] = client.post("/agent/tickets/new", form(i)).status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


@pytest.mark.django_db(transaction=True)
def test_sixteen_concurrent_ticket_creations_in_one_world_all_succeed_with_unique_ids():
    world = world_create(replica="supportdesk", seed=7, variant="small")
    with bound_world(world):
        customer = User.objects.filter(role=User.Role.END_USER).order_by("public_id").first()
        top = Ticket.objects.order_by("-public_id").first().public_id
        comments_before = Comment.objects.count()

    statuses = _post_in_threads(
        world,
        WRITERS,
        lambda i: {
            "requester": customer.email,
            "subject": f"Concurrent write {i}",
            "comment": f"Body {i}",
            "priority": "normal",
            "type": "",
        },
    )

    assert statuses == [302] * WRITERS, statuses
    with bound_world(world):
        created = list(Ticket.objects.filter(subject__startswith="Concurrent write "))
        assert sorted(t.public_id for t in created) == list(range(top + 1, top + 1 + WRITERS))
        assert len({t.id for t in created}) == WRITERS
        comments = Comment.objects.count() - comments_before
        assert comments == WRITERS
