"""The engine keeps where each action's target was before it ran, for the episode viewer to outline."""

import pytest

from tests.browser.conftest import browser, open_session, page_server  # noqa: F401 - fixtures

# sqlite_only: a session on static pages that never touches the database
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only]


def _box_of(session, selector):
    return session.page.locator(selector).bounding_box()


def test_element_and_pixel_actions_record_their_targets_box_and_others_none(open_session):  # noqa: F811
    session = open_session("/form.html")
    expected = _box_of(session, "#subject")
    filled = session.step('fill("#subject", "Refund")')
    assert filled.error == "" and filled.target_box == {k: round(v, 1) for k, v in expected.items()}
    heading = _box_of(session, "#heading")
    x, y = heading["x"] + 5, heading["y"] + heading["height"] / 2
    clicked = session.step(f"mouse_click({x}, {y})")  # a pixel agent's click: the element under the point
    assert clicked.target_box == {k: round(v, 1) for k, v in heading.items()}
    assert session.step('click("#no-such-thing")').target_box is None  # nothing there: nothing to outline
    assert session.step("scroll(0, 100)").target_box is None  # no element named
