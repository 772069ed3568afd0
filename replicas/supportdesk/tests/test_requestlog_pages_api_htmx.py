"""The world's request log on the support desk: what it records of each request (pages, the billing
API, htmx fragments), the writes it attributes across tables, the limits it enforces."""

import time
from datetime import timedelta

import pytest

from replicas.supportdesk.models import Macro, Ticket
from replicas.worlds.models import LoggedRequest
from replicas.worlds.requestlog import last_page, logged_requests, request_log_close, request_log_open
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def _unassigned_ticket(world) -> int:
    with bound_world(world):
        return Ticket.objects.filter(assignee__isnull=True, status="new").order_by("public_id").first().public_id


def test_a_world_without_a_log_records_nothing(world, world_client):
    client = world_client(world)
    assert client.get("/agent/filters/unsolved").status_code == 200
    assert LoggedRequest.objects.filter(world=world).count() == 0


def test_each_request_is_logged_with_method_path_status_clock_and_step(world, world_client):
    request_log_open(world=world)
    client = world_client(world)
    client.get("/agent/filters/unsolved?page=2")
    client.get("/agent/tickets/999999")
    client.get("/static/supportdesk/app.css")  # what the browser fetches by itself is no step
    rows = logged_requests(world=world)
    assert [(r.seq, r.step, r.method, r.path, r.status) for r in rows] == [
        (1, 1, "GET", "/agent/filters/unsolved", 200),
        (2, 2, "GET", "/agent/tickets/999999", 404),
    ]
    assert rows[0].fields == ["page"] and rows[0].clock == world.clock and rows[0].writes == []


def test_a_write_records_its_rows_and_the_redirect_it_answers_shares_its_step(world, world_client):
    request_log_open(world=world)
    number = _unassigned_ticket(world)
    client = world_client(world)
    response = client.post(f"/agent/tickets/{number}/take", follow=True)
    assert response.status_code == 200
    post, follow = logged_requests(world=world)
    assert (post.method, post.status, follow.method, follow.path) == ("POST", 302, "GET", f"/agent/tickets/{number}")
    assert post.step == follow.step == 1
    assert {"table": "supportdesk.ticket", "id": str(number), "op": "update"} in post.writes
    assert any(w["table"] == "supportdesk.ticketevent" and w["op"] == "insert" for w in post.writes)
    assert follow.writes == []
    client.get("/agent/filters/unsolved")
    assert logged_requests(world=world, since=2)[0].step == 2


def test_posted_field_names_are_kept_and_their_values_never(world, client, settings):
    request_log_open(world=world)
    client.defaults["HTTP_HOST"] = f"w-{world.token}.localhost:8000"
    client.post("/auth/login", {"email": "someone@example.test", "password": "s3cret-Value!"})
    [row] = logged_requests(world=world)
    assert row.fields == ["email", "password"]
    stored = str(LoggedRequest.objects.filter(world=world).values("fields", "path", "writes").get())
    assert "s3cret-Value!" not in stored and "someone@example.test" not in stored


def test_a_bulk_update_records_each_row_it_changed(world):
    request_log_open(world=world)
    from replicas.worlds.requestlog import _Recorder, _recorder

    recorder = _Recorder(active=True)
    token = _recorder.set(recorder)
    try:
        with bound_world(world):
            macro = Macro.objects.order_by("public_id").first()
            Macro.objects.filter(pk=macro.pk).update(usage_count=macro.usage_count + 1)
    finally:
        _recorder.reset(token)
    assert recorder.kept() == [{"table": "supportdesk.macro", "id": str(macro.public_id), "op": "update"}]


def test_past_the_step_limit_the_world_answers_episode_over_and_refuses_writes(world, world_client):
    request_log_open(world=world, max_steps=2)
    number = _unassigned_ticket(world)
    client = world_client(world)
    assert client.get("/agent/filters/unsolved").status_code == 200
    assert client.get(f"/agent/tickets/{number}").status_code == 200
    before = state_hash(snapshot(world))
    page = client.post(f"/agent/tickets/{number}/take")
    assert page.status_code == 410 and b"Episode over" in page.content and b"step limit of 2" in page.content
    assert state_hash(snapshot(world)) == before
    api = client.get("/api/v2/billing/customers/1/orders")
    assert api.status_code == 410 and api.json()["error"]["code"] == "episode_over"
    htmx = client.get(f"/agent/tickets/{number}/events", HTTP_HX_REQUEST="true")
    assert htmx.status_code == 410 and htmx.json()["error"]["code"] == "episode_over"
    refused = [r for r in logged_requests(world=world) if r.refused]
    assert len(refused) == 3 and all(r.writes == [] for r in refused)


def test_past_the_deadline_or_once_closed_the_world_answers_episode_over(world, world_client):
    request_log_open(world=world, deadline=time.time() - 1)
    client = world_client(world)
    response = client.get("/agent/filters/unsolved")
    assert response.status_code == 410 and b"time limit is up" in response.content
    request_log_open(world=world)
    assert client.get("/agent/filters/unsolved").status_code == 200
    request_log_close(world=world, reason="the episode is finished")
    assert b"the episode is finished" in client.get("/agent/filters/unsolved").content


def test_the_last_page_is_the_last_full_page_served_never_a_fragment_or_a_refusal(world, world_client):
    request_log_open(world=world, keep_pages=True, max_steps=3)
    number = _unassigned_ticket(world)
    client = world_client(world)
    client.get("/agent/filters/unsolved")
    client.get(f"/agent/tickets/{number}")
    client.get(f"/agent/tickets/{number}/events", HTTP_HX_REQUEST="true")
    client.get("/agent/filters/all")  # the fourth step: refused
    page = last_page(world=world)
    assert page["path"] == f"/agent/tickets/{number}"
    assert f"#{number}" in page["html"] and page["title"]
    assert "Sign in" not in page["title"]


def test_pages_are_kept_only_when_the_log_asks_for_them(world, world_client):
    request_log_open(world=world)
    world_client(world).get("/agent/filters/unsolved")
    assert last_page(world=world) is None


def test_with_step_seconds_the_world_clock_moves_once_per_step(world, world_client):
    start = world.clock
    request_log_open(world=world, step_seconds=30)
    number = _unassigned_ticket(world)
    client = world_client(world)
    client.get("/agent/filters/unsolved")
    client.post(f"/agent/tickets/{number}/take", follow=True)  # the POST and the page it leads to: one step
    client.get("/agent/filters/unsolved")
    assert [(r.step, r.clock - start) for r in logged_requests(world=world)] == [
        (1, timedelta(0)),
        (2, timedelta(seconds=30)),
        (2, timedelta(seconds=30)),
        (3, timedelta(seconds=60)),
    ]
    world.refresh_from_db()
    assert world.clock - start == timedelta(seconds=60)
