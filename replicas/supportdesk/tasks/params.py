"""The support desk's named pickers and policies (SupportdeskConfig.pickers / .policies) for its tasks'
declarative templates (catalogue.task_templates).

The tasks whose params fit the template language (pick, field, aggregate, date, policy) are pure
templates; the hard cases (the order a ticket's text names, refund limits and windows over the whole
episode, card digits a requester stated...) are one picker each, `{"picker": "<name>", "prefix": ""}`,
giving the task's whole answer key. A picker is called as `fn(world, seed)` with the (template) world
bound, picks the first suitable record in public-id order (or, given an episode's `rng`, a random
suitable one: replicas.worlds.seeding.candidates) and raises NoCandidate when the world has none, so a
task on another seed either finds its own records or fails loudly at load time.
"""

import re
from datetime import timedelta
from decimal import Decimal

from replicas.worlds import clock
from replicas.worlds.seeding import candidates

from .. import policies, selectors, simulated
from ..models import Group, Order, Payment, Ticket, User
from ..seed import VAGUE_SUBJECT

UNSOLVED = ("new", "open", "pending", "hold")
ORDER_RE = re.compile(r"\bORD-\d+\b")
LAST4_RE = re.compile(r"last 4 digits are (\d{4})")
# World time an episode may take: the engine moves the clock 30 s per step, and tasks
# allow at most 40 steps; answers that depend on the clock must hold over this span.
EPISODE_SPAN = timedelta(hours=1)
# the profile's button for the account action each kind of account ticket asks for
RESET_BUTTONS = {"2fa": "Reset two-factor", "login": "Send password reset", "locked": "Unlock account"}
SUPPORT, BILLING, SECURITY = "Support", policies.ESCALATION_GROUP, "Accounts & Security"


class NoCandidate(LookupError):
    """The world holds no record this task can be about."""


def _money(amount: Decimal) -> str:
    return str(amount.quantize(policies.CENT))


def _unsolved(**filters):
    return Ticket.objects.filter(status__in=UNSOLVED, merged_into__isnull=True, **filters).order_by("public_id")


def _tagged(tag: str):
    # tags is a JSON list; filtering in Python keeps this identical on SQLite and PostgreSQL
    return [t for t in _unsolved() if tag in t.tags]


def desk_agent() -> User:
    """The agent tasks sign in as: a front-line agent of Support, not of Tier 2 Billing (so refund limits apply)."""
    for agent in User.objects.filter(role=User.Role.AGENT, suspended=False).order_by("public_id"):
        groups = set(agent.memberships.values_list("group__name", flat=True))
        if SUPPORT in groups and BILLING not in groups:
            return agent
    raise NoCandidate("no front-line Support agent outside Tier 2 Billing")


def _signin(agent: User) -> dict:
    return {
        "agent_email": agent.email,
        "agent_name": agent.name,
        "agent_password": selectors.agent_password(agent=agent),
        "agent_id": agent.public_id,  # for the assertions that the work is this agent's
    }


# --- what declarative templates call (SupportdeskConfig.policies / .pickers) -----------------------


def desk_agent_signin(world, seed) -> dict:
    """Picker: the desk agent tasks sign in as; a template param named `agent` gives agent_email, agent_name..."""
    return {key.removeprefix("agent_"): value for key, value in _signin(desk_agent()).items()}


def refund_window_days(world) -> int:
    """Policy: how many days after a charge a refund is possible, in this world's variant."""
    return policies.refund_policy().window_days


def refund_limit(world, agent, payment) -> str | None:
    """Policy: the most agent `agent` (public id) may refund in all on `payment` (public id), in the payment's
    currency, as the refund API counts it (variant, loyalty tier, Tier 2); None when there is no limit."""
    limit = _limit(User.objects.get(public_id=agent), Payment.objects.get(public_id=payment))
    return None if limit is None else _money(limit)


def assignable_groups(world, agent) -> list:
    """Policy: the groups whose tickets agent `agent` (public id) may take: null (no group) and the agent's own."""
    mine = Group.objects.filter(memberships__user__public_id=agent).order_by("public_id")
    return [None, *mine.values_list("public_id", flat=True)]


def loyalty_tier_name(world, tier) -> str:
    """Policy: the name the desk shows for a loyalty tier (gold -> Gold, no tier -> None)."""
    return dict(User.Tier.choices).get(tier or "", tier)


def _group(name: str) -> Group:
    return Group.objects.get(name=name)


def ticket_order(ticket: Ticket) -> Order | None:
    """The order a ticket is about: its Order number field, else the number in its subject or first message."""
    # the first message is read only when the fields name no order: an episode's pickers check many tickets
    found = ORDER_RE.search(ticket.order_number or "") or ORDER_RE.search(ticket.subject or "")
    if found is None:
        first = ticket.comments.order_by("created_at", "public_id").first()
        found = ORDER_RE.search(first.body or "") if first else None
    if found is None:
        return None
    return Order.objects.filter(public_id=found.group(0), customer_id=ticket.requester_id).first()


def _limit(agent: User, payment: Payment) -> Decimal | None:
    return policies.refund_policy().limit_for(
        agent=agent, customer=payment.customer, currency=payment.currency, escalated=selectors.is_tier2(agent)
    )


def _refundable_by(agent: User, payment: Payment, amount: Decimal) -> bool:
    """Whether `agent` may refund `amount` on `payment` now and until the episode's end (limit and window)."""
    limit = _limit(agent, payment)
    window = policies.refund_policy().window_days
    now = clock.now()
    in_window = (now + EPISODE_SPAN - payment.captured_at).days <= window
    return in_window and (limit is None or selectors.refunded_total(payment) + amount <= limit)


def _succeeded(order: Order) -> list[Payment]:
    return list(order.payments.filter(status=Payment.Status.SUCCEEDED).order_by("captured_at", "public_id"))


def _duplicate_pair(ticket: Ticket):
    """(original, duplicate) payments of the ticket's order when it was charged twice and the duplicate is
    unrefunded.
    """
    order = ticket_order(ticket)
    if order is None:
        return None
    payments = _succeeded(order)
    if len(payments) != 2 or payments[0].amount != payments[1].amount:
        return None
    original, duplicate = payments
    if selectors.refunded_total(original) or selectors.refunded_total(duplicate):
        return None
    return order, original, duplicate


def _payment_keys(order: Order, payment: Payment) -> dict:
    return {
        "order": order.public_id,
        "payment": payment.public_id,
        "amount": _money(payment.amount),
        "currency": payment.currency,
        "amount_display": policies.money(payment.amount, payment.currency),
    }


# --- refunds ------------------------------------------------------------------------------------


def duplicate_charge(world, seed=None, rng=None) -> dict:
    """The first unsolved 'charged twice' ticket whose duplicate the front-line agent may refund."""
    agent = desk_agent()
    for ticket in candidates(_tagged("duplicate_charge"), rng):
        pair = _duplicate_pair(ticket)
        if pair and _refundable_by(agent, pair[2], pair[2].amount):
            order, original, duplicate = pair
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "customer": ticket.requester.name,
                **_payment_keys(order, duplicate),
                "original": original.public_id,
            }
    raise NoCandidate("no unsolved duplicate-charge ticket within the agent's refund limit")


def duplicate_charge_over_limit(world, seed=None, rng=None) -> dict:
    """The first unsolved 'charged twice' ticket whose duplicate is above the front-line agent's refund limit."""
    agent = desk_agent()
    for ticket in candidates(_tagged("duplicate_charge"), rng):
        pair = _duplicate_pair(ticket)
        if pair and not _refundable_by(agent, pair[2], pair[2].amount):
            order, original, duplicate = pair
            limit = _limit(agent, duplicate)
            if limit is None:
                continue
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "customer": ticket.requester.name,
                **_payment_keys(order, duplicate),
                "original": original.public_id,
                "limit": _money(limit),
                "limit_display": policies.money(limit, duplicate.currency),
                "below_limit": _money(min(limit, duplicate.amount - policies.CENT)),
                "tier2": _group(BILLING).public_id,
                "tier2_name": BILLING,
            }
    raise NoCandidate("no unsolved duplicate-charge ticket above the agent's refund limit")


def missing_item(world, seed=None, rng=None) -> dict:
    """The first unsolved missing-item ticket: refund the missing item's unit price (the order's last line)."""
    agent = desk_agent()
    for ticket in candidates(_tagged("missing_item"), rng):
        order = ticket_order(ticket)
        if order is None or order.status != Order.Status.FULFILLED:
            continue
        payments = _succeeded(order)
        line = order.items.order_by("-line").first()
        if len(payments) != 1 or line is None or order.items.count() < 2:
            continue
        payment, price = payments[0], line.unit_price
        if selectors.refunded_total(payment) or not _refundable_by(agent, payment, price):
            continue
        other = order.items.exclude(unit_price=price).order_by("line").first()
        if other is None:
            continue
        return {
            **_signin(agent),
            "ticket": ticket.public_id,
            "customer": ticket.requester.name,
            **_payment_keys(order, payment),
            "other_price": _money(other.unit_price),
            "item": line.name,
            "amount": _money(price),
            "amount_display": policies.money(price, payment.currency),
            "order_total": _money(order.total),
        }
    raise NoCandidate("no unsolved missing-item ticket with a refundable single payment")


def missing_item_escalation(world, seed=None, rng=None) -> dict:
    """The missing-item ticket of `missing_item`, with the group its order goes to when it cannot be refunded."""
    return {**missing_item(world, seed, rng), "tier2": _group(BILLING).public_id}


def _damaged_item_charges(rng):
    """(ticket, order, payment) of each unsolved damaged-item ticket, in candidate order, whose order was
    fulfilled and paid by one succeeded charge with nothing refunded yet."""
    for ticket in candidates(_unsolved().order_by("public_id"), rng):
        if ticket.tags != ["billing", "refund"]:  # the damaged-item story, not missing items
            continue
        order = ticket_order(ticket)
        if order is None or order.status != Order.Status.FULFILLED:
            continue
        payments = _succeeded(order)
        if len(payments) == 1 and not selectors.refunded_total(payments[0]):
            yield ticket, order, payments[0]


def damaged_with_tier(world, seed=None, rng=None) -> dict:
    """A damaged-item refund that only the requester's loyalty tier brings within the agent's limit."""
    agent = desk_agent()
    base = policies.refund_policy().agent_limits
    for ticket, order, payment in _damaged_item_charges(rng):
        if payment.amount > base[payment.currency] and _refundable_by(agent, payment, payment.amount):
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "customer": ticket.requester.name,
                "tier": ticket.requester.get_loyalty_tier_display(),
                **_payment_keys(order, payment),
                "tier2": _group(BILLING).public_id,
            }
    raise NoCandidate("no damaged-item refund that the loyalty tier brings within the limit")


def _prorated(payment: Payment, at) -> Decimal:
    return policies.prorated_amount(
        price=payment.amount, period_start=payment.period_start, period_end=payment.period_end, at=at
    )


def prorated_cancellation(world, seed=None, rng=None) -> dict:
    """The first unsolved cancellation ticket whose prorated refund the agent may issue, stable over the episode."""
    agent = desk_agent()
    now = clock.now()
    for ticket in candidates(_tagged("cancellation"), rng):
        subs = list(ticket.requester.subscriptions.filter(status="active").order_by("public_id"))
        if len(subs) != 1:
            continue
        sub = subs[0]
        paid = list(sub.payments.filter(status=Payment.Status.SUCCEEDED).order_by("-captured_at", "public_id"))
        if not paid or paid[0].period_end is None or selectors.refunded_total(paid[0]):
            continue
        payment = paid[0]

        amount = _prorated(payment, now)
        # whole days left must not tick over while the episode runs, or the key would be wrong
        if (
            amount <= 0
            or _prorated(payment, now + EPISODE_SPAN) != amount
            or not _refundable_by(agent, payment, amount)
        ):
            continue
        days_left = (payment.period_end - now).days
        period_days = (payment.period_end - payment.period_start).days
        # what counting the current day as unused too would give: a plausible hand calculation
        wrong = (payment.amount * (days_left + 1) / period_days).quantize(policies.CENT)
        return {
            **_signin(agent),
            "ticket": ticket.public_id,
            "customer": ticket.requester.name,
            "subscription": sub.public_id,
            "payment": payment.public_id,
            "currency": payment.currency,
            "price": _money(payment.amount),
            "amount": _money(amount),
            "amount_display": policies.money(amount, payment.currency),
            "days_left": days_left,
            "period_days": period_days,
            "wrong_amount": _money(wrong),
        }
    raise NoCandidate("no unsolved cancellation ticket with a refundable prorated amount")


# --- routing and properties ------------------------------------------------------------------------


def refund_request_tags(world, seed=None, rng=None) -> dict:
    """The first unsolved refund request: the tags it has now and the tag to add."""
    agent = desk_agent()
    for ticket in candidates(_tagged("refund"), rng):
        if "missing_item" not in ticket.tags and "needs_photo" not in ticket.tags:
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "tags_before": list(ticket.tags),
                "tags_after": [*ticket.tags, "needs_photo"],
                "tags_after_text": " ".join([*ticket.tags, "needs_photo"]),
                "customer": ticket.requester.name,
            }
    raise NoCandidate("no unsolved refund request to tag")


def merge_duplicates(world, seed=None) -> dict:
    """Two unsolved tickets of one requester with the same subject: merge the newer into the older."""
    agent = desk_agent()
    seen = {}
    for ticket in _unsolved().order_by("created_at", "public_id"):
        key = (ticket.requester_id, ticket.subject)
        if key in seen:
            older = seen[key]
            return {
                **_signin(agent),
                "target": older.public_id,
                "source": ticket.public_id,
                "customer": ticket.requester.name,
                "subject": ticket.subject,
                "target_status": older.status,
            }
        seen[key] = ticket
    raise NoCandidate("no requester with two open tickets on one subject")


def bulk_solve_plans(world, seed=None) -> dict:
    """Every unsolved sales question about plans (tag 'plans'), all solvable by the agent."""
    agent = desk_agent()
    tickets = _tagged("plans")
    if not tickets:
        raise NoCandidate("no unsolved plan questions")
    groups = set(agent.memberships.values_list("group_id", flat=True))
    for t in tickets:
        if t.assignee_id is None and t.group_id is not None and t.group_id not in groups:
            raise NoCandidate(f"#{t.public_id} cannot be solved by {agent.name} (not in {t.group.name})")
    keys = {f"ticket_{i}": t.public_id for i, t in enumerate(tickets, start=1)}
    # a ticket the agent could solve too but must not: the first unsolved one not about plans
    other = next(
        t for t in _unsolved() if "plans" not in t.tags and (t.assignee_id is not None or t.group_id in groups)
    )
    return {
        **_signin(agent),
        "tickets": [str(t.public_id) for t in tickets],
        "numbers": [t.public_id for t in tickets],
        "count": len(tickets),
        "other": other.public_id,
        **keys,
    }


def reply_channels(world, seed=None, rng=None) -> dict:
    """An unsolved invoice ticket: a public reply to the customer and an internal note for Tier 2 Billing."""
    agent = desk_agent()
    for ticket in candidates(_tagged("invoice"), rng):
        order = ticket_order(ticket)
        if order is not None:
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "order": order.public_id,
                "customer": ticket.requester.name,
                "first_name": ticket.requester.first_name,
                "status_before": ticket.status,
            }
    raise NoCandidate("no unsolved invoice ticket")


def wismo_macro(world, seed=None, rng=None) -> dict:
    """A where-is-my-order ticket whose Order number field is empty, so the tracking macro's reply has a gap."""
    agent = desk_agent()
    groups = set(agent.memberships.values_list("group_id", flat=True))
    for ticket in candidates(_tagged("wismo"), rng):
        order = ticket_order(ticket)
        if ticket.order_number or order is None:
            continue
        if ticket.group_id is not None and ticket.group_id not in groups:
            continue
        return {
            **_signin(agent),
            "ticket": ticket.public_id,
            "order": order.public_id,
            "first_name": ticket.requester.first_name,
            "agent_first_name": agent.first_name,
        }
    raise NoCandidate("no where-is-my-order ticket with an empty order number")


# --- finding answers ------------------------------------------------------------------------------


def order_total(world, seed=None, rng=None) -> dict:
    """An order with shipping and tax, asked about on one of its customer's tickets: its total."""
    agent = desk_agent()
    for ticket in candidates(_unsolved(), rng):
        order = ticket_order(ticket)
        if order is not None and order.tax > 0 and order.shipping > 0:
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "order": order.public_id,
                "customer": ticket.requester.name,
                "total": _money(order.total),
                "currency": order.currency,
                "total_display": policies.money(order.total, order.currency),
                "subtotal": _money(order.subtotal),
                "subtotal_display": policies.money(order.subtotal, order.currency),
            }
    raise NoCandidate("no ticket about an order with shipping and tax")


def refunded_so_far(world, seed=None, rng=None) -> dict:
    """A partially refunded order of a customer who has a ticket: how much has been refunded on it."""
    agent = desk_agent()
    for ticket in candidates(Ticket.objects.filter(merged_into__isnull=True).order_by("public_id"), rng):
        for order in candidates(
            ticket.requester.orders.filter(status=Order.Status.PARTIALLY_REFUNDED).order_by("public_id"), rng
        ):
            refunded = sum((selectors.refunded_total(p) for p in _succeeded(order)), Decimal(0))
            if 0 < refunded < order.total:
                return {
                    **_signin(agent),
                    "ticket": ticket.public_id,
                    "customer": ticket.requester.name,
                    "order": order.public_id,
                    "refunded": _money(refunded),
                    "currency": order.currency,
                    "refunded_display": policies.money(refunded, order.currency),
                    "left_display": policies.money(order.total - refunded, order.currency),
                }
    raise NoCandidate("no partially refunded order of a customer with a ticket")


def renewal_date(world, seed=None, rng=None) -> dict:
    """The renewal date (end of the current period) of the subscription a cancellation ticket is about."""
    agent = desk_agent()
    for ticket in candidates(_tagged("subscription"), rng):
        subs = list(ticket.requester.subscriptions.filter(status="active").order_by("public_id"))
        if len(subs) == 1:
            sub = subs[0]
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "customer": ticket.requester.name,
                "subscription": sub.public_id,
                "renews": sub.current_period_end.date().isoformat(),
                "plan": sub.get_plan_display(),
                "period_start": sub.current_period_start.date().isoformat(),
            }
    raise NoCandidate("no unsolved subscription ticket of a customer with one active subscription")


# --- identity and accounts -------------------------------------------------------------------------


def _stated_last4(ticket: Ticket) -> str | None:
    said = [c.body for c in ticket.comments.filter(author=ticket.requester).order_by("created_at", "public_id")]
    digits = [d for body in said for d in LAST4_RE.findall(body)]
    return digits[-1] if digits else None


def _paid_with(customer: User, last4: str) -> bool:
    return Payment.objects.filter(customer=customer, card_last4=last4).exists()


def _account_ticket(tag: str, *, verifiable: bool, need=None, rng=None) -> tuple[Ticket, str]:
    for ticket in candidates(_tagged(tag), rng):
        customer = ticket.requester
        last4 = _stated_last4(ticket)
        if last4 is None or _paid_with(customer, last4) is not verifiable:
            continue
        if selectors.identity_verification_current(customer) is not None:
            continue  # already verified: the task would skip the step it is about
        if need is not None and not need(customer):
            continue
        return ticket, last4
    raise NoCandidate(
        f"no unsolved {tag} ticket whose requester gave {'matching' if verifiable else 'wrong'} card digits"
    )


def _account_keys(ticket: Ticket, last4: str) -> dict:
    customer = ticket.requester
    return {
        **_signin(desk_agent()),
        "ticket": ticket.public_id,
        "customer": customer.name,
        "customer_id": customer.public_id,
        "customer_email": customer.email,
        "last4": last4,
    }


def password_reset_verified(world, seed=None, rng=None) -> dict:
    """A can't-log-in ticket whose requester gave the last 4 digits of a card they paid with."""
    ticket, last4 = _account_ticket("login", verifiable=True, rng=rng)
    return _account_keys(ticket, last4)


def twofactor_reset_verified(world, seed=None, rng=None) -> dict:
    """A 2FA-reset ticket whose requester has 2FA on and gave matching card digits."""
    ticket, last4 = _account_ticket("2fa", verifiable=True, need=lambda c: c.twofactor_enabled, rng=rng)
    return _account_keys(ticket, last4)


def unlock_verified(world, seed=None, rng=None) -> dict:
    """A ticket of a customer whose account is locked and who gave matching card digits."""
    for tag in ("locked", "login"):
        try:
            ticket, last4 = _account_ticket(tag, verifiable=True, need=lambda c: c.locked_at is not None, rng=rng)
        except NoCandidate:
            continue
        return _account_keys(ticket, last4)
    raise NoCandidate("no locked customer with a ticket giving matching card digits")


def reset_unverifiable(world, seed=None, rng=None) -> dict:
    """An account ticket whose requester gave card digits that match no card they paid with."""
    for tag in ("2fa", "login", "locked"):
        try:
            ticket, last4 = _account_ticket(tag, verifiable=False, rng=rng)
        except NoCandidate:
            continue
        keys = _account_keys(ticket, last4)
        cards = sorted(set(Payment.objects.filter(customer=ticket.requester).values_list("card_last4", flat=True)))
        if not cards:
            continue
        keys.update(card_on_file=cards[0], tag=tag, reset_button=RESET_BUTTONS[tag])
        return keys
    raise NoCandidate("no account ticket with unverifiable card digits")


# --- policies stated in the knowledge base; customers who answer ---------------------------------


def refund_outside_window(world, seed=None, rng=None) -> dict:
    """A damaged-item refund whose charge is older than the refund window and within the agent's limit:
    the window alone (a number the knowledge base states) says to escalate instead of refunding."""
    agent = desk_agent()
    window = policies.refund_policy().window_days
    now = clock.now()
    for ticket, order, payment in _damaged_item_charges(rng):
        limit = _limit(agent, payment)
        if (now - payment.captured_at).days > window and limit is not None and payment.amount <= limit:
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "customer": ticket.requester.name,
                **_payment_keys(order, payment),
                "window_days": window,
                "tier2": _group(BILLING).public_id,
            }
    raise NoCandidate("no damaged-item refund outside the window and within the agent's limit")


def damaged_order_unsaid(world, seed=None, rng=None) -> dict:
    """An unsolved damaged-item ticket that does not say which order (worlds with simulated customers): the
    requester has other orders, the one they mean is not their latest, and the agent may refund it."""
    agent = desk_agent()
    for ticket in candidates(_unsolved(subject=VAGUE_SUBJECT).order_by("public_id"), rng):
        order = simulated.ticket_order(ticket)
        if order is None or order.status != Order.Status.FULFILLED:
            continue
        payments = _succeeded(order)
        if len(payments) != 1 or selectors.refunded_total(payments[0]):
            continue
        payment = payments[0]
        if not _refundable_by(agent, payment, payment.amount):
            continue
        others = [
            p
            for o in Order.objects.filter(customer=ticket.requester)
            .exclude(pk=order.pk)
            .order_by("-placed_at", "-public_id")
            for p in _succeeded(o)
        ]
        if not others or others[0].order.placed_at < order.placed_at:
            continue  # the order they mean is their latest: a guess would be right
        wrong = others[0]
        return {
            **_signin(agent),
            "ticket": ticket.public_id,
            "customer": ticket.requester.name,
            "customer_id": ticket.requester.public_id,  # the author of the answer the assertions read
            **_payment_keys(order, payment),
            "wrong_order": wrong.order.public_id,
            "wrong_payment": wrong.public_id,
        }
    raise NoCandidate("no new damaged-item ticket that leaves out an order the customer must name")
