"""refund_issue enforces the refund policy: each refusal has a clear message and changes nothing."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from replicas.supportdesk import selectors
from replicas.supportdesk.models import Order, Payment, Refund, Subscription, TicketEvent
from replicas.supportdesk.services import refund_issue
from replicas.worlds import clock

from .domain_helpers import customer, front_line_agent, join, paid_order, ticket_of, tier2_agent, unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture
def case(in_world):
    owner = customer(0)
    return {
        "agent": front_line_agent(),
        "owner": owner,
        "payment": paid_order(owner, "150.00"),
        "ticket": ticket_of(owner),
    }


def refund(case, **overrides):
    args = dict(
        agent=case["agent"],
        payment=case["payment"],
        amount="40.00",
        currency="USD",
        kind="partial",
        reason="missing_item",
        ticket=case["ticket"],
    )
    args.update(overrides)
    return refund_issue(**args)


def refused(case, message, **overrides):
    with unchanged(), pytest.raises(ValidationError, match=message):
        refund(case, **overrides)


def test_a_refund_within_policy_is_issued_with_its_audit_event_and_order_status(case):
    r = refund(case)
    assert r.public_id.startswith("re_") and r.amount == Decimal("40.00") and r.agent == case["agent"]
    assert selectors.payment_remaining(case["payment"]) == Decimal("110.00")
    assert Order.objects.get(pk=case["payment"].order_id).status == "partially_refunded"
    event = TicketEvent.objects.get(ticket=case["ticket"], kind="refund")
    assert event.actor == case["agent"] and "$40.00" in event.to_value and event.created_at == clock.now()


@pytest.mark.parametrize(
    "amount, message",
    [
        ("-5.00", "greater than zero"),
        ("0", "greater than zero"),
        ("abc", "is not an amount"),
        ("NaN", "is not an amount"),
        ("10.001", "at most two decimals"),
        ("150.01", "more than can still be refunded"),
    ],
)
def test_negative_zero_malformed_and_over_total_amounts_are_refused(case, amount, message):
    refused(case, message, amount=amount)


def test_refund_is_rejected_above_policy_limit_with_advice_to_escalate(in_world):
    owner = customer(0)
    payment = paid_order(owner, "450.00")
    case = {"agent": front_line_agent(), "payment": payment, "ticket": ticket_of(owner)}
    refused(case, r"above your refund limit of \$200.00: escalate the ticket to Tier 2 Billing", amount="250.00")


def test_splitting_a_refund_does_not_get_around_the_limit(in_world):
    owner = customer(0)
    case = {"agent": front_line_agent(), "payment": paid_order(owner, "450.00"), "ticket": ticket_of(owner)}
    refund(case, amount="150.00")
    refused(case, r"\$300.00 in total on this payment", amount="150.00")


def test_tier2_billing_may_refund_above_the_agent_limit(in_world):
    owner = customer(0)
    payment = paid_order(owner, "450.00")
    r = refund_issue(
        agent=tier2_agent(),
        payment=payment,
        amount="450.00",
        currency="USD",
        kind="full",
        reason="damaged",
        ticket=ticket_of(owner),
    )
    assert r.kind == "full" and Order.objects.get(pk=payment.order_id).status == "refunded"


def test_loyalty_tier_raises_the_limit(in_world):
    owner = customer(0, tier="platinum")  # x2: $400
    case = {"agent": front_line_agent(), "payment": paid_order(owner, "450.00"), "ticket": ticket_of(owner)}
    assert refund(case, amount="399.00").amount == Decimal("399.00")


def test_limits_are_per_currency(in_world):
    owner = customer(0)
    case = {"agent": front_line_agent(), "payment": paid_order(owner, "300.00", "GBP"), "ticket": ticket_of(owner)}
    refused(case, "above your refund limit of £160.00", amount="170.00", currency="GBP")


def test_a_refund_on_another_customers_order_is_refused(case):
    stranger_payment = paid_order(customer(1), "80.00", number=99002)
    refused(
        case,
        "belongs to another customer than the requester of ticket #99901",
        payment=stranger_payment,
        amount="10.00",
    )


def test_currency_must_be_the_payments(case):
    refused(case, r"payment's currency \(USD\), not EUR", currency="EUR")


def test_refunding_twice_beyond_the_total_is_refused(case):
    refund(case, amount="100.00")
    refused(
        case,
        r"\$60.00 is more than can still be refunded.*\$50.00 \(\$100.00 of \$150.00 already refunded\)",
        amount="60.00",
    )
    refund(case, amount="50.00", kind="full")
    refused(case, "already fully refunded", amount="1.00")


def test_full_refund_must_be_the_remaining_amount_and_partial_less(case):
    refused(case, r"full refund is the whole remaining amount, \$150.00", kind="full", amount="100.00")
    refused(case, "choose Full refund", kind="partial", amount="150.00")


def test_failed_payments_cannot_be_refunded(case):
    Payment.objects.filter(pk=case["payment"].pk).update(status="failed")
    case["payment"].refresh_from_db()
    refused(case, "did not succeed")


def test_payments_older_than_the_window_need_tier2(in_world):
    owner = customer(0)
    case = {"agent": front_line_agent(), "payment": paid_order(owner, "50.00", days_ago=61), "ticket": ticket_of(owner)}
    refused(case, "older than the 60-day refund window: escalate the ticket to Tier 2 Billing", amount="10.00")
    join(case["agent"], "Tier 2 Billing")
    assert refund(case, amount="10.00").amount == Decimal("10.00")


def test_unknown_kind_or_reason_and_non_agents_are_refused(case):
    refused(case, "not a valid refund kind", kind="store_credit")
    refused(case, "not a valid reason", reason="because")
    refused(case, "Only an active agent", agent=case["owner"])


def test_prorated_refund_is_bounded_by_the_unused_part_and_cancels_the_subscription(in_world):
    owner = customer(0)
    now = clock.now()
    sub = Subscription.objects.create(
        public_id="SUB-99001",
        customer=owner,
        plan="pro",
        interval="month",
        price=Decimal("30.00"),
        currency="USD",
        started_at=now - timedelta(days=10),
        current_period_start=now - timedelta(days=10),
        current_period_end=now + timedelta(days=20),
    )
    payment = Payment.objects.create(
        public_id="ch_sub99001",
        customer=owner,
        subscription=sub,
        amount=Decimal("30.00"),
        currency="USD",
        card_brand="Visa",
        card_last4="4242",
        captured_at=now - timedelta(days=10),
        period_start=now - timedelta(days=10),
        period_end=now + timedelta(days=20),
    )
    case = {"agent": front_line_agent(), "payment": payment, "ticket": ticket_of(owner)}
    refused(
        case,
        r"prorated refund can be at most \$20.00 \(20 of 30 days left",
        kind="prorated",
        reason="cancellation",
        amount="25.00",
    )
    r = refund(case, kind="prorated", reason="cancellation", amount="20.00")
    assert r.kind == "prorated"
    sub.refresh_from_db()
    assert sub.status == "cancelled" and sub.cancelled_at == now
    refused(
        case,
        "only for subscription payments",
        payment=paid_order(owner, "10.00", number=99003),
        kind="prorated",
        amount="5.00",
    )


def test_refund_ids_are_the_same_in_two_worlds_of_one_seed(make_world):
    from replicas.worlds.scoping import bound_world

    ids = []
    for world in (make_world(), make_world()):
        with bound_world(world):
            owner = customer(0)
            ids.append(
                refund(
                    {"agent": front_line_agent(), "payment": paid_order(owner, "150.00"), "ticket": ticket_of(owner)}
                ).public_id
            )
            assert Refund.objects.filter(public_id=ids[-1]).count() == 1
    assert ids[0] == ids[1]
