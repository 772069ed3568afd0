"""Money in state assertions on the support desk's payments and refunds: amounts compared as numbers,
with the currency stored alongside."""

from decimal import Decimal

import pytest

from replicas.supportdesk.models import Order, Payment, Refund, User
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot
from verifiers.engine import verify
from verifiers.fields import tables
from verifiers.inputs import VerifierInputs

pytestmark = pytest.mark.django_db


class Desk:
    """A support desk world with its initial snapshot; `inputs()` snapshots it again as the final state."""

    def __init__(self, world):
        self.world = world
        self.initial = snapshot(world)

    def bound(self):
        return bound_world(self.world)

    def inputs(self, **kwargs) -> VerifierInputs:
        kwargs.setdefault("clock", self.world.clock.isoformat().replace("+00:00", "Z"))
        return VerifierInputs(initial=self.initial, final=snapshot(self.world), replica="supportdesk", **kwargs)


@pytest.fixture
def desk(make_world):
    return Desk(make_world())


REFUNDED = {
    "name": "duplicate refunded",
    "kind": "state",
    "table": "supportdesk.refund",
    "where": {"payment": "{payment}"},
    "expect": {"count": 1, "fields": {"amount": {"amount": "{amount}", "currency": "{currency}"}}},
}


def two_payments(desk):
    with desk.bound():
        payments = list(Payment.objects.filter(order__isnull=False, status="succeeded").order_by("public_id")[:2])
    return payments


def refund(desk, payment, amount, currency=None):
    with desk.bound():
        agent = User.objects.filter(role="admin").first()
        Refund.objects.create(
            public_id=f"re_test{Refund.objects.count()}",
            payment=payment,
            amount=amount,
            currency=currency or payment.currency,
            kind="partial",
            reason="duplicate",
            agent=agent,
            created_at=desk.world.clock,
        )


def params(payment):
    return {"payment": payment.public_id, "amount": str(payment.amount), "currency": payment.currency}


def test_money_fields_know_their_currency_field():
    assert tables("supportdesk")["supportdesk.refund"]["amount"].currency_field == "currency"
    assert tables("supportdesk")["supportdesk.order"]["total"].currency_field == "currency"


def test_the_right_amount_refunded_on_the_right_payment_passes(desk):
    right, _ = two_payments(desk)
    refund(desk, right, right.amount)
    assert verify({"assertions": [REFUNDED]}, desk.inputs(params=params(right))).passed


def test_the_right_amount_refunded_on_the_wrong_order_fails(desk):
    right, wrong = two_payments(desk)
    assert right.order_id != wrong.order_id
    refund(desk, wrong, right.amount)
    verdict = verify({"assertions": [REFUNDED]}, desk.inputs(params=params(right)))
    assert not verdict.passed
    assert verdict.assertions[0]["detail"] == "0 row(s) of supportdesk.refund match, expected 1"


def test_the_wrong_amount_or_currency_on_the_right_payment_fails(desk):
    right, _ = two_payments(desk)
    refund(desk, right, right.amount + 100)
    verdict = verify({"assertions": [REFUNDED]}, desk.inputs(params=params(right)))
    assert not verdict.passed and "amount is" in verdict.assertions[0]["detail"]
    other_currency = "EUR" if right.currency != "EUR" else "USD"
    assert not verify(
        {"assertions": [REFUNDED]}, desk.inputs(params={**params(right), "currency": other_currency})
    ).passed


def test_amounts_compare_as_numbers_never_as_strings(desk):
    with desk.bound():
        order = Order.objects.order_by("public_id").first()
        Order.objects.filter(pk=order.pk).update(shipping=Decimal("0"), tax=Decimal("149.99"))
    base = {"kind": "state", "table": "supportdesk.order", "where": {"public_id": order.public_id}}
    checks = [
        {**base, "name": "$0.00 is 0", "expect": {"fields": {"shipping": "$0.00"}}},
        {**base, "name": "0 is $0", "expect": {"fields": {"shipping": 0}}},
        {**base, "name": "49.99 is not 149.99", "expect": {"fields": {"tax": "49.99"}}},
        {**base, "name": "ordered", "expect": {"fields": {"tax": {"gt": "$100", "lte": "149.99"}}}},
        {**base, "name": "tolerance", "expect": {"fields": {"tax": {"eq": "150", "tolerance": "0.01"}}}},
    ]
    verdict = verify({"assertions": checks}, desk.inputs())
    assert [a["passed"] for a in verdict.assertions] == [True, True, False, True, True]
