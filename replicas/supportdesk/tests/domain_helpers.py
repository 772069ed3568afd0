"""Helpers of the domain tests: agents, customers with payments, and the "nothing changed" check."""

from contextlib import contextmanager
from datetime import timedelta
from decimal import Decimal

from replicas.supportdesk.models import Group, Membership, Order, Payment, Ticket, User
from replicas.worlds import clock
from replicas.worlds.scoping import current_world
from replicas.worlds.snapshot import snapshot, state_hash


@contextmanager
def unchanged():
    """Asserts the bound world's state hash is the same after the block as before it."""
    world = current_world()
    before = state_hash(snapshot(world))
    yield
    assert state_hash(snapshot(world)) == before, "a refused write changed the world"


def front_line_agent() -> User:
    """An agent outside Tier 2 Billing (so the agent refund limit applies)."""
    billing = Group.objects.get(name="Tier 2 Billing")
    return User.objects.filter(role=User.Role.AGENT).exclude(memberships__group=billing).order_by("public_id").first()


def tier2_agent() -> User:
    return (
        User.objects.filter(role=User.Role.AGENT, memberships__group__name="Tier 2 Billing")
        .order_by("public_id")
        .first()
    )


def customer(n: int = 0, tier: str = "") -> User:
    """The n-th customer, with its loyalty tier set (tiers change the refund limit)."""
    user = User.objects.filter(role=User.Role.END_USER).order_by("public_id")[n]
    if user.loyalty_tier != tier:
        user.loyalty_tier = tier
        user.save()
    return user


def paid_order(owner: User, amount: str, currency: str = "USD", *, days_ago: int = 3, number: int = 99001) -> Payment:
    """An order of `owner` paid with one card charge of `amount`."""
    at = clock.now() - timedelta(days=days_ago)
    order = Order.objects.create(
        public_id=f"ORD-{number}",
        customer=owner,
        status="fulfilled",
        currency=currency,
        subtotal=Decimal(amount),
        total=Decimal(amount),
        placed_at=at,
        fulfilled_at=at,
    )
    return Payment.objects.create(
        public_id=f"ch_test{number}",
        customer=owner,
        order=order,
        amount=Decimal(amount),
        currency=currency,
        card_brand="Visa",
        card_last4="4242",
        captured_at=at,
    )


def ticket_of(requester: User, number: int = 99901) -> Ticket:
    now = clock.now()
    return Ticket.objects.create(
        public_id=number,
        subject="Refund please",
        status="open",
        requester=requester,
        submitter=requester,
        created_at=now,
        updated_at=now,
    )


def join(agent: User, group_name: str):
    Membership.objects.create(user=agent, group=Group.objects.get(name=group_name))
