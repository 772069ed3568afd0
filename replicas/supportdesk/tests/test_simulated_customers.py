"""Simulated customers (replicas.supportdesk.simulated) in worlds of the "conversations" variant: they
answer an agent's public question at the clock's next move with the world's true value, and only
what was asked; old conversations stay unanswered; the same messages give the same world byte for
byte; an optional model only words the facts the script chose."""

import json
import re

import pytest

from replicas.supportdesk import services, simulated
from replicas.supportdesk.models import Comment, Payment, Ticket
from replicas.supportdesk.tasks.params import damaged_order_unsaid, desk_agent
from replicas.worlds.clock import world_clock_advance
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash
from tests.chat_model_stub import chat_model_stub
from tests.templates import module_template

pytestmark = pytest.mark.django_db

VARIANT = "conversations"
conversations_template = module_template("supportdesk", variant=VARIANT)
STEP = 30


@pytest.fixture
def conv_world(make_world):
    return make_world(variant=VARIANT)


def _latest(ticket) -> Comment:
    return ticket.comments.order_by("-created_at", "-public_id").first()


def _ask(world, ticket, body, *, advance=True):
    """The desk agent replies publicly on `ticket`; the clock then moves one step."""
    services.comment_add(ticket=ticket, author=desk_agent(), body=body)
    before = ticket.comments.count()
    if advance:
        world_clock_advance(world=world, seconds=STEP)
    return ticket.comments.count() - before


def test_old_conversations_are_not_answered(conv_world):
    with bound_world(conv_world):
        waiting = [
            t
            for t in Ticket.objects.exclude(status__in=["solved", "closed"])
            if (c := t.comments.filter(public=True).order_by("-created_at", "-public_id").first())
            and c.author_id != t.requester_id
        ]
        assert waiting, "the seed has tickets whose last public word is an agent's"
        comments = Comment.objects.count()
        world_clock_advance(world=conv_world, seconds=STEP)
        world_clock_advance(world=conv_world, seconds=STEP)
        assert Comment.objects.count() == comments


def test_customer_names_the_order_at_the_next_clock_move_and_nothing_else(conv_world):
    with bound_world(conv_world):
        case = damaged_order_unsaid(conv_world, 7)
        ticket = Ticket.objects.get(public_id=case["ticket"])
        status_before = ticket.status
        # right after the agent's update there is no answer yet: it comes by email, with time
        assert (
            _ask(
                conv_world,
                ticket,
                "Sorry about that! Which order was it? Could you tell me the order number?",
                advance=False,
            )
            == 0
        )
        world_clock_advance(world=conv_world, seconds=STEP)
        ticket.refresh_from_db()
        answer = _latest(ticket)
        assert answer.author_id == ticket.requester_id and answer.public and answer.channel == "email"
        assert answer.created_at == conv_world.clock
        assert case["order"] in answer.body
        customer = ticket.requester
        cards = set(Payment.objects.filter(customer=customer).values_list("card_last4", flat=True))
        assert re.findall(r"ORD-\d+", answer.body) == [case["order"]]
        assert not any(c in answer.body for c in cards) and customer.email not in answer.body
        # the desk's trigger reopens a ticket the requester answers
        assert ticket.status == "open" and (status_before in ("open", "pending"))
        # answered once: the next move adds nothing
        assert _ask(conv_world, ticket, "Thanks, looking into it now.") == 0


def test_card_digits_photo_unknown_question_and_statement(conv_world):
    with bound_world(conv_world):
        tickets = list(
            Ticket.objects.filter(status__in=["new", "open"], requester__payments__isnull=False)
            .distinct()
            .order_by("public_id")[:4]
        )
        first, second, third, fourth = tickets
        assert (
            _ask(
                conv_world,
                first,
                "To protect your account, please reply with the last 4 digits of the card on file or the "
                "number of one of your orders.",
            )
            == 1
        )
        order = simulated.ticket_order(first)
        last4 = simulated.card_last4(first, order)
        body = _latest(first).body
        assert f"last 4 digits of my card are {last4}" in body and "ORD-" not in body  # the first alternative only
        assert _ask(conv_world, second, "Could you send a photo of the damage?") == 1
        assert re.search(r"attached a (photo|screenshot)[^:]*: (IMG|Screenshot)_\d{4}\.(jpg|png)", _latest(second).body)
        assert _ask(conv_world, third, "Can you do a backflip for me?") == 1
        assert simulated.UNSURE in _latest(third).body
        assert _ask(conv_world, fourth, "Your replacement ships tomorrow. Is there anything else I can help with?") == 0


def _same_conversation(world) -> str:
    with bound_world(world):
        ticket = Ticket.objects.get(public_id=damaged_order_unsaid(world, 7)["ticket"])
        _ask(world, ticket, "Could you tell me the order number?")
        _ask(world, ticket, "And the last four digits of the card you paid with?")
        return state_hash(snapshot(world))


def test_same_messages_give_the_same_world(conv_world, make_world):
    other = make_world(variant=VARIANT)
    assert _same_conversation(conv_world) == _same_conversation(other)
    with bound_world(other):
        assert Comment.objects.filter(channel="email", created_at=other.clock).count() == 1


def test_other_variants_have_no_simulated_customers(make_world):
    small = make_world(variant="small")
    with bound_world(small):
        ticket = Ticket.objects.filter(status="open").order_by("public_id").first()
        assert _ask(small, ticket, "Could you tell me the order number?") == 0


@pytest.fixture
def model(monkeypatch):
    with chat_model_stub() as stub:
        monkeypatch.setenv("SUPPORTDESK_CUSTOMER_MODEL_URL", stub.url)
        monkeypatch.setenv("SUPPORTDESK_CUSTOMER_MODEL", "tiny")
        yield stub


def test_a_model_words_only_the_facts_asked_and_is_overruled_when_it_drops_one(conv_world, model):
    with bound_world(conv_world):
        case = damaged_order_unsaid(conv_world, 7)
        ticket = Ticket.objects.get(public_id=case["ticket"])
        model.answer = f"Oh sure, it was {case['order']} from last month."
        _ask(conv_world, ticket, "Could you tell me the order number?")
        assert f"Oh sure, it was {case['order']} from last month." in _latest(ticket).body
        path, _headers, request = model.seen[-1]
        prompt = json.dumps(request)
        assert path == "/v1/chat/completions" and case["order"] in prompt
        assert ticket.requester.email not in prompt and "last 4 digits" not in prompt
        model.answer = "I don't remember, sorry."  # drops the card digits it was given
        _ask(conv_world, ticket, "What are the last 4 digits of your card?")
        assert "The last 4 digits of my card are" in _latest(ticket).body
