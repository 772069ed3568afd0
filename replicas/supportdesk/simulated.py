"""Simulated customers: the requester who answers an agent's public reply in the ticket's conversation.

A customer answers by email, so the answer is not there when the agent's update returns: it
arrives as a new public comment at the world clock's next move (each episode step), as the
product shows a requester's emailed reply a while after the agent wrote. What they say follows
a deterministic script keyed on what the agent asked (the last four digits of the card, the
order number, a photo, the email on the account); each answer states the world's true value for
that customer and nothing that was not asked. A question the script does not know gets a
plausible "not sure what you mean". Same world and same messages give the same replies, byte
for byte, so state hashes stay reproducible.

Only worlds whose variant sets the knob `simulated_customers` have such customers, so the tasks
of other variants see exactly the desk they always saw. An OpenAI-compatible model may word the
answers (SUPPORTDESK_CUSTOMER_MODEL_URL and _MODEL; off by default): it is given only the facts
the script chose, and its text is used only if it states each of them, else the script's is.
"""

import hashlib
import re

from replicas.worlds import clock
from replicas.worlds import simulated as people
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import current_world
from replicas.worlds.simulated import Fact

from .models import Comment, Order, Payment, Ticket, TicketEvent, User
from .services import comment_add

KNOB = "simulated_customers"
ORDER_RE = re.compile(r"\bORD-\d{3,10}\b")
# What an agent may ask for, in the order the answer gives them. Each pattern reads the agent's
# words, never the customer's data.
ASKS = [
    (
        "card_last4",
        re.compile(r"\blast\s*(?:4|four)\b|\bcard\b[^.?!]{0,40}\bdigits\b|\bdigits\b[^.?!]{0,40}\bcard\b", re.I),
    ),
    (
        "order_number",
        re.compile(r"\border\s*(?:number|no\b|#|id\b)|\bwhich order\b|\bnumber of (?:one of )?your orders?\b", re.I),
    ),
    ("photo", re.compile(r"\b(?:photo|picture|image|screenshot)s?\b", re.I)),
    (
        "email",
        re.compile(r"\bconfirm\b[^.?!]{0,40}\be-?mail\b|\be-?mail (?:address )?(?:on|of) (?:the|your) account\b", re.I),
    ),
]
# Card digits and an order number offered as alternatives ("the last 4 digits ... or the number
# of one of your orders"): a customer gives the first, not both.
ALTERNATIVES = frozenset({"card_last4", "order_number"})
UNSURE = "Sorry, I'm not sure what you mean. What exactly do you need from me?"
# Who wrote the update the customer answers: people, not the desk's own rules.
ANSWERED_VIA = ("web", "api", "macro", "bulk")


def enabled(world) -> bool:
    return bool(get_replica(world.replica).knobs(world.variant).get(KNOB))


def asked(text: str) -> list[str]:
    """The things `text` asks the customer for, in ASKS order; ["unknown"] for a question the script does not know."""
    return people.asked(text, ASKS, ALTERNATIVES)


def ticket_order(ticket: Ticket) -> Order | None:
    """The order the ticket is about, as its requester knows it.

    The ticket's order field; else the first order number the requester wrote in the ticket;
    else their latest order placed before they opened the ticket.
    """
    orders = Order.objects.filter(customer_id=ticket.requester_id)
    if ticket.order_number:
        found = orders.filter(public_id=ticket.order_number).first()
        if found is not None:
            return found
    for body in (
        Comment.objects.filter(ticket=ticket, author_id=ticket.requester_id).order_by("created_at", "public_id")
    ).values_list("body", flat=True):
        for number in ORDER_RE.findall(body):
            found = orders.filter(public_id=number).first()
            if found is not None:
                return found
    return orders.filter(placed_at__lte=ticket.created_at).order_by("-placed_at", "-public_id").first()


def card_last4(ticket: Ticket, order: Order | None) -> str | None:
    """The last four digits of the card the customer paid the ticket's order with, else their latest card."""
    payments = Payment.objects.filter(customer_id=ticket.requester_id, status=Payment.Status.SUCCEEDED)
    if order is not None and payments.filter(order=order).exists():
        payments = payments.filter(order=order)
    payment = payments.order_by("-captured_at", "-public_id").first()
    return payment.card_last4 if payment else None


def _file_name(ticket: Ticket, kind: str, ext: str) -> str:
    digest = hashlib.sha256(f"{ticket.public_id}:{kind}".encode()).hexdigest()
    return f"{kind}_{int(digest[:8], 16) % 9000 + 1000}.{ext}"


def facts(ticket: Ticket, asks: list[str]) -> list[Fact]:
    """What the customer says to each ask: the world's true value, or that they do not know it."""
    customer = ticket.requester
    order = ticket_order(ticket) if {"order_number", "card_last4"} & set(asks) else None
    out = []
    for name in asks:
        if name == "card_last4":
            last4 = card_last4(ticket, order)
            out.append(
                Fact(name, f"The last 4 digits of my card are {last4}.", last4)
                if last4
                else Fact(name, "I don't think I ever paid with a card here.", "")
            )
        elif name == "order_number":
            out.append(
                Fact(name, f"The order number is {order.public_id}.", order.public_id)
                if order
                else Fact(name, "I can't find an order number in my emails, sorry.", "")
            )
        elif name == "photo":
            screenshot = "bug" in ticket.tags
            file_name = _file_name(ticket, "Screenshot" if screenshot else "IMG", "png" if screenshot else "jpg")
            what = "a screenshot of the error" if screenshot else "a photo of the damage"
            out.append(Fact(name, f"I've attached {what}: {file_name}", file_name))
        elif name == "email":
            out.append(Fact(name, f"Yes, the email on my account is {customer.email}.", customer.email))
        else:
            out.append(Fact(name, UNSURE, ""))
    return out


def scripted_reply(ticket: Ticket, told: list[Fact], agent: User | None) -> str:
    greeting = f"Hi {agent.first_name}," if agent is not None else "Hi,"
    return "\n\n".join([greeting, " ".join(f.sentence for f in told), f"Thanks,\n{ticket.requester.first_name}"])


def model_reply(ticket: Ticket, told: list[Fact], asked_text: str, agent: User | None) -> str | None:
    """The model's wording of the same facts, or None (not configured, failed, or it dropped a fact)."""
    text = people.model_wording(
        env_prefix="SUPPORTDESK_CUSTOMER",
        persona=f"You are {ticket.requester.first_name}, a customer of an online electronics shop, answering "
        "a support agent by email.",
        told=told,
        asked_text=asked_text,
        seed=ticket.public_id,
    )
    if text is None:
        return None
    greeting = f"Hi {agent.first_name}," if agent is not None else "Hi,"
    return f"{greeting}\n\n{text}\n\nThanks,\n{ticket.requester.first_name}"


def awaiting() -> list[tuple[Ticket, list[Comment]]]:
    """Tickets whose requester has not answered the agents' latest public replies, with those replies.

    Only replies written through the desk carry a comment event (the seed's history has none),
    so a new world's old conversations are never answered; replies written since the clock last
    moved are answered at the next move.
    """
    now = clock.now()
    since = {}  # ticket id -> when an agent first replied through the desk
    for ticket_id, at in (
        TicketEvent.objects.filter(kind="comment", field="comment", to_value="public", via__in=ANSWERED_VIA)
        .exclude(actor__role=User.Role.END_USER)
        .filter(created_at__lt=now)
        .values_list("ticket_id", "created_at")
    ):
        since[ticket_id] = min(at, since.get(ticket_id, at))
    out = []
    for ticket in (
        Ticket.objects.filter(pk__in=list(since), merged_into__isnull=True)
        .exclude(status=Ticket.Status.CLOSED)
        .select_related("requester")
        .order_by("public_id")
    ):
        comments = list(ticket.comments.filter(public=True).order_by("created_at", "public_id"))
        last_answer = max((i for i, c in enumerate(comments) if c.author_id == ticket.requester_id), default=-1)
        pending = [c for c in comments[last_answer + 1 :] if since[ticket.pk] <= c.created_at < now]
        if pending:
            out.append((ticket, pending))
    return out


def customer_replies_run() -> int:
    """Let every customer whose agent asked them something answer it; returns how many answered."""
    if not enabled(current_world()):
        return 0
    answered = 0
    for ticket, replies in awaiting():
        text = "\n\n".join(c.body for c in replies)
        asks = asked(text)
        if not asks:
            continue
        agent = User.objects.filter(pk=replies[-1].author_id).first()
        told = facts(ticket, asks)
        body = model_reply(ticket, told, text, agent) or scripted_reply(ticket, told, agent)
        comment_add(ticket=ticket, author=ticket.requester, body=body, public=True, via="mail")
        answered += 1
    return answered
