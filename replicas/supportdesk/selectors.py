"""Reads of the support desk: views, search, SLA badges, customers' billing, macros, help center.

Everything here reads the bound world through world-scoped managers and tells time
by the world clock; nothing writes.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet, Sum

from replicas.worlds import clock
from replicas.worlds.scoping import current_world

from . import conditions, policies, search
from .models import (
    Article,
    Comment,
    IdentityVerification,
    Macro,
    Order,
    Payment,
    Refund,
    SlaPolicy,
    Subscription,
    Ticket,
    TicketEvent,
    User,
    View,
)

UNSOLVED = ["new", "open", "pending", "hold"]

# --- agents -------------------------------------------------------------------------------


def agent_password(*, agent: User) -> str:
    """The agent's sign-in password in this world (follows from the seed; tasks may state it)."""
    return policies.agent_password(seed=current_world().seed, agent_public_id=agent.public_id)


def agent_authenticate(*, email: str, password: str) -> User:
    """The agent with this email and password; one message for every refusal, as sign-in pages do."""
    refused = ValidationError("Invalid email or password.", code="invalid_login")
    if not isinstance(email, str) or not isinstance(password, str) or not email.strip() or not password:
        raise refused
    agent = (
        User.objects.filter(email__iexact=email.strip(), suspended=False)
        .exclude(role=User.Role.END_USER)
        .order_by("public_id")
        .first()
    )
    if agent is None or not policies.SIGNIN.password_matches(
        seed=current_world().seed, user_id=agent.public_id, password=password
    ):
        raise refused
    return agent


def agent_groups(agent: User) -> list:
    return [m.group for m in agent.memberships.select_related("group").order_by("group__public_id")]


# --- views --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ViewInfo:
    """A view as the workspace lists it, with its conditions resolved for one agent."""

    slug: str
    title: str
    condition: Q
    order: tuple[str, ...] = ("-updated_at", "-public_id")
    public_id: int | None = None
    conditions: dict = field(default_factory=dict, compare=False)


def _order(order_by: str) -> tuple[str, ...]:
    allowed = {"updated_at", "created_at", "solved_at", "priority", "public_id", "status"}
    name = order_by.lstrip("-")
    if name not in allowed:
        return ("-updated_at", "-public_id")
    if name == "priority":
        # priority sorts by rank, not alphabetically: handled in view_tickets
        return (order_by, "-updated_at")
    return (order_by, "-public_id")


def views_for(agent: User) -> list[ViewInfo]:
    """The shared views plus `agent`'s personal ones, in sidebar order."""
    now = clock.now()
    rows = (
        View.objects.filter(active=True)
        .filter(Q(owner__isnull=True) | Q(owner=agent))
        .order_by("position", "public_id")
    )
    return [
        ViewInfo(
            v.slug,
            v.title,
            conditions.to_q(v.conditions, agent=agent, now=now),
            _order(v.order_by),
            v.public_id,
            v.conditions,
        )
        for v in rows
    ]


def view_tickets(view: ViewInfo) -> QuerySet:
    qs = Ticket.objects.filter(view.condition, merged_into__isnull=True).select_related(
        "requester", "assignee", "group"
    )
    if view.order and view.order[0].lstrip("-") == "priority":
        from django.db.models import Case, IntegerField, Value, When

        rank = Case(
            *[When(priority=p, then=Value(i)) for i, p in enumerate(conditions.PRIORITY_ORDER)],
            output_field=IntegerField(),
        )
        qs = qs.annotate(priority_rank=rank)
        return qs.order_by("-priority_rank" if view.order[0].startswith("-") else "priority_rank", *view.order[1:])
    return qs.order_by(*view.order)


# --- search -------------------------------------------------------------------------------


def tickets_search(query: str, *, agent: User) -> QuerySet:
    """Tickets matching the product's search syntax, most recently updated first."""
    q = search.ticket_filter(query, agent=agent, now=clock.now())
    return (
        Ticket.objects.filter(q).select_related("requester", "assignee", "group").order_by("-updated_at", "-public_id")
    )


def customers_search(query: str) -> QuerySet:
    """Customers by name, email (any identity) or phone."""
    text = query.strip()
    if not text:
        return User.objects.none()
    q = (
        Q(name__icontains=text)
        | Q(email__icontains=text)
        | Q(phone__icontains=text)
        | Q(identities__value__icontains=text)
    )
    return User.objects.filter(q, role=User.Role.END_USER).distinct().order_by("name", "public_id")


def articles_search(query: str) -> QuerySet:
    qs = Article.objects.filter(draft=False)
    for word in query.split():
        qs = qs.filter(Q(title__icontains=word) | Q(body__icontains=word) | Q(labels__icontains=f'"{word}"'))
    return qs.order_by("-updated_at", "public_id")


# --- SLA ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SlaMetric:
    metric: str  # "first_reply" or "next_reply"
    policy: str
    target_minutes: int
    started_at: datetime
    due_at: datetime
    status: str  # "active", "breached" or "achieved"
    remaining_minutes: int  # negative once breached; 0 when achieved
    achieved_at: datetime | None = None

    @property
    def badge(self) -> str:
        """'35m', '2h 10m', '-1h 5m': what the badge on the ticket shows."""
        m = abs(self.remaining_minutes)
        text = f"{m // 60}h {m % 60}m" if m >= 60 else f"{m}m"
        if m >= 60 * 24:
            text = f"{m // (60 * 24)}d"
        return ("-" if self.remaining_minutes < 0 else "") + text


def _policy_for(ticket, policies_list, now):
    ctx = conditions.Context(now=now)
    for p in policies_list:
        if conditions.matches(ticket, p.conditions, ctx):
            return p
    return None


def _metrics(ticket, comments, policy, now) -> list[SlaMetric]:
    targets = policy.targets.get(ticket.priority)
    if not targets:
        return []
    out = []
    requester_id = ticket.requester_id
    public = [c for c in comments if c.public]
    agent_replies = [c for c in public if c.author_id != requester_id]
    first_target = targets["first_reply"]
    due = ticket.created_at + timedelta(minutes=first_target)
    out.append(
        _metric(
            "first_reply",
            policy,
            first_target,
            ticket.created_at,
            due,
            agent_replies[0].created_at if agent_replies else None,
            ticket,
            now,
        )
    )
    if agent_replies:
        # next reply: the requester's first public comment after the latest agent reply
        last_agent = agent_replies[-1]
        waiting = [c for c in public if c.author_id == requester_id and c.created_at > last_agent.created_at]
        if waiting:
            start = waiting[0].created_at
            nr = targets["next_reply"]
            out.append(_metric("next_reply", policy, nr, start, start + timedelta(minutes=nr), None, ticket, now))
    return out


def _metric(name, policy, target, start, due, achieved_at, ticket, now) -> SlaMetric:
    if achieved_at is not None:
        status = "breached" if achieved_at > due else "achieved"
        remaining = int((due - achieved_at).total_seconds() // 60) if status == "breached" else 0
        return SlaMetric(name, policy.title, target, start, due, status, remaining, achieved_at)
    if ticket.status in ("solved", "closed"):
        # solving without replying stops the clock (the product marks the metric as closed)
        return SlaMetric(name, policy.title, target, start, due, "achieved", 0, ticket.solved_at)
    seconds = (due - now).total_seconds()
    remaining = int(seconds // 60)
    return SlaMetric(name, policy.title, target, start, due, "breached" if seconds < 0 else "active", remaining)


def sla_for_tickets(tickets) -> dict[int, list[SlaMetric]]:
    """SLA metrics per ticket public id on the world clock, for a page of tickets (two queries)."""
    tickets = list(tickets)
    now = clock.now()
    policies_list = list(SlaPolicy.objects.order_by("position", "public_id"))
    by_ticket: dict[int, list] = {t.id: [] for t in tickets}
    for c in (
        Comment.objects.filter(ticket_id__in=list(by_ticket))
        .order_by("created_at", "public_id")
        .only("ticket_id", "author_id", "public", "created_at")
    ):
        by_ticket[c.ticket_id].append(c)
    result = {}
    for t in tickets:
        policy = _policy_for(t, policies_list, now)
        result[t.public_id] = _metrics(t, by_ticket[t.id], policy, now) if policy else []
    return result


def ticket_sla(ticket: Ticket) -> list[SlaMetric]:
    return sla_for_tickets([ticket])[ticket.public_id]


def sla_badge(ticket: Ticket) -> SlaMetric | None:
    """The metric the ticket's badge shows: the open one due first, else None."""
    active = [m for m in ticket_sla(ticket) if m.status != "achieved"]
    return min(active, key=lambda m: m.due_at) if active else None


# --- tickets --------------------------------------------------------------------------------


def ticket_events(ticket: Ticket) -> QuerySet:
    return TicketEvent.objects.filter(ticket=ticket).select_related("actor").order_by("created_at", "public_id")


def requester_other_tickets(ticket: Ticket, limit: int = 10) -> list:
    return list(
        Ticket.objects.filter(requester_id=ticket.requester_id).exclude(pk=ticket.pk).order_by("-updated_at")[:limit]
    )


# --- billing ---------------------------------------------------------------------------------


def refunded_total(payment: Payment) -> Decimal:
    total = Refund.objects.filter(payment=payment).aggregate(s=Sum("amount"))["s"]
    return Decimal(total or 0).quantize(policies.CENT)


def payment_remaining(payment: Payment) -> Decimal:
    """What can still be refunded on `payment`."""
    if payment.status != Payment.Status.SUCCEEDED:
        return Decimal("0.00")
    return (payment.amount - refunded_total(payment)).quantize(policies.CENT)


def refund_quote(*, payment: Payment, agent: User) -> dict:
    """What the refund form shows for one payment: remaining, the agent's limit, the prorated amount."""
    now = clock.now()
    policy = policies.refund_policy()
    escalated = is_tier2(agent)
    limit = policy.limit_for(agent=agent, customer=payment.customer, currency=payment.currency, escalated=escalated)
    prorated = None
    if payment.subscription_id and payment.period_end:
        prorated = policies.prorated_amount(
            price=payment.amount, period_start=payment.period_start, period_end=payment.period_end, at=now
        )
        prorated = min(prorated, payment_remaining(payment))
    age_days = (now - payment.captured_at).days
    return {
        "payment": payment.public_id,
        "currency": payment.currency,
        "amount": payment.amount,
        "refunded": refunded_total(payment),
        "remaining": payment_remaining(payment),
        "limit": limit,
        "prorated": prorated,
        "window_days": policy.window_days,
        "within_window": age_days <= policy.window_days,
        "escalated": escalated,
    }


def is_tier2(agent: User) -> bool:
    return agent.role == User.Role.ADMIN or agent.memberships.filter(group__name=policies.ESCALATION_GROUP).exists()


def customer_billing(customer: User) -> dict:
    """A customer's orders (with items), payments (with refunded/remaining), refunds, subscriptions."""
    orders = list(Order.objects.filter(customer=customer).prefetch_related("items").order_by("-placed_at", "public_id"))
    payments = list(
        Payment.objects.filter(customer=customer)
        .select_related("order", "subscription")
        .order_by("-captured_at", "public_id")
    )
    refunds = list(
        Refund.objects.filter(payment__customer=customer)
        .select_related("payment", "agent", "ticket")
        .order_by("-created_at", "public_id")
    )
    refunded: dict[int, Decimal] = {}
    for r in refunds:
        refunded[r.payment_id] = refunded.get(r.payment_id, Decimal(0)) + r.amount
    for p in payments:
        p.refunded = refunded.get(p.id, Decimal(0)).quantize(policies.CENT)
        p.remaining = (p.amount - p.refunded).quantize(policies.CENT) if p.status == "succeeded" else Decimal("0.00")
    subscriptions = list(Subscription.objects.filter(customer=customer).order_by("-started_at", "public_id"))
    return {
        "customer": customer,
        "orders": orders,
        "payments": payments,
        "refunds": refunds,
        "subscriptions": subscriptions,
    }


# --- identity ------------------------------------------------------------------------------------


def identity_verification_current(customer: User) -> IdentityVerification | None:
    """The customer's latest identity verification if it is still valid on the world clock."""
    now = clock.now()
    since = now - timedelta(hours=policies.VERIFICATION_VALID_HOURS)
    return (
        IdentityVerification.objects.filter(customer=customer, created_at__gt=since, created_at__lte=now)
        .order_by("-created_at", "-public_id")
        .first()
    )


# --- macros -----------------------------------------------------------------------------------


def macros_available() -> QuerySet:
    return Macro.objects.filter(active=True).order_by("position", "title")


def render_placeholders(text: str, *, ticket: Ticket, agent: User | None) -> str:
    """Fill {{ticket.requester.first_name}} and friends; unknown placeholders render empty, as in the product."""
    import re

    values = {
        "ticket.id": str(ticket.public_id),
        "ticket.title": ticket.subject,
        "ticket.status": ticket.get_status_display(),
        "ticket.priority": ticket.get_priority_display() if ticket.priority else "",
        "ticket.order_number": ticket.order_number,
        "ticket.requester.name": ticket.requester.name,
        "ticket.requester.first_name": ticket.requester.first_name,
        "ticket.requester.email": ticket.requester.email,
        "ticket.assignee.name": ticket.assignee.name if ticket.assignee_id else "",
        "ticket.group.name": ticket.group.name if ticket.group_id else "",
        "ticket.organization.name": ticket.organization.name if ticket.organization_id else "",
        "current_user.name": agent.name if agent else "",
        "current_user.first_name": agent.first_name if agent else "",
        "current_user.email": agent.email if agent else "",
    }
    return re.sub(r"\{\{\s*([a-z_.]+)\s*\}\}", lambda m: values.get(m.group(1), ""), text)
