"""Password reset, account unlock and 2FA reset happen only after a recorded identity verification."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from replicas.supportdesk import services
from replicas.supportdesk.models import AccountEvent, IdentityVerification, Payment, Ticket, TicketEvent, User
from replicas.worlds import clock

from .domain_helpers import front_line_agent, paid_order, unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture
def locked_customer(in_world):
    user = User.objects.filter(role=User.Role.END_USER).order_by("public_id").first()
    user.locked_at = clock.now() - timedelta(hours=1)
    user.failed_logins = 5
    user.twofactor_enabled, user.twofactor_method = True, "app"
    user.save()
    paid_order(user, "20.00")  # card ending 4242, order ORD-99001
    return user


@pytest.mark.parametrize("action", ["password_reset", "account_unlock", "twofactor_reset"])
def test_account_actions_are_refused_without_identity_verification(locked_customer, action):
    with unchanged(), pytest.raises(ValidationError, match="Verify .* identity first"):
        getattr(services, action)(agent=front_line_agent(), customer=locked_customer)


@pytest.mark.parametrize(
    "method, value, message",
    [
        ("card_last4", "1111", "does not match the last 4 digits of any card"),
        ("card_last4", "42", "4 digits"),
        ("order_number", "ORD-123456", "not an order of"),
        ("order_number", "12345", "like ORD-48213"),
        ("email", "x@y.z", "not a valid verification method"),
    ],
)
def test_wrong_evidence_does_not_verify_and_changes_nothing(locked_customer, method, value, message):
    with unchanged(), pytest.raises(ValidationError, match=message):
        services.identity_verify(agent=front_line_agent(), customer=locked_customer, method=method, value=value)


def test_verified_by_card_then_unlock_and_twofactor_reset(locked_customer):
    agent = front_line_agent()
    record = services.identity_verify(agent=agent, customer=locked_customer, method="card_last4", value="4242")
    assert record.evidence == "Visa •••• 4242" and record.created_at == clock.now()
    services.account_unlock(agent=agent, customer=locked_customer)
    services.twofactor_reset(agent=agent, customer=locked_customer)
    locked_customer.refresh_from_db()
    assert locked_customer.locked_at is None and locked_customer.failed_logins == 0
    assert not locked_customer.twofactor_enabled and locked_customer.twofactor_method == ""
    assert list(
        AccountEvent.objects.filter(customer=locked_customer, created_at=clock.now())
        .order_by("public_id")
        .values_list("action", flat=True)
    ) == ["account_unlock", "twofactor_reset"]
    with unchanged(), pytest.raises(ValidationError, match="is not locked"):
        services.account_unlock(agent=agent, customer=locked_customer)


def test_verified_by_order_number_then_password_reset_logged_on_the_ticket(locked_customer):
    agent = front_line_agent()
    now = clock.now()
    ticket = Ticket.objects.create(
        public_id=99950,
        subject="Locked out",
        status="open",
        requester=locked_customer,
        submitter=locked_customer,
        created_at=now,
        updated_at=now,
    )
    services.identity_verify(
        agent=agent, customer=locked_customer, method="order_number", value="ord-99001", ticket=ticket
    )
    services.password_reset(agent=agent, customer=locked_customer, ticket=ticket)
    locked_customer.refresh_from_db()
    assert locked_customer.password_reset_at == now
    assert set(TicketEvent.objects.filter(ticket=ticket).values_list("kind", flat=True)) == {"verification", "account"}


def test_a_verification_expires_after_24_hours_of_world_time(locked_customer):
    agent = front_line_agent()
    services.identity_verify(agent=agent, customer=locked_customer, method="card_last4", value="4242")
    services.clock_advance(seconds=24 * 3600 + 1)
    with unchanged(), pytest.raises(ValidationError, match="identity first"):
        services.password_reset(agent=agent, customer=locked_customer)


def test_a_verification_on_another_customers_ticket_is_refused(locked_customer):
    other_ticket = Ticket.objects.exclude(requester=locked_customer).order_by("public_id").first()
    with unchanged(), pytest.raises(ValidationError, match="was not requested by"):
        services.identity_verify(
            agent=front_line_agent(), customer=locked_customer, method="card_last4", value="4242", ticket=other_ticket
        )


def test_agents_accounts_are_not_customer_accounts(locked_customer):
    agent = front_line_agent()
    with unchanged(), pytest.raises(ValidationError, match="customers' accounts"):
        services.identity_verify(agent=agent, customer=agent, method="card_last4", value="4242")
    assert not IdentityVerification.objects.filter(customer=agent).exists()
    assert Payment.objects.filter(customer=locked_customer, card_last4="4242").exists()
