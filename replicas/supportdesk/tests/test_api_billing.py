"""The internal billing API: the signed-in agent's session, CSRF on writes, JSON refusals that change nothing."""

import json

import pytest
from django.conf import settings
from django.test import Client

from replicas.supportdesk.models import Payment, Refund, TicketEvent
from replicas.supportdesk.signin import agent_session
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

from .domain_helpers import customer, front_line_agent, paid_order, ticket_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(world):
    with bound_world(world):
        owner, stranger = customer(0), customer(1)
        data = {
            "owner": owner.public_id,
            "payment": paid_order(owner, "450.00").public_id,
            "small": paid_order(owner, "60.00", "EUR", number=99002).public_id,
            "stranger_payment": paid_order(stranger, "80.00", number=99003).public_id,
            "ticket": ticket_of(owner).public_id,
            "agent": front_line_agent(),
        }
    return data


def client_for(world, agent=None, csrf=False):
    """A client on the world's origin signed in as `agent` (a front-line agent unless given)."""
    c = Client(enforce_csrf_checks=csrf, HTTP_HOST=f"w-{world.token}.localhost:8000")
    key, _ = agent_session(world, agent)
    c.cookies[settings.SESSION_COOKIE_NAME] = key
    return c


def post_refund(c, payment, **body):
    return c.post(f"/api/v2/billing/payments/{payment}/refunds", data=json.dumps(body), content_type="application/json")


def world_hash(world):
    return state_hash(snapshot(world))


def test_orders_list_nests_payments_with_refunds_and_what_is_still_refundable(world, setup):
    r = client_for(world, setup["agent"]).get(f"/api/v2/billing/customers/{setup['owner']}/orders")
    assert r.status_code == 200 and r["Content-Type"] == "application/json"
    orders = {o["id"]: o for o in r.json()["orders"]}
    order = orders["ORD-99001"]
    assert order["total"] == "450.00" and order["currency"] == "USD"
    [payment] = order["payments"]
    assert payment["id"] == setup["payment"] and payment["refundable"] == "450.00" and payment["refunds"] == []
    assert payment["card_last4"] == "4242"
    assert "subscriptions" in r.json()


def test_a_refund_posted_within_policy_is_created(world, setup):
    c = client_for(world, setup["agent"])
    r = post_refund(
        c,
        setup["payment"],
        kind="partial",
        amount="120.00",
        reason="damaged",
        ticket=setup["ticket"],
        note="cracked lid",
    )
    assert r.status_code == 201, r.content
    body = r.json()
    assert (
        body["id"].startswith("re_") and body["amount"] == "120.00" and body["payment_after"]["refundable"] == "330.00"
    )
    with bound_world(world):
        refund = Refund.objects.get(public_id=body["id"])
        assert refund.agent == setup["agent"] and refund.ticket.public_id == setup["ticket"]
        assert TicketEvent.objects.filter(ticket=refund.ticket, kind="refund", via="api").exists()


def test_full_refund_without_amount_refunds_what_remains(world, setup):
    r = post_refund(
        client_for(world, setup["agent"]), setup["small"], kind="full", reason="duplicate", ticket=setup["ticket"]
    )
    assert r.status_code == 201 and r.json()["amount"] == "60.00" and r.json()["currency"] == "EUR"


@pytest.mark.parametrize(
    "body, status, message",
    [
        (
            {"kind": "partial", "amount": "250.00", "reason": "damaged"},
            422,
            "above your refund limit of $200.00: escalate the ticket to Tier 2 Billing",
        ),
        ({"kind": "partial", "amount": "-10", "reason": "damaged"}, 422, "must be greater than zero"),
        ({"kind": "partial", "amount": "451.00", "reason": "damaged"}, 422, "more than can still be refunded"),
        (
            {"kind": "partial", "amount": "10.00", "reason": "damaged", "currency": "GBP"},
            422,
            "payment's currency (USD), not GBP",
        ),
        ({"kind": "partial", "reason": "damaged"}, 400, "amount: Enter the amount of a partial refund."),
        ({"kind": "store_credit", "amount": "10", "reason": "damaged"}, 400, "kind:"),
        ({"kind": "partial", "amount": "10"}, 400, "reason: This field is required."),
    ],
)
def test_refusals_are_4xx_json_with_the_reason_and_change_nothing(world, setup, body, status, message):
    before = world_hash(world)
    r = post_refund(client_for(world, setup["agent"]), setup["payment"], ticket=setup["ticket"], **body)
    assert r.status_code == status, r.content
    assert message in r.json()["error"]["message"]
    assert world_hash(world) == before


def test_a_refund_on_another_customers_order_is_refused_through_the_endpoint(world, setup):
    before = world_hash(world)
    r = post_refund(
        client_for(world, setup["agent"]),
        setup["stranger_payment"],
        kind="full",
        reason="damaged",
        ticket=setup["ticket"],
    )
    assert r.status_code == 422
    assert r.json()["error"] == {
        "code": "not_requesters_payment",
        "message": f"Payment {setup['stranger_payment']} belongs to another customer than the requester of "
        f"ticket #{setup['ticket']}: refunds go only to the requester's own orders.",
        "fields": {},
    }
    assert world_hash(world) == before


def test_refunding_twice_over_the_total_is_refused_the_second_time(world, setup):
    c = client_for(world, setup["agent"])
    assert post_refund(c, setup["small"], kind="full", reason="duplicate", ticket=setup["ticket"]).status_code == 201
    before = world_hash(world)
    r = post_refund(c, setup["small"], kind="full", reason="duplicate", ticket=setup["ticket"])
    assert r.status_code == 422 and "already fully refunded" in r.json()["error"]["message"]
    assert world_hash(world) == before


def test_anonymous_callers_get_401_and_unknown_things_404(world, setup):
    anon = Client(HTTP_HOST=f"w-{world.token}.localhost:8000")
    r = anon.get(f"/api/v2/billing/customers/{setup['owner']}/orders")
    assert r.status_code == 401 and "Sign in" in r.json()["error"]["message"]
    c = client_for(world, setup["agent"])
    assert c.get("/api/v2/billing/customers/1/orders").status_code == 404
    r = post_refund(c, "ch_nope", kind="full", reason="damaged", ticket=setup["ticket"])
    assert r.status_code == 404 and r.json()["error"]["message"] == "No payment ch_nope."
    assert post_refund(c, setup["payment"], kind="full", reason="damaged", ticket=1).status_code == 404


def test_writes_need_the_sessions_csrf_token(world, setup):
    c = client_for(world, setup["agent"], csrf=True)
    before = world_hash(world)
    r = post_refund(c, setup["small"], kind="full", reason="duplicate", ticket=setup["ticket"])
    assert r.status_code == 403 and "CSRF" in r.json()["error"]["message"]
    assert world_hash(world) == before
    token = "a" * 32
    c.cookies[settings.CSRF_COOKIE_NAME] = token
    r = c.post(
        f"/api/v2/billing/payments/{setup['small']}/refunds",
        data=json.dumps({"kind": "full", "reason": "duplicate", "ticket": setup["ticket"]}),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert r.status_code == 201, r.content


def test_a_world_cannot_reach_another_worlds_payments(make_world, setup, world):
    other = make_world(seed=7)
    r = client_for(other).get(f"/api/v2/billing/payments/{setup['payment']}/quote")
    assert r.status_code == 404


def test_quote_tells_the_form_the_agents_limit_and_what_remains(world, setup):
    r = client_for(world, setup["agent"]).get(f"/api/v2/billing/payments/{setup['payment']}/quote")
    assert r.status_code == 200
    q = r.json()
    assert (q["remaining"], q["limit"], q["currency"], q["within_window"], q["escalated"]) == (
        "450.00",
        "200.00",
        "USD",
        True,
        False,
    )
    with bound_world(world):
        assert Payment.objects.get(public_id=setup["payment"]).amount == 450
