"""SLA metrics follow the world clock: active, then breached; achieved by an agent's reply."""

from datetime import timedelta

import pytest

from replicas.supportdesk import selectors, services
from replicas.supportdesk.models import Ticket
from replicas.worlds import clock

from .domain_helpers import customer, front_line_agent

pytestmark = pytest.mark.django_db


def new_ticket(tier="", priority="high") -> Ticket:
    requester = customer(3, tier=tier)
    return services.ticket_create(
        requester=requester, subject="Where is my parcel?", body="It is late.", fields={"priority": priority}
    )


def test_first_reply_target_counts_down_on_the_world_clock_and_breaches(in_world):
    ticket = new_ticket()  # Standard policy, high: first reply in 240 minutes
    [metric] = selectors.ticket_sla(ticket)
    assert (metric.metric, metric.policy, metric.status, metric.remaining_minutes) == (
        "first_reply",
        "Standard",
        "active",
        240,
    )
    assert metric.due_at == ticket.created_at + timedelta(minutes=240) and metric.badge == "4h 0m"
    services.clock_advance(seconds=250 * 60)
    [metric] = selectors.ticket_sla(ticket)
    assert metric.status == "breached" and metric.remaining_minutes == -10 and metric.badge == "-10m"
    assert selectors.sla_badge(ticket) == metric


def test_premium_customers_get_the_premium_targets(in_world):
    [metric] = selectors.ticket_sla(new_ticket(tier="gold"))
    assert metric.policy == "Premium customers" and metric.target_minutes == 60


def test_an_agent_reply_achieves_first_reply_and_a_customer_reply_starts_next_reply(in_world):
    ticket = new_ticket()
    services.clock_advance(seconds=30 * 60)
    agent = front_line_agent()
    services.ticket_update(ticket=ticket, actor=agent, changes={"assignee": agent}, comment="On it.")
    [first] = selectors.ticket_sla(ticket)
    assert first.status == "achieved" and first.achieved_at == clock.now()
    services.clock_advance(seconds=60)
    services.comment_add(ticket=ticket, author=ticket.requester, body="Thanks, any news?")
    first, nxt = selectors.ticket_sla(ticket)
    assert nxt.metric == "next_reply" and nxt.status == "active" and nxt.remaining_minutes == 480
    assert selectors.sla_badge(ticket) == nxt


def test_internal_notes_do_not_count_as_replies_and_tickets_without_priority_have_no_sla(in_world):
    ticket = new_ticket()
    agent = front_line_agent()
    services.ticket_update(
        ticket=ticket, actor=agent, changes={"assignee": agent}, comment="note to self", public=False
    )
    [first] = selectors.ticket_sla(ticket)
    assert first.status == "active"
    assert selectors.ticket_sla(new_ticket(priority="")) == []


def test_sla_for_a_page_of_tickets_covers_every_ticket(in_world):
    tickets = list(Ticket.objects.order_by("public_id")[:20])
    result = selectors.sla_for_tickets(tickets)
    assert set(result) == {t.public_id for t in tickets}
    for t in tickets:
        assert all(m.status in ("active", "breached", "achieved") for m in result[t.public_id])
        if not t.priority:
            assert result[t.public_id] == []
