"""Request faults (api_timeout, server_error, slow_response) fire at their trigger, are recorded, and combine."""

import pytest

from replicas.testbed.models import Note
from replicas.worlds.faults import fault_events, recovery_outcomes
from replicas.worlds.scoping import bound_world
from tests.faults.conftest import api_timeout

pytestmark = pytest.mark.django_db

BILLING = "/api/v2/billing/customers/361000001/payments"


def statuses(client, path, n, **headers):
    return [client.get(path, **headers).status_code for _ in range(n)]


def test_api_timeout_fires_at_the_nth_call_for_times_calls_then_the_retry_succeeds(make_world, client_for):
    world = make_world(faults=[api_timeout(times=2, requests=3, delay_ms=1)])
    client = client_for(world)
    assert client.get("/").status_code == 200  # other routes do not count toward the trigger
    assert statuses(client, BILLING, 5) == [200, 200, 504, 504, 200]
    events = fault_events(world=world)
    assert [(e["event"], e["at_request"], e["detail"].get("occurrence")) for e in events] == [
        ("fired", 4, 1),
        ("fired", 5, 2),
        ("recovered", 6, None),
    ]
    assert events[0]["route"] == BILLING
    assert events[0]["recovery"] == {
        "kind": "retry_succeeds",
        "route": "^/api/v2/billing/",
        "description": "a later request on the route answers without an error",
    }


def test_api_timeout_answers_with_the_json_error_shape_the_billing_app_reads(make_world, client_for):
    world = make_world(faults=[api_timeout(status=408)])
    response = client_for(world).get(BILLING, HTTP_ACCEPT="application/json")
    assert response.status_code == 408
    assert response.json() == {"error": "The service took too long to respond. Please try again.", "code": "timeout"}


def test_server_error_shows_an_error_page_for_pages_and_json_for_apis(make_world, client_for):
    world = make_world(
        faults=[
            {"name": "server_error", "params": {"route": "^/p/", "status": 503}},
            {"name": "server_error", "params": {"route": "^/api/", "times": 2}},
        ]
    )
    client = client_for(world)
    page = client.get("/p/orders")
    assert page.status_code == 503
    assert page["Content-Type"].startswith("text/html")
    assert b"Testbed Notes could not do that." in page.content and b"Error code: 503" in page.content
    assert client.get("/p/orders").status_code == 200
    api = client.get(BILLING)
    assert api.status_code == 500 and api.json()["code"] == "server_error"
    assert statuses(client, BILLING, 2) == [500, 200]
    outcomes = recovery_outcomes(fault_events(world=world))
    assert [(o["fault"], o["recovered"]) for o in outcomes] == [("server_error", True), ("server_error", True)]


def test_slow_response_acts_on_its_route_only_and_is_recorded(make_world, client_for):
    world = make_world(faults=[{"name": "slow_response", "params": {"route": "^/p/", "delay_ms": 1, "times": 2}}])
    client = client_for(world)
    assert statuses(client, "/", 1) + statuses(client, "/p/a", 3) == [200, 200, 200, 200]
    events = fault_events(world=world)
    assert [(e["event"], e["route"]) for e in events] == [("fired", "/p/a"), ("recovered", "/p/a"), ("fired", "/p/a")]
    assert events[0]["detail"] == {"occurrence": 1, "of": 2, "method": "GET"}


def test_static_files_and_favicon_do_not_count_toward_triggers(make_world, client_for):
    world = make_world(faults=[{"name": "server_error", "params": {"route": "^/"}, "trigger": {"requests": 2}}])
    client = client_for(world)
    client.get("/static/worlds/faults.css")
    client.get("/favicon.ico")
    assert statuses(client, "/", 3) == [200, 500, 200]


def test_faults_on_one_route_combine_in_spec_order(make_world, client_for):
    # the first failing fault answers; later ones wait for the next request on the route
    world = make_world(
        faults=[
            {"name": "slow_response", "params": {"route": "^/api/", "delay_ms": 1, "times": 3}},
            {"name": "server_error", "params": {"route": "^/api/"}},
            api_timeout(times=1),
        ]
    )
    client = client_for(world)
    assert statuses(client, BILLING, 3) == [500, 504, 200]
    events = fault_events(world=world)
    assert [(e["index"], e["event"], e["at_request"]) for e in events] == [
        (0, "fired", 1),
        (1, "fired", 1),
        (0, "fired", 2),
        (2, "fired", 2),
        (0, "fired", 3),
        (0, "recovered", 3),
        (1, "recovered", 3),
        (2, "recovered", 3),
    ]
    assert [e["seq"] for e in events] == list(range(1, 9))


def test_a_never_retrying_agent_does_not_recover_and_a_retrying_one_does(make_world, client_for):
    """The pieces of the must-show: the same api_timeout, told apart by the recorded events."""
    spec = [api_timeout(times=1)]
    never, oracle = make_world(faults=spec), make_world(faults=spec)
    assert client_for(never).get(BILLING).status_code == 504
    client_for(never).get("/p/ticket")  # moves on without retrying
    oracle_client = client_for(oracle)
    assert statuses(oracle_client, BILLING, 2) == [504, 200]
    assert recovery_outcomes(fault_events(world=never)) == [
        {"index": 0, "fault": "api_timeout", "fired": True, "recovered": False, "counted": True}
    ]
    assert recovery_outcomes(fault_events(world=oracle)) == [
        {"index": 0, "fault": "api_timeout", "fired": True, "recovered": True, "counted": True}
    ]


def test_a_processed_timeout_does_the_work_but_answers_with_the_timeout(make_world, client_for):
    world = make_world(
        faults=[{"name": "api_timeout", "params": {"route": "^/api/", "delay_ms": 0, "processed": True}}]
    )
    response = client_for(world).post("/api/v2/billing/payments/ch_1/refunds", {"note": 1})
    assert response.status_code == 504 and response.json()["code"] == "timeout"
    with bound_world(world):
        assert Note.objects.get(public_id=1).body.count("[refund_issued]") == 1  # yet the refund went through
    assert fault_events(world=world)[0]["detail"]["processed"] is True
