"""The workspace in a real Chromium: keyboard shortcuts and the Orders & Billing app."""

import re

import pytest
from django.conf import settings

from episodes.engine.browser import shared_browser
from replicas.supportdesk.signin import agent_session
from replicas.worlds.routing import world_origin, world_url

# sqlite_only: the pages' scripts (shortcuts, the billing app) are checked; the views they call are tested on both
# backends
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only]


@pytest.fixture
def signed_in_page(live_server):
    port = int(live_server.url.rsplit(":", 1)[1])
    contexts = []

    def open_page(world, path):
        key, _ = agent_session(world)
        context = shared_browser().new_context(viewport={"width": 1280, "height": 800})
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": key, "url": world_origin(world, port)}])
        contexts.append(context)
        page = context.new_page()
        page.goto(world_url(world, path, port=port))
        return page

    yield open_page
    for context in contexts:
        context.close()


def test_question_mark_opens_the_shortcuts_dialog_and_j_enter_opens_a_ticket(make_world, signed_in_page):
    world = make_world()
    page = signed_in_page(world, "/agent/filters/recently-updated")
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    assert dialog.is_visible()
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    page.keyboard.press("j")
    page.keyboard.press("j")
    second = page.locator("tr.is-focused").get_attribute("data-href")
    assert second == page.locator("tbody tr[data-href]").nth(1).get_attribute("data-href")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{second}")
    assert page.locator("[data-ticket-form]").count() == 1


def test_selecting_rows_shows_the_bulk_bar(make_world, signed_in_page):
    world = make_world()
    page = signed_in_page(world, "/agent/filters/recently-updated")
    bar = page.locator("[data-bulk-bar]")
    assert not bar.is_visible()
    page.locator("tbody input[name=tickets]").nth(0).check()
    page.locator("tbody input[name=tickets]").nth(1).check()
    assert bar.is_visible() and page.locator("[data-selected-count]").inner_text() == "2"


def _ticket_with_payment(world):
    from replicas.supportdesk.models import Payment, Ticket
    from replicas.worlds.scoping import bound_world

    with bound_world(world):
        for payment in Payment.objects.filter(status="succeeded", refunds__isnull=True).order_by("public_id"):
            ticket = Ticket.objects.filter(requester=payment.customer).order_by("public_id").first()
            if ticket is not None:
                return ticket, payment
        raise AssertionError("the seed has no customer with a ticket and an unrefunded payment")


def test_billing_app_loads_orders_and_shows_the_apis_refusal_in_the_refund_form(make_world, signed_in_page):
    from replicas.worlds.snapshot import snapshot, state_hash

    world = make_world()
    ticket, payment = _ticket_with_payment(world)
    page = signed_in_page(world, f"/agent/tickets/{ticket.public_id}")
    page.get_by_role("button", name="Load orders").click()
    page.locator("[data-billing-state=loaded]").wait_for()
    row = page.locator(f"[data-payment='{payment.public_id}']")
    assert row.is_visible()
    before = state_hash(snapshot(world))
    row.get_by_role("button", name=f"Refund payment {payment.public_id}").click()
    form = page.locator(f"[data-refund-form='{payment.public_id}']")
    form.get_by_label("Partial").check()
    form.get_by_label(f"Amount ({payment.currency})").fill(str(payment.amount * 10))
    form.get_by_label("Reason").select_option("goodwill")
    form.get_by_role("button", name="Issue refund").click()
    alert = form.get_by_role("alert")
    alert.wait_for()
    assert alert.inner_text().strip()  # the API's own message, shown in the form
    assert state_hash(snapshot(world)) == before


def test_events_toggle_swaps_the_pane_and_keeps_the_url(make_world, signed_in_page):
    from replicas.supportdesk.models import Ticket
    from replicas.worlds.scoping import bound_world

    world = make_world()
    with bound_world(world):
        number = Ticket.objects.filter(status="open").order_by("public_id").first().public_id
    page = signed_in_page(world, f"/agent/tickets/{number}")
    page.get_by_role("link", name="Events").click()
    page.wait_for_url(f"**/agent/tickets/{number}/events")
    page.locator("ol.events").wait_for()
    assert page.get_by_role("link", name="Events").get_attribute("aria-current") == "page"
    assert page.locator("[data-ticket-form]").count() == 1  # the rest of the page stayed


def test_refund_posted_by_the_billing_app_succeeds_with_production_cookies_and_stays_confirmed(
    make_world, signed_in_page
):
    """Production marks the CSRF cookie HttpOnly: the app must take the token from the page, not document.cookie.
    The confirmation outlives the reload of the orders that follows the refund (it used to be drawn over by it)."""
    from replicas.supportdesk.models import Refund
    from replicas.worlds.scoping import bound_world

    assert (
        settings.CSRF_COOKIE_HTTPONLY and settings.SESSION_COOKIE_HTTPONLY and not settings.DEBUG
    )  # conftest.production_security
    world = make_world()
    ticket, payment = _ticket_with_payment(world)
    page = signed_in_page(world, f"/agent/tickets/{ticket.public_id}")
    assert "csrftoken" not in page.evaluate("document.cookie")  # HttpOnly: invisible to scripts
    page.get_by_role("button", name="Load orders").click()
    page.locator("[data-billing-state=loaded]").wait_for()
    page.locator(f"[data-payment='{payment.public_id}']").get_by_role(
        "button", name=f"Refund payment {payment.public_id}"
    ).click()
    form = page.locator(f"[data-refund-form='{payment.public_id}']")
    form.get_by_label("Reason").select_option("goodwill")
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith(f"/payments/{payment.public_id}/refunds")
    ) as posted:
        form.get_by_role("button", name="Issue refund").click()
    assert posted.value.status == 201, posted.value.text()
    with bound_world(world):
        refund = Refund.objects.get(payment=payment)
    assert refund.ticket == ticket and refund.agent is not None
    # the orders are drawn again with the refund in them, and the confirmation stays above them
    page.locator(f"[data-payment='{payment.public_id}'] .pay__refunds").wait_for()
    notice = page.locator("[data-billing-body] > [role=status]").inner_text()
    assert re.fullmatch(r"Refund \S+ of \S+ issued\.", notice), notice
