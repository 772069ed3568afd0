"""Observation modes in a real Chromium: no capture without screenshots, a reference solution played
from the text mode's bids alone, and URLs in display form taken back by goto."""

import re

import pytest

from episodes.creation import episode_create
from episodes.driver import EpisodeDriver
from episodes.engine.observation import DISPLAY_ORIGIN, render_observation
from episodes.models import Episode
from tests.pack_episodes import sync_tasks
from verifiers.actions import is_bid, parse_action

# sqlite_only: what the observation modes render from a page; the engine's episodes are tested on both backends
# (tests/episodes/test_engine.py)
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only]


def cdp_methods(session) -> list[str]:
    """The CDP methods the session's observations send from now on (recorded on its CDP session)."""
    cdp = session._cdp(session._active_tab())
    impl, sent = cdp._impl_obj, []
    original = impl.send

    def send(method, params, *rest):
        sent.append(method)
        return original(method, params, *rest)

    impl.send = send
    return sent


def test_without_screenshots_the_compositor_is_never_asked_and_observations_carry_no_picture(open_session):
    with_pictures, without = open_session(), open_session(screenshots=False)
    sent_with, sent_without = cdp_methods(with_pictures), cdp_methods(without)
    assert with_pictures.observe().screenshot.startswith(b"\x89PNG")
    obs = without.observe()
    assert obs.screenshot == b"" and "textbox 'Subject'" in obs.axtree
    assert without.step('fill("#subject", "Printer on fire")').observation.screenshot == b""
    assert "Page.captureScreenshot" in sent_with
    assert "Page.captureScreenshot" not in sent_without and "Accessibility.getFullAXTree" in sent_without
    # the DOM is read for the bids of a new document, then the DOM agent is turned off at once: it would
    # report every later change of the page to this session
    assert sent_without.count("DOM.getDocument") == 1 and sent_without.count("DOM.disable") == 1
    assert sent_without.index("DOM.disable") == sent_without.index("DOM.getDocument") + 1


def driver_calls(session, monkeypatch) -> list[str]:
    """The Playwright calls (round trips to its driver) the session makes from now on, by method."""
    connection, sent = session.page._impl_obj._connection, []
    original = connection.send_message_to_server

    def send(owner, method, params, options):
        if method != "__waitInfo__":
            sent.append(method)
        return original(owner, method, params, options)

    monkeypatch.setattr(connection, "send_message_to_server", send)
    return sent


def test_a_step_looks_its_element_up_once_and_settles_without_a_second_round_trip(open_session, monkeypatch):
    session = open_session(screenshots=False)
    subject = re.search(r"\[(\w+)\] textbox 'Subject'", session.observe().axtree)[1]
    sent = driver_calls(session, monkeypatch)
    # a selector: how many elements match and the first one's bid come in one call, which the action then trusts
    result = session.step('fill("#subject", "Printer on fire")')
    assert result.error == "" and result.target_bid == subject
    assert sent.count("evalOnSelectorAll") == 1 and "queryCount" not in sent and "getAttribute" not in sent
    # the settle's answer (the tabs the page opened) comes with its handle: no jsonValue
    assert "waitForFunction" in sent and "jsonValue" not in sent
    sent.clear()
    # a bid needs no lookup for its bid: only the count that fails a missing element at once
    assert session.step(f'fill("{subject}", "x")').error == "" and sent.count("queryCount") == 1
    missing = session.step('click("#no-such-element")')
    assert missing.error == "click: no element matches selector '#no-such-element' on this page"
    assert missing.target_bid is None


def test_goto_takes_a_url_in_display_form_and_still_refuses_other_origins(open_session, page_server):
    session = open_session()
    result = session.step(f'goto("{DISPLAY_ORIGIN}/second.html?x=1")')
    assert result.error == "" and result.observation.url == page_server + "/second.html?x=1"
    assert render_observation(result.observation, "text").startswith(f"URL: {DISPLAY_ORIGIN}/second.html?x=1\n")
    for url in ("http://world.test:8080/form.html", "https://world.test/form.html", "http://evil.world.test/"):
        refused = session.step(f'goto("{url}")')
        assert refused.error.startswith(f"goto('{url}') was refused"), refused.error
        assert refused.observation.url == page_server + "/second.html?x=1"


@pytest.mark.django_db(transaction=True)
def test_a_reference_solution_passes_in_text_mode_without_screenshots_acting_on_the_bids_the_text_shows(tmp_path):
    """Each reference action's element is looked up by its selector, then the action is sent with the bid
    the element carries, after checking that bid is in the text the agent was given: the text mode
    shows an agent everything the solution needs, and the episode stores no picture."""
    (task,) = sync_tasks("testbed", ["rename-note"], tmp_path / "pack")
    settings = {"observation": {"mode": "text", "screenshots": False}}
    episode = episode_create(task=task, agent="script", status=Episode.Status.RUNNING, agent_settings=settings)
    driver = EpisodeDriver(episode)
    obs = driver.open()
    played = []
    for text in episode.instance.reference_solution:
        shown = render_observation(obs, "text")
        assert obs.screenshot == b"" and "world.test" in shown and "localhost" not in shown
        action = parse_action(text)
        if action.targets_element and not is_bid(action.element):
            bid = driver.session.page.locator(action.element).first.get_attribute("bid")
            assert f"[{bid}] " in shown, f"{text}: its element [{bid}] is not in the text mode's page:\n{shown}"
            text = str(action.with_element(bid))
        obs, _stop = driver.step(text)
        assert obs.last_action_error == "", (text, obs.last_action_error)
        played.append(text)
    episode = driver.finish()
    assert episode.status == "succeeded", (episode.error, episode.verdict)
    assert all(is_bid(parse_action(a).element) for a in played if parse_action(a).targets_element)
    assert episode.start_screenshot is None
    assert not episode.steps.exclude(screenshot=None).exists() and episode.steps.count() == len(played)


def test_the_settles_popup_count_is_read_from_the_handles_preview_or_else_asked_for():
    from types import SimpleNamespace

    from episodes.engine.browser import _popups_of

    # SETTLED_JS answers the page's popups plus one: a number, whose handle carries it as its preview
    assert _popups_of(SimpleNamespace(_impl_obj=SimpleNamespace(_preview="3"))) == 2
    asked = SimpleNamespace(json_value=lambda: 1)  # another Playwright's handle: one more round trip
    assert _popups_of(asked) == 0
    assert _popups_of(SimpleNamespace(_impl_obj=SimpleNamespace(_preview="JSHandle@object"), json_value=lambda: 2)) == 1
