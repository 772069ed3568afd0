"""The agent workspace's pages through Django's test client: sign-in, views, ticket page, bulk update, merge."""

import pytest
from django.utils.html import escape

from replicas.supportdesk.models import Comment, Ticket, User
from replicas.supportdesk.signin import agent_session
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent_client(world, world_client):
    client = world_client(world)  # signed in as the desk's first administrator
    with bound_world(world):
        client.agent = User.objects.filter(role=User.Role.ADMIN).order_by("public_id").first()
    return client


def _open_ticket(world, **filters):
    with bound_world(world):
        return Ticket.objects.filter(status="open", merged_into__isnull=True, **filters).order_by("public_id").first()


def test_workspace_pages_redirect_to_login_without_a_session(world, world_client):
    client = world_client(world, signed_in=False)
    for path in ["/agent/filters/unsolved", "/agent/tickets/8001", "/agent/tickets/bulk"]:
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/auth/login?next=")


def test_htmx_request_without_session_gets_hx_redirect(world, world_client):
    response = world_client(world, signed_in=False).get("/agent/filters/unsolved", HTTP_HX_REQUEST="true")
    assert response.status_code == 204
    assert response["HX-Redirect"].startswith("/auth/login")


def test_login_page_rejects_bad_credentials_with_visible_error(world, world_client):
    client = world_client(world, signed_in=False)
    response = client.post("/auth/login", {"email": "nobody@example.com", "password": "x"})
    assert response.status_code == 400
    assert b"Invalid email or password" in response.content
    assert client.get("/agent/filters/unsolved").status_code == 302


def test_login_with_the_agents_password_signs_in_and_returns_to_next(world, world_client):
    from replicas.supportdesk.selectors import agent_password

    with bound_world(world):
        agent = User.objects.filter(role=User.Role.AGENT).order_by("public_id").first()
        password = agent_password(agent=agent)
    client = world_client(world, signed_in=False)
    wrong = client.post("/auth/login", {"email": agent.email, "password": password + "x"})
    assert wrong.status_code == 400
    response = client.post(
        "/auth/login", {"email": agent.email, "password": password, "next": "/agent/filters/pending"}
    )
    assert response.status_code == 302 and response["Location"] == "/agent/filters/pending"
    page = client.get("/agent/filters/pending").content.decode()
    assert agent.email in page  # the profile menu names who is signed in


def test_login_ignores_next_urls_off_the_site(world, world_client):
    from replicas.supportdesk.selectors import agent_password

    with bound_world(world):
        agent = User.objects.filter(role=User.Role.AGENT).order_by("public_id").first()
        password = agent_password(agent=agent)
    response = world_client(world, signed_in=False).post(
        "/auth/login", {"email": agent.email, "password": password, "next": "//evil.example/x"}
    )
    assert response["Location"] == "/agent/filters/your-unsolved"


def test_login_rejects_malformed_email(world, world_client):
    response = world_client(world, signed_in=False).post("/auth/login", {"email": "not-an-email", "password": "x"})
    assert response.status_code == 400
    assert b"valid email" in response.content


def test_session_of_another_world_is_not_accepted(make_world, world_client, settings):
    first, second = make_world(seed=7), make_world(seed=8)
    key, _ = agent_session(first)
    client = world_client(second, signed_in=False)
    client.cookies[settings.SESSION_COOKIE_NAME] = key
    assert client.get("/agent/filters/unsolved").status_code == 302


def test_sign_out_ends_the_session(agent_client):
    assert agent_client.get("/agent/filters/unsolved").status_code == 200
    agent_client.post("/auth/logout")
    assert agent_client.get("/agent/filters/unsolved").status_code == 302


def test_views_list_shows_views_with_counts_and_tickets(agent_client, world):
    response = agent_client.get("/agent/filters/unsolved")
    assert response.status_code == 200
    html = response.content.decode()
    with bound_world(world):
        unsolved = Ticket.objects.filter(
            status__in=["new", "open", "pending", "hold"], merged_into__isnull=True
        ).count()
    for title in [
        "Your unsolved tickets",
        "Unassigned tickets",
        "All unsolved tickets",
        "Pending tickets",
        "Recently solved tickets",
    ]:
        assert title in html
    assert f'<span class="views__count">{unsolved}</span>' in html
    assert 'class="status status--open"' in html


def test_unknown_view_is_404(agent_client):
    assert agent_client.get("/agent/filters/no-such-view").status_code == 404


def test_sorting_by_subject_orders_rows(agent_client, world):
    html = agent_client.get("/agent/filters/recently-updated?sort=subject").content.decode()
    with bound_world(world):
        first = Ticket.objects.filter(merged_into__isnull=True).order_by("subject", "-public_id").first()
    first_row = html[html.index("<tbody>") :].split('data-href="/agent/tickets/', 1)[1].split('"', 1)[0]
    assert first_row == str(first.public_id)


def test_pagination_second_page_and_htmx_fragment(agent_client):
    full = agent_client.get("/agent/filters/recently-updated?page=2")
    assert full.status_code == 200 and b"<html" in full.content
    fragment = agent_client.get("/agent/filters/recently-updated?page=2", HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200
    assert b"<html" not in fragment.content
    assert fragment.content.lstrip().startswith(b'<section class="views__body" id="view-body"')


def test_ticket_page_shows_conversation_properties_and_context(agent_client, world):
    with bound_world(world):
        note = Comment.objects.filter(public=False).select_related("ticket", "ticket__requester").first()
    html = agent_client.get(f"/agent/tickets/{note.ticket.public_id}").content.decode()
    assert escape(note.ticket.subject) in html
    assert "msg--note" in html and "Internal note" in html
    assert note.ticket.requester.email in html
    assert "Orders &amp; Billing" in html
    assert "Submit as" in html


def test_missing_ticket_is_404(agent_client):
    assert agent_client.get("/agent/tickets/1").status_code == 404


def test_submitting_a_reply_and_status_updates_the_ticket(agent_client, world):
    ticket = _open_ticket(world, assignee__isnull=False)
    data = _form_data(agent_client, ticket, comment="We have sent a replacement.", status="pending")
    response = agent_client.post(f"/agent/tickets/{ticket.public_id}", data)
    assert response.status_code == 302
    with bound_world(world):
        ticket.refresh_from_db()
        assert ticket.status == "pending"
        last = ticket.comments.order_by("-created_at", "-public_id").first()
        assert last.body == "We have sent a replacement." and last.public


def test_internal_note_is_saved_private(agent_client, world):
    ticket = _open_ticket(world)
    data = _form_data(agent_client, ticket, comment="Checked the ledger.", comment_mode="internal")
    agent_client.post(f"/agent/tickets/{ticket.public_id}", data)
    with bound_world(world):
        last = ticket.comments.order_by("-created_at", "-public_id").first()
        assert last.body == "Checked the ledger." and not last.public


def test_invalid_ticket_form_shows_errors_and_changes_nothing(agent_client, world):
    ticket = _open_ticket(world)
    before = state_hash(snapshot(world))
    data = _form_data(agent_client, ticket, requester="nobody@nowhere.example", order_number="12345", comment="hello")
    response = agent_client.post(f"/agent/tickets/{ticket.public_id}", data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "No user has the email address nobody@nowhere.example" in html
    assert "Order numbers look like ORD-12345" in html
    assert state_hash(snapshot(world)) == before


def test_empty_submission_is_refused(agent_client, world):
    ticket = _open_ticket(world)
    before = state_hash(snapshot(world))
    response = agent_client.post(f"/agent/tickets/{ticket.public_id}", _form_data(agent_client, ticket))
    assert response.status_code == 400
    assert b"Nothing to submit" in response.content
    assert state_hash(snapshot(world)) == before


def test_bulk_update_asks_for_confirmation_then_applies(agent_client, world):
    with bound_world(world):
        numbers = list(
            Ticket.objects.filter(status="open").order_by("public_id").values_list("public_id", flat=True)[:3]
        )
    form = agent_client.get("/agent/tickets/bulk", {"tickets": numbers})
    assert form.status_code == 200 and b"Update 3 tickets" in form.content
    data = {
        "tickets": numbers,
        "status": "pending",
        "add_tags": "bulk_checked",
        "assignee": "",
        "group": "",
        "remove_tags": "",
    }
    confirm = agent_client.post("/agent/tickets/bulk", data)
    assert confirm.status_code == 200 and b"Confirm and update 3 tickets" in confirm.content
    with bound_world(world):
        assert Ticket.objects.filter(public_id__in=numbers, status="pending").count() == 0
    done = agent_client.post("/agent/tickets/bulk", {**data, "confirm": "yes", "next": "/agent/filters/pending"})
    assert done.status_code == 302 and done["Location"] == "/agent/filters/pending"
    with bound_world(world):
        tickets = Ticket.objects.filter(public_id__in=numbers)
        assert {t.status for t in tickets} == {"pending"}
        assert all("bulk_checked" in t.tags for t in tickets)


def test_bulk_update_without_changes_or_with_unknown_ticket_is_refused(agent_client, world):
    before = state_hash(snapshot(world))
    nothing = agent_client.post("/agent/tickets/bulk", {"tickets": [8001], "confirm": "yes"})
    assert nothing.status_code == 400 and b"Choose at least one change" in nothing.content
    unknown = agent_client.post("/agent/tickets/bulk", {"tickets": [8001, 1], "status": "solved", "confirm": "yes"})
    assert unknown.status_code == 400 and b"No such ticket: #1" in unknown.content
    bad_tag = agent_client.post("/agent/tickets/bulk", {"tickets": [8001], "add_tags": "bad<tag>", "confirm": "yes"})
    assert bad_tag.status_code == 400 and b"Tags can only contain" in bad_tag.content
    assert state_hash(snapshot(world)) == before


def test_bulk_dialog_is_an_htmx_fragment(agent_client):
    response = agent_client.get("/agent/tickets/bulk", {"tickets": [8001]}, HTTP_HX_REQUEST="true")
    assert b"<html" not in response.content and b"modal-backdrop" in response.content


def test_merge_confirms_then_closes_source_into_target(agent_client, world):
    with bound_world(world):
        source, target = Ticket.objects.filter(status="open").order_by("public_id")[:2]
    confirm = agent_client.post(f"/agent/tickets/{source.public_id}/merge", {"target": target.public_id})
    assert confirm.status_code == 200 and b"Confirm and merge" in confirm.content
    done = agent_client.post(f"/agent/tickets/{source.public_id}/merge", {"target": target.public_id, "confirm": "yes"})
    assert done.status_code == 302 and done["Location"] == f"/agent/tickets/{target.public_id}"
    with bound_world(world):
        source.refresh_from_db()
        assert source.merged_into_id == target.id and source.status == "closed"


def test_merge_into_itself_or_missing_ticket_is_refused(agent_client, world):
    ticket = _open_ticket(world)
    before = state_hash(snapshot(world))
    itself = agent_client.post(
        f"/agent/tickets/{ticket.public_id}/merge", {"target": ticket.public_id, "confirm": "yes"}
    )
    assert itself.status_code == 400 and b"cannot be merged into itself" in itself.content
    missing = agent_client.post(f"/agent/tickets/{ticket.public_id}/merge", {"target": 99999, "confirm": "yes"})
    assert missing.status_code == 400 and b"Ticket #99999 does not exist" in missing.content
    assert state_hash(snapshot(world)) == before


def test_take_it_assigns_the_ticket_to_the_agent(agent_client, world):
    with bound_world(world):
        ticket = Ticket.objects.filter(status="new", assignee__isnull=True).order_by("public_id").first()
    agent_client.post(f"/agent/tickets/{ticket.public_id}/take")
    with bound_world(world):
        ticket.refresh_from_db()
        assert ticket.assignee.public_id == agent_client.agent.public_id


def test_opened_tickets_become_tabs_and_can_be_closed(agent_client, world):
    ticket = _open_ticket(world)
    agent_client.get(f"/agent/tickets/{ticket.public_id}")
    html = agent_client.get("/agent/filters/unsolved").content.decode()
    assert f"Close tab #{ticket.public_id}" in html
    agent_client.post(f"/agent/tabs/{ticket.public_id}/close")
    assert f"Close tab #{ticket.public_id}" not in agent_client.get("/agent/filters/unsolved").content.decode()


def _form_data(client, ticket, **overrides):
    """The ticket form as the page renders it, with `overrides`."""
    data = {
        "requester": ticket.requester.email,
        "assignee": str(ticket.assignee.public_id) if ticket.assignee_id else "",
        "group": str(ticket.group.public_id) if ticket.group_id else "",
        "tags": " ".join(ticket.tags),
        "type": ticket.type,
        "priority": ticket.priority,
        "order_number": getattr(ticket, "order_number", ""),
        "refund_type": getattr(ticket, "refund_type", ""),
        "comment": "",
        "comment_mode": "public",
        "status": ticket.status,
    }
    data.update(overrides)
    return data


def test_search_page_applies_the_filter_syntax(agent_client, world):
    response = agent_client.get("/agent/search", {"q": "status:open tags:billing"})
    assert response.status_code == 200
    html = response.content.decode()
    with bound_world(world):
        expected = [t for t in Ticket.objects.filter(status="open") if "billing" in t.tags]
        other = Ticket.objects.exclude(status="open").order_by("public_id").first()
    assert expected, "the seed has open billing tickets"
    for t in expected[:5]:
        assert f'data-href="/agent/tickets/{t.public_id}"' in html
    assert f'data-href="/agent/tickets/{other.public_id}"' not in html


def test_search_with_an_unknown_field_shows_the_error(agent_client):
    response = agent_client.get("/agent/search", {"q": "colour:blue"})
    assert response.status_code == 400
    assert b"Unknown search field" in response.content


def test_applying_a_macro_fills_the_form_without_saving(agent_client, world):
    from replicas.supportdesk.models import Macro

    ticket = _open_ticket(world)
    with bound_world(world):
        macro = next(
            m
            for m in Macro.objects.filter(active=True).order_by("position")
            if any(a["field"] == "comment_value" for a in m.actions)
        )
    before = state_hash(snapshot(world))
    data = _form_data(agent_client, ticket, macro=str(macro.public_id), apply_macro="1")
    response = agent_client.post(f"/agent/tickets/{ticket.public_id}", data)
    assert response.status_code == 200
    html = response.content.decode()
    assert escape(f"Macro “{macro.title}” applied") in html
    textarea = html.split('id="id_comment"', 1)[1].split("</textarea>", 1)[0]
    assert textarea.split(">", 1)[1].strip(), "the macro's comment is in the composer"
    assert state_hash(snapshot(world)) == before


def test_events_view_lists_the_tickets_audit_log(agent_client, world):
    ticket = _open_ticket(world, assignee__isnull=False)
    agent_client.post(f"/agent/tickets/{ticket.public_id}", _form_data(agent_client, ticket, priority="urgent"))
    full = agent_client.get(f"/agent/tickets/{ticket.public_id}/events").content.decode()
    log = full.split('id="conv-body"', 1)[1]
    assert "priority" in log.lower() and "urgent" in log.lower()
    fragment = agent_client.get(f"/agent/tickets/{ticket.public_id}/events", HTTP_HX_REQUEST="true")
    assert fragment.content.lstrip().startswith(b'<ol class="conv__list events" id="conv-body">')


def test_views_table_shows_sla_badges_from_the_world_clock(agent_client):
    html = agent_client.get("/agent/filters/unsolved").content.decode()
    assert 'class="sla sla--' in html


def test_new_ticket_form_opens_a_ticket_for_a_customer(agent_client, world):
    with bound_world(world):
        customer = User.objects.filter(role=User.Role.END_USER).order_by("public_id").first()
        top = Ticket.objects.order_by("-public_id").first().public_id
    assert agent_client.get("/agent/tickets/new").status_code == 200
    response = agent_client.post(
        "/agent/tickets/new",
        {
            "requester": customer.email,
            "subject": "Phone call: parcel lost",
            "comment": "Called in about a lost parcel.",
            "priority": "high",
            "type": "",
        },
    )
    assert response.status_code == 302 and response["Location"] == f"/agent/tickets/{top + 1}"
    with bound_world(world):
        ticket = Ticket.objects.get(public_id=top + 1)
        assert (
            ticket.requester_id == customer.id
            and ticket.priority == "high"
            and ticket.subject == "Phone call: parcel lost"
        )


def test_new_ticket_for_an_unknown_requester_is_refused(agent_client, world):
    before = state_hash(snapshot(world))
    response = agent_client.post(
        "/agent/tickets/new", {"requester": "ghost@nowhere.example", "subject": "x", "comment": "y"}
    )
    assert (
        response.status_code == 400 and b"No customer has the email address ghost@nowhere.example" in response.content
    )
    assert state_hash(snapshot(world)) == before


def test_conversations_toggle_gets_only_the_conversation_for_htmx(agent_client, world):
    ticket = _open_ticket(world)
    fragment = agent_client.get(f"/agent/tickets/{ticket.public_id}", HTTP_HX_REQUEST="true")
    assert fragment.content.lstrip().startswith(b'<ol class="conv__list" id="conv-body">')


def test_take_it_on_a_ticket_of_a_group_the_agent_is_not_in_is_refused_with_the_reason(agent_client, world):
    """It answered 500: the refusal was added to an unbound form, which has no cleaned_data."""
    with bound_world(world):
        agent = agent_client.agent
        ticket = (
            Ticket.objects.filter(status="open", group__isnull=False, merged_into__isnull=True)
            .exclude(group__in=agent.memberships.values("group"))
            .order_by("public_id")
            .first()
        )
        assert ticket is not None, "the seed has a ticket of a group the administrator is not in"
        before = state_hash(snapshot(world))
    response = agent_client.post(f"/agent/tickets/{ticket.public_id}/take")
    assert response.status_code == 400
    page = response.content.decode()
    assert escape(f"{agent.name} is not a member of the group {ticket.group.name}") in page
    assert "c-field__message--error" not in page and "submit__error" not in page  # the refusal alone, no field noise
    with bound_world(world):
        assert state_hash(snapshot(world)) == before
