"""In a real Chromium: the keyboard shortcuts as the product has them (c, /, j/k, e, a, i, m, l, ?),
the mention picker, a card opening in the side panel, on the board and on the issue page, and the
Create dialog over the page."""

from datetime import date, timedelta

import pytest
from django.conf import settings

from episodes.engine.browser import shared_browser
from episodes.engine.server import replica_server
from replicas.board import services
from replicas.board.models import Issue, Person
from replicas.worlds.registry import get_replica
from replicas.worlds.routing import world_origin, world_url
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create

TIMEOUT = 20_000  # ms: generous, the machine is shared
# sqlite_only: the pages' scripts in a browser; the views they call are tested on both backends
pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def browser_page(transactional_db):
    """A signed-in page of a fresh board world, in the engine's shared Chromium (one Playwright per process:
    a second sync Playwright beside it would refuse to start)."""
    world = world_create(replica="board", seed=7, variant="small")
    user = get_replica("board").sign_in(world)
    _, port = replica_server()
    context = shared_browser().new_context(viewport={"width": 1440, "height": 900})
    try:
        context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": user.session_key, "url": world_origin(world, port)}]
        )
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.url_for = lambda path: world_url(world, path, port=port)
        page.world = world
        yield page
    finally:
        context.close()  # the replica server stays up for the process's next tests (it is a gunicorn child)


def _blur(page):
    page.evaluate("document.activeElement && document.activeElement.blur()")


def _focused(page) -> str:
    return page.evaluate("document.activeElement.id")


@pytest.mark.browser
def test_every_shortcut_does_what_the_help_dialog_says(browser_page):
    page = browser_page
    with bound_world(page.world):
        me = Person.objects.filter(active=True, is_admin=True).order_by("public_id").first()
    page.goto(page.url_for("/projects/AGENT/board"))
    page.keyboard.press("?")
    assert page.locator("#shortcuts-dialog").is_visible()
    for key in ("c", "/", "j", "k", "e", "a", "i", "m", "l", "?"):
        assert page.locator(f"#shortcuts-dialog kbd:text-is('{key}')").count() == 1, key
    page.keyboard.press("Escape")
    # keys typed while the dialog is still open belong to it (a person sees it close first)
    page.locator("#shortcuts-dialog").wait_for(state="hidden")
    # the Help menu's item opens the same dialog, and the menu closes behind it
    page.locator("summary[aria-label='Help']").click()
    page.locator("[data-shortcuts-open]").click()
    assert page.locator("#shortcuts-dialog").is_visible() and not page.locator("[data-shortcuts-open]").is_visible()
    page.keyboard.press("Escape")
    page.locator("#shortcuts-dialog").wait_for(state="hidden")
    # j / k walk the cards
    cards = page.locator(".card")
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("k")
    first = cards.nth(0)
    assert "is-selected" in first.get_attribute("class")
    key = first.get_attribute("data-key")
    # i assigns the selected card to me; the board refreshes in place
    page.keyboard.press("i")
    page.wait_for_function(
        "([k, name]) => document.querySelector(`[data-key='${k}'] .avatar`).getAttribute('aria-label') === name",
        arg=[key, me.name],
    )
    with bound_world(page.world):
        assert Issue.objects.get(key=key).assignee_id == me.id
    # a opens the selected card in the side panel with the assignee field focused
    page.keyboard.press("j")
    page.keyboard.press("a")
    page.wait_for_url(f"**selectedIssue={key}#edit-a")
    page.wait_for_function("document.activeElement.id === 'id_assignee'")
    # on the open issue: e, m, l, a focus their fields
    for shortcut, field in (("e", "id_summary"), ("m", "id_body"), ("l", "id_labels"), ("a", "id_assignee")):
        _blur(page)
        page.keyboard.press(shortcut)
        assert _focused(page) == field, shortcut
    _blur(page)
    page.keyboard.press("/")
    assert _focused(page) == "quick-search"
    _blur(page)
    page.keyboard.press("c")
    page.locator("#modal-dialog[open] #id_summary").wait_for()
    assert _focused(page) == "id_summary"


@pytest.mark.browser
def test_typing_at_offers_teammates_and_picking_one_writes_a_mention(browser_page):
    page = browser_page
    with bound_world(page.world):
        mate = Person.objects.filter(active=True, is_admin=False).order_by("public_id").first()
        issue = Issue.objects.filter(project__key="AGENT", number=5).get()
    page.goto(page.url_for(f"/projects/AGENT/board?selectedIssue={issue.key}"))
    page.locator("#id_body").click()
    page.keyboard.type(f"Please look @{mate.name.split()[0][:3]}")
    option = page.get_by_role("option", name=f"{mate.name} (@{mate.username})")
    option.wait_for()
    option.click()
    # the box shows the person, not the markup; saving sends the product's [~username]
    assert page.locator("#id_body").input_value() == f"Please look @{mate.name} "
    assert page.locator(".mention-chips .mention").inner_text() == f"@{mate.name}"
    page.locator("#comment-save").click()
    page.wait_for_url(f"**selectedIssue={issue.key}#comments")
    assert page.locator(f".comment .mention[data-username='{mate.username}']").first.inner_text() == f"@{mate.name}"
    with bound_world(page.world):
        assert issue.comments.order_by("-public_id").first().body == f"Please look [~{mate.username}]"


@pytest.mark.browser
def test_a_card_opens_the_panel_in_place_and_at_1280_px_two_columns_stay_in_view(browser_page):
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(page.url_for("/projects/AGENT/board"))
    page.evaluate("window.__noReload = true")  # gone if the page is loaded again
    card = page.locator(".card").nth(1)
    key = card.get_attribute("data-key")
    card.locator(".card__foot").click()  # anywhere on the card, not only its summary link
    page.locator(f"[data-panel] a[href='/browse/{key}']").first.wait_for()
    assert page.evaluate("window.__noReload") is True
    assert page.url.endswith(f"selectedIssue={key}") and "card--selected" in card.get_attribute("class")
    head = page.locator(".boardpage__board .pagehead")
    title = head.locator("h1")
    # one line: the header is no taller than its tallest child
    assert head.bounding_box()["height"] <= max(title.bounding_box()["height"], 40) + 1
    board = page.locator(".boardpage__board .board").bounding_box()
    edge = min(board["x"] + board["width"], page.locator("[data-panel]").bounding_box()["x"])
    columns = page.locator(".boardpage__board .column").all()
    in_view = [c for c in columns if c.bounding_box()["x"] + c.bounding_box()["width"] <= edge + 0.5]
    assert len(in_view) >= 2, [c.bounding_box() for c in columns]
    page.locator("#panel-close").click()
    page.locator("[data-panel]").wait_for(state="detached")
    assert page.evaluate("window.__noReload") is True and "selectedIssue" not in page.url


@pytest.mark.browser
def test_inline_edit_escape_puts_the_value_back_and_enter_saves(browser_page):
    page = browser_page
    with bound_world(page.world):
        issue = Issue.objects.filter(project__key="AGENT", number=5).get()
    page.goto(page.url_for(f"/browse/{issue.key}"))
    labels = page.locator("#id_labels")
    assert not page.locator("#save-labels").is_visible()
    labels.click()
    labels.fill("triaged")
    assert page.locator("#save-labels").is_visible()
    page.keyboard.press("Escape")
    assert labels.input_value() == " ".join(issue.labels) and not page.locator("#save-labels").is_visible()
    labels.fill("triaged")
    with page.expect_navigation():
        labels.press("Enter")
    assert "updated: Labels." in page.locator("[role=status]").first.inner_text()
    with bound_world(page.world):
        issue.refresh_from_db()
        assert issue.labels == ["triaged"]


@pytest.mark.browser
def test_the_create_dialog_shows_the_work_types_fields_switches_space_and_creates_another(browser_page):
    page = browser_page
    page.goto(page.url_for("/projects/AGENT/backlog"))
    page.evaluate("window.__noReload = true")
    page.locator(".topnav__create").click()
    dialog = page.locator("#modal-dialog[open]")
    dialog.locator("#id_summary").wait_for()
    steps = dialog.locator("#id_steps_to_reproduce")
    assert not steps.is_visible() and steps.is_disabled()  # a story has no steps to reproduce
    dialog.locator("#id_issue_type").select_option("bug")
    assert steps.is_visible() and not steps.is_disabled()
    dialog.locator("#id_issue_type").select_option("task")
    assert not steps.is_visible()
    # another space: the dialog is fetched again for it, keeping the work type; OPS plans no sprints
    dialog.locator("#create-space").select_option("OPS")
    dialog.locator("form[action='/projects/OPS/issues/new']").wait_for()
    assert dialog.locator("#id_issue_type").input_value() == "task" and dialog.locator("#id_sprint").count() == 0
    dialog.locator("#id_summary").fill("Rotate the on-call pager")
    dialog.locator("#id_create_another").check()
    dialog.locator("#create-submit").click()
    dialog.locator("[role=status] a").wait_for()
    made = dialog.locator("[role=status] a").inner_text()
    # the dialog stays open and empty, on the same space and type, with "Create another" still ticked
    assert dialog.locator("#id_summary").input_value() == "" and dialog.locator("#id_create_another").is_checked()
    assert dialog.locator("#id_issue_type").input_value() == "task"
    with bound_world(page.world):
        issue = Issue.objects.get(key=made)
        assert (issue.project.key, issue.issue_type, issue.summary) == ("OPS", "task", "Rotate the on-call pager")
    # a refused value keeps the dialog open with the error under its field; nothing is created
    dialog.locator("#id_create_another").uncheck()
    dialog.locator("#id_summary").fill("Rotate the backup pager")
    dialog.locator("#id_epic").fill("NOPE-1")
    dialog.locator("#create-submit").click()
    dialog.locator(".field__error").wait_for()
    assert dialog.locator(".field__error").inner_text() == "NOPE-1 is not an epic of OPS."
    assert page.evaluate("window.__noReload") is True
    dialog.locator("#id_epic").fill("")
    with page.expect_navigation():
        dialog.locator("#create-submit").click()
    assert page.url.endswith(f"/browse/OPS-{int(made.split('-')[1]) + 1}")


@pytest.mark.browser
def test_complete_and_start_sprint_open_as_dialogs_over_the_board(browser_page):
    page = browser_page
    page.goto(page.url_for("/projects/AGENT/board"))
    page.evaluate("window.__noReload = true")
    page.get_by_role("link", name="Complete sprint").click()
    dialog = page.locator("#modal-dialog[open]")
    dialog.locator("#id_move_to").wait_for()
    assert page.evaluate("window.__noReload") is True and page.locator("[data-board]").is_visible()
    dialog.locator("#id_move_to").select_option("new")
    with page.expect_navigation():
        dialog.locator("#complete-submit").click()
    assert page.url.endswith("/projects/AGENT/backlog") and "moved to AGENT Sprint" in page.inner_text("[role=status]")
    page.get_by_role("link", name="Start sprint").first.click()
    dialog.locator("#id_weeks").wait_for()
    end = dialog.locator("#id_end_date")
    dialog.locator("#id_weeks").select_option("1")
    start = dialog.locator("#sprint-start-date").input_value()
    assert end.input_value() == (date.fromisoformat(start) + timedelta(weeks=1)).isoformat()
    assert end.get_attribute("readonly") is not None
    dialog.locator("#id_weeks").select_option("custom")
    assert end.get_attribute("readonly") is None


@pytest.mark.browser
def test_board_search_filters_as_you_type_and_group_by_is_a_menu(browser_page):
    page = browser_page
    page.goto(page.url_for("/projects/AGENT/board"))
    page.evaluate("window.__noReload = true")
    key = page.locator(".card").nth(2).get_attribute("data-key")
    page.locator("#board-text").press_sequentially(key.lower(), delay=20)
    page.wait_for_function("document.querySelectorAll('.card').length === 1")
    assert page.locator(".card").get_attribute("data-key") == key and f"text={key.lower()}" in page.url
    assert page.evaluate("window.__noReload") is True and _focused(page) == "board-text"
    page.locator("#group-by").click()
    with page.expect_navigation():
        page.get_by_role("menuitemradio", name="Epic").click()
    assert page.locator("#group-by").inner_text() == "Group: Epic" and page.locator("[data-lane]").count() >= 1


@pytest.mark.browser
def test_the_jql_box_suggests_fields_operators_and_values_and_enter_runs_the_query(browser_page):
    page = browser_page
    page.goto(page.url_for("/issues"))
    box = page.locator("#jql")
    box.fill("")
    box.press_sequentially("stat", delay=20)
    suggest = page.locator("#jql-suggest")
    suggest.locator("li").first.wait_for()
    assert suggest.locator("li").all_inner_texts()[:2] == ["status", "statusCategory"]
    box.press("Enter")
    assert box.input_value() == "status "
    options = suggest.locator("li").all_inner_texts()
    assert options[:2] == ["=", "!="] and "was" in options
    box.press_sequentially("= ", delay=20)
    page.wait_for_function(
        "document.querySelector('#jql-suggest li') && !document.getElementById('jql-suggest').hidden"
    )
    assert '"In Progress"' in suggest.locator("li").all_inner_texts()
    box.press_sequentially('"In P', delay=20)
    page.wait_for_function("document.querySelectorAll('#jql-suggest li').length === 1")
    box.press("Tab")
    assert box.input_value() == 'status = "In Progress" '
    assert suggest.locator("li").all_inner_texts() == ["AND", "OR", "ORDER BY"]
    box.press("Escape")
    assert suggest.is_hidden()
    with page.expect_navigation():
        box.press("Enter")
    assert "status" in page.url and page.locator(".results__count").is_visible()


@pytest.mark.browser
def test_the_notifications_menu_fetches_its_items_when_first_opened(browser_page):
    page = browser_page
    with bound_world(page.world):
        me = Person.objects.filter(active=True, is_admin=True).order_by("public_id").first()
        other = Person.objects.filter(active=True).exclude(pk=me.pk).order_by("public_id").first()
        issue = Issue.objects.filter(project__key="AGENT").order_by("-number").first()
        services.comment_add(issue=issue, actor=other, body=f"[~{me.username}] can you look?")
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if r.url.endswith("/notifications") else None)
    page.goto(page.url_for("/projects/AGENT/board"))
    assert page.locator(".topnav__dot").count() == 1 and not fetched  # the page itself did not wait for them
    page.locator("details[data-notifications] > summary").click()
    newest = page.locator("details[data-notifications] .notif").first
    newest.wait_for()
    assert f"{other.name} mentioned you on {issue.key}" in newest.inner_text().replace("\n", " ")
    page.locator("details[data-notifications] > summary").click()  # closed and opened again: fetched once
    page.locator("details[data-notifications] > summary").click()
    assert len(fetched) == 1
