"""The workspace in a real Chromium: keyboard shortcuts and the Orders & Billing app."""
import pytest
from django.conf import settings

from episodes.browser import shared_browser
from replicas.supportdesk.management.browser import agent_session
from replicas.worlds.routing import world_origin, world_url

pytestmark = pytest.mark.browser


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
