"""In a real Chromium: the interstitial blocks the page until dismissed; the layout shift moves content under the
pointer.
"""

import pytest

from episodes.engine.browser import shared_browser
from replicas.worlds.faults import fault_events, world_step
from replicas.worlds.routing import world_url

# sqlite_only: what is checked happens in Chromium (an overlay, a layout shift); the fault engine's rows are
# tested on both backends by the other fault tests
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only]


@pytest.fixture
def page_of(live_server):
    port = int(live_server.url.rsplit(":", 1)[1])
    contexts = []

    def open_page(world, path):
        context = shared_browser().new_context(viewport={"width": 1024, "height": 700})
        contexts.append(context)
        page = context.new_page()
        page.goto(world_url(world, path, port=port))
        return page

    yield open_page
    for context in contexts:
        context.close()


def element_at(page, box) -> str:
    return page.evaluate(
        "([x, y]) => { const e = document.elementFromPoint(x, y); return e.id || e.className || e.tagName; }",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )


def test_the_interstitial_covers_the_page_until_dismissed(make_world, page_of):
    world = make_world(faults=[{"name": "interstitial", "params": {"kind": "new_version"}}])
    page = page_of(world, "/p/tickets")
    dialog = page.get_by_role("dialog", name="A new version is available")
    assert dialog.is_visible()
    target = page.locator("#target").bounding_box()
    assert element_at(page, target) == "rg-interstitial-0"  # the backdrop: the Save button cannot be reached
    page.get_by_role("button", name="Remind me later").click()
    dialog.wait_for(state="detached")
    assert element_at(page, target) == "target"
    assert page.url.endswith("/p/tickets")  # closed in place, no reload
    events = fault_events(world=world)
    assert [(e["event"], e["detail"]) for e in events] == [
        ("fired", {"kind": "new_version"}),
        ("recovered", {"choice": "later"}),
    ]
    page.reload()
    assert page.get_by_role("dialog").count() == 0


def test_the_layout_shift_moves_the_target_from_under_the_pointer(make_world, page_of):
    world = make_world(faults=[{"name": "layout_shift", "params": {"shift_px": 100}}])
    page = page_of(world, "/p/tickets")
    before = page.locator("#target").bounding_box()
    assert page.locator(".rg-shift-banner").count() == 0  # nothing moves until the pointer does
    page.mouse.move(before["x"] + 5, before["y"] + 5)
    page.locator(".rg-shift-banner").wait_for()
    after = page.locator("#target").bounding_box()
    assert after["y"] - before["y"] >= 100 and after["x"] == before["x"]
    assert element_at(page, before) != "target"
    page.get_by_role("link", name="Try it now").click()
    page.wait_for_url("**/p/tickets")
    assert [e["event"] for e in fault_events(world=world)] == ["fired", "misclick"]


def test_an_interstitial_due_mid_page_arrives_with_the_next_htmx_answer(make_world, page_of):
    world = make_world(faults=[{"name": "interstitial", "params": {"kind": "product_tour"}, "trigger": {"step": 1}}])
    world_step(world=world, index=0)
    page = page_of(world, "/queue")
    assert page.get_by_role("dialog").count() == 0
    world_step(world=world, index=1)
    page.get_by_role("button", name="More").click()
    dialog = page.get_by_role("dialog", name="Welcome to the new Agent Workspace")
    dialog.wait_for()
    assert page.locator("#rows td").count() == 1  # the htmx swap itself went through
    page.get_by_role("button", name="Skip tour").click()
    dialog.wait_for(state="detached")
    assert page.url.endswith("/queue")
    assert [(e["event"], e["at_step"]) for e in fault_events(world=world)] == [("fired", 1), ("recovered", 1)]
