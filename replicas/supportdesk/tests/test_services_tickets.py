"""Ticket writes: audited updates, triggers, automations on the clock, merges, bulk updates, macros."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from replicas.supportdesk import services
from replicas.supportdesk.models import Comment, Group, Macro, Ticket, TicketEvent, User
from replicas.worlds import clock
from replicas.worlds.scoping import current_world

from .domain_helpers import customer, front_line_agent, unchanged

pytestmark = pytest.mark.django_db


def an_open_ticket(**filters) -> Ticket:
    return (
        Ticket.objects.filter(status="open", assignee__isnull=False, **filters)
        .select_related("assignee", "group")
        .order_by("public_id")
        .first()
    )


def test_update_writes_one_event_per_changed_field_with_from_to_who_and_world_time(in_world):
    ticket = an_open_ticket()
    agent = ticket.assignee
    services.ticket_update(
        ticket=ticket,
        actor=agent,
        changes={"priority": "high", "add_tags": ["vip_call"], "order_number": "ord-12345"},
        comment="Looking into it.",
    )
    events = {e.field: e for e in TicketEvent.objects.filter(ticket=ticket, created_at=clock.now(), via="web")}
    assert events["priority"].to_value == "high" and events["priority"].actor == agent
    assert events["tags"].to_value.endswith("vip_call")
    assert events["order_number"].to_value == "ORD-12345"
    assert events["comment"].to_value == "public"
    ticket.refresh_from_db()
    assert ticket.updated_at == clock.now() and ticket.order_number == "ORD-12345"
    assert Comment.objects.filter(ticket=ticket, body="Looking into it.", author=agent).exists()


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"status": "closed"}, "closed by the desk's automation"),
        ({"status": "new"}, "cannot go back to New"),
        ({"priority": "critical"}, "not a valid priority"),
        ({"tags": ["has space"]}, "not a valid tag"),
        ({"order_number": "12345"}, "not an order number"),
        ({"colour": "red"}, "Unknown ticket field"),
        ({}, "Nothing to update"),
    ],
)
def test_invalid_updates_are_refused_and_change_nothing(in_world, changes, message):
    ticket = an_open_ticket()
    with unchanged(), pytest.raises(ValidationError, match=message):
        services.ticket_update(ticket=ticket, actor=ticket.assignee, changes=changes)


def test_assignee_must_belong_to_the_group(in_world):
    ticket = an_open_ticket()
    other = Group.objects.exclude(pk=ticket.group_id).exclude(memberships__user=ticket.assignee).first()
    with unchanged(), pytest.raises(ValidationError, match=f"is not a member of the group {other.name}"):
        services.ticket_update(ticket=ticket, actor=ticket.assignee, changes={"group": other})


def test_closed_tickets_cannot_be_updated(in_world):
    ticket = Ticket.objects.filter(status="closed").first()
    with unchanged(), pytest.raises(ValidationError, match="is closed and can no longer be updated"):
        services.comment_add(ticket=ticket, author=front_line_agent(), body="Hello?")


def test_solving_an_unassigned_ticket_assigns_it_to_the_solver(in_world):
    agent = front_line_agent()
    ticket = Ticket.objects.filter(status="new", group__isnull=True).order_by("public_id").first()
    services.ticket_update(ticket=ticket, actor=agent, changes={"status": "solved"}, comment="Done.")
    ticket.refresh_from_db()
    assert ticket.status == "solved" and ticket.assignee == agent and ticket.solved_at == clock.now()


def test_trigger_marks_chargeback_threats_urgent_on_create(in_world):
    ticket = services.ticket_create(
        requester=customer(2),
        subject="Unauthorized charge",
        body="Refund me or I file a chargeback with my bank.",
        channel="email",
    )
    ticket.refresh_from_db()
    assert ticket.priority == "urgent" and "chargeback_risk" in ticket.tags
    fired = TicketEvent.objects.filter(ticket=ticket, via="trigger")
    assert {e.rule for e in fired} >= {"Chargeback threats are urgent", "Notify requester of received request"}
    assert fired.get(field="priority").actor is None


def test_trigger_reopens_a_pending_ticket_when_the_requester_replies(in_world):
    ticket = Ticket.objects.filter(status="pending").order_by("public_id").first()
    services.comment_add(ticket=ticket, author=ticket.requester, body="Here is the photo you asked for.")
    ticket.refresh_from_db()
    assert ticket.status == "open"
    assert (
        TicketEvent.objects.get(ticket=ticket, field="status", via="trigger").rule
        == "Reopen when the requester replies"
    )


def test_trigger_notifies_the_new_assignee(in_world):
    ticket = an_open_ticket()
    other = (
        User.objects.filter(memberships__group=ticket.group, role__in=["agent", "admin"])
        .exclude(pk=ticket.assignee_id)
        .first()
    )
    services.ticket_update(ticket=ticket, actor=ticket.assignee, changes={"assignee": other})
    note = TicketEvent.objects.get(ticket=ticket, kind="notification", field="assignee")
    assert note.to_value.startswith(other.email) and note.rule == "Notify assignee of assignment"


def test_automation_closes_solved_tickets_four_days_after_the_clock_moves(in_world):
    agent = front_line_agent()
    ticket = Ticket.objects.filter(status="new", group__isnull=True).order_by("public_id").first()
    services.ticket_update(ticket=ticket, actor=agent, changes={"status": "solved"})
    services.clock_advance(seconds=3600 * 95)
    ticket.refresh_from_db()
    assert ticket.status == "solved"
    services.clock_advance(seconds=3600 * 2)
    ticket.refresh_from_db()
    assert ticket.status == "closed"
    assert (
        TicketEvent.objects.get(ticket=ticket, field="status", to_value="closed").rule
        == "Close solved tickets after 4 days"
    )
    before = TicketEvent.objects.count()
    assert services.automations_run() == 0 and TicketEvent.objects.count() == before


def test_merge_closes_the_source_into_the_target_with_notes_on_both(in_world):
    source, target = Ticket.objects.filter(status="open").order_by("public_id")[:2]
    services.ticket_merge(source=source, target=target, actor=front_line_agent())
    source.refresh_from_db()
    assert source.status == "closed" and source.merged_into == target
    assert Comment.objects.filter(ticket=target, public=False, body__contains=f"#{source.public_id}").exists()
    assert TicketEvent.objects.filter(ticket=target, kind="merge", to_value=str(source.public_id)).exists()
    with unchanged(), pytest.raises(ValidationError, match="is closed and cannot be merged"):
        services.ticket_merge(source=source, target=target, actor=front_line_agent())
    with unchanged(), pytest.raises(ValidationError, match="into itself"):
        services.ticket_merge(source=target, target=target, actor=front_line_agent())


def test_bulk_update_changes_all_tickets_or_none(in_world):
    agent = front_line_agent()
    tickets = list(Ticket.objects.filter(status="open").order_by("public_id")[:3])
    services.tickets_bulk_update(tickets=tickets, actor=agent, changes={"priority": "high", "add_tags": ["bulk"]})
    assert all(t.priority == "high" and "bulk" in t.tags for t in Ticket.objects.filter(pk__in=[t.pk for t in tickets]))
    closed = Ticket.objects.filter(status="closed").first()
    batch = list(Ticket.objects.filter(status="open").order_by("public_id")[:2]) + [closed]
    with unchanged(), pytest.raises(ValidationError, match=rf"Ticket #{closed.public_id}: .* No ticket was changed"):
        services.tickets_bulk_update(tickets=batch, actor=agent, changes={"priority": "low"})


def test_macro_apply_fills_the_form_with_rendered_placeholders_and_saves_nothing(in_world):
    ticket = an_open_ticket()
    macro = Macro.objects.get(title="Request identity verification")
    values = {"status": "open", "tags": "account", "comment": "", "assignee": str(ticket.assignee.public_id)}
    with unchanged():
        out = services.macro_apply(ticket=ticket, macro=macro, actor=ticket.assignee, values=values)
    assert out["status"] == "pending" and out["tags"] == "account verification_requested"
    assert out["comment"].startswith(f"Hi {ticket.requester.first_name},") and out["comment"].endswith(
        ticket.assignee.first_name
    )
    assert "{{" not in out["comment"] and out["comment_mode"] == "public"


def test_macro_submit_applies_and_records_the_macro(in_world):
    ticket = an_open_ticket(group__name="Support")
    macro = Macro.objects.get(title="Escalate to Tier 2 Billing")
    services.macro_submit(ticket=ticket, macro=macro, actor=ticket.assignee)
    ticket.refresh_from_db()
    assert ticket.group.name == "Tier 2 Billing" and ticket.assignee is None and "escalated" in ticket.tags
    assert TicketEvent.objects.filter(ticket=ticket, via="macro", rule=macro.title, field="group").exists()
    assert Comment.objects.filter(ticket=ticket, public=False, body__startswith="Escalating to Tier 2 Billing").exists()


def test_agent_sign_in_accepts_the_seeded_password_only(in_world):
    from replicas.supportdesk.policies import agent_password

    agent = front_line_agent()
    password = agent_password(seed=current_world().seed, agent_public_id=agent.public_id)
    assert services.agent_sign_in(email=agent.email.upper(), password=password) == agent
    for email, pw in [
        (agent.email, password + "x"),
        ("nobody@helpdesk.example", password),
        (customer(0).email, password),
        ("", ""),
    ]:
        with pytest.raises(ValidationError, match="Invalid email or password"):
            services.agent_sign_in(email=email, password=pw)
    User.objects.filter(pk=agent.pk).update(suspended=True)
    with pytest.raises(ValidationError):
        services.agent_sign_in(email=agent.email, password=password)


def test_requesters_cannot_change_fields_or_write_internal_notes(in_world):
    ticket = an_open_ticket()
    with unchanged(), pytest.raises(ValidationError, match="only reply"):
        services.ticket_update(ticket=ticket, actor=ticket.requester, changes={"priority": "urgent"})
    with unchanged(), pytest.raises(ValidationError, match="internal notes"):
        services.comment_add(ticket=ticket, author=ticket.requester, body="psst", public=False)


def test_clock_advance_runs_pending_reminders_once(in_world):
    # a new world has had its automations run up to its clock: take a ticket they left alone
    ticket = Ticket.objects.filter(status="pending").exclude(events__via="automation").order_by("public_id").first()
    Ticket.objects.filter(pk=ticket.pk).update(updated_at=clock.now() - timedelta(hours=80), tags=["x"])
    services.clock_advance(seconds=60)
    ticket.refresh_from_db()
    assert "reminded" in ticket.tags
    assert Comment.objects.filter(ticket=ticket, body__contains="we're still waiting for your reply").count() == 1
