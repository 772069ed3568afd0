"""An observation that races a navigation is taken again on the new page, not the episode's error (no browser)."""

import pytest
from playwright.sync_api import Error as PlaywrightError

from episodes.engine.browser import OBSERVE_TRIES, BrowserCrashed, EpisodeSession
from tests.episodes.browserless import BrowserlessSession

DESTROYED = "Execution context was destroyed, most likely because of a navigation"


class RacingSession(BrowserlessSession):
    """The engine's real observe() over a capture that fails `races` times with `message`."""

    observe = EpisodeSession.observe

    def __init__(self, races: int, message: str = DESTROYED):
        super().__init__()
        self.races, self.message, self.settles = races, message, 0

    def _observe(self):
        if self.races:
            self.races -= 1
            raise PlaywrightError(self.message)
        return BrowserlessSession.observe(self)

    def _settle(self) -> bool:
        self.settles += 1
        return True


def test_an_observation_that_raced_a_navigation_is_taken_again_after_the_page_settles():
    session = RacingSession(races=OBSERVE_TRIES - 1)
    assert session.observe().url == session.origin + "/"
    assert session.settles == OBSERVE_TRIES - 1


def test_a_page_that_keeps_navigating_still_fails_the_observation_after_the_limit():
    session = RacingSession(races=OBSERVE_TRIES)
    with pytest.raises(PlaywrightError, match="Execution context was destroyed"):
        session.observe()


def test_a_screenshot_the_compositor_could_not_give_is_taken_again():
    """killtest on a loaded machine: 'Protocol error (Page.captureScreenshot): Unable to capture
    screenshot' errored an episode on the surviving worker while the other's Chromium was killed."""
    session = RacingSession(races=1, message="Protocol error (Page.captureScreenshot): Unable to capture screenshot")
    assert session.observe().url == session.origin + "/"
    assert session.settles == 1


def test_another_playwright_error_is_not_taken_for_a_navigation():
    session = RacingSession(races=1, message="Target page, context or browser has been closed")
    with pytest.raises(PlaywrightError, match="has been closed"):
        session.observe()
    assert session.settles == 0


def test_a_cdp_command_chromium_never_answers_is_a_crash_after_the_capture_timeout(monkeypatch):
    import asyncio
    import threading

    from episodes.engine import browser

    monkeypatch.setattr(browser, "CAPTURE_TIMEOUT_S", 0.05)
    outcome = {}

    def capture():  # in a thread of its own: an earlier test's Playwright may have left this one's loop marked running
        loop = asyncio.new_event_loop()
        unanswered = loop.create_future()  # a reply that never comes, as from a Chromium killed mid-command
        try:
            browser._bounded(loop.run_until_complete, lambda: unanswered)
        except browser.BrowserCrashed as exc:
            outcome.update(error=str(exc), cancelled=unanswered.cancelled())
        finally:
            loop.close()

    thread = threading.Thread(target=capture)
    thread.start()
    thread.join(timeout=10)
    # a crash, and the wait given up rather than left pending
    assert outcome == {"error": "the browser did not answer within 0.05 s", "cancelled": True}


def test_the_page_read_after_the_last_tab_closed_under_it_is_a_crash_to_retry_not_an_index_error():
    """Chromium killed between final_page's liveness check and its read of the page left no tab:
    killtest's 'IndexError: list index out of range', which errored the episode instead of retrying it."""
    session = EpisodeSession.__new__(EpisodeSession)
    session._tabs, session._active, session.browser, session.context = [], 0, None, None
    with pytest.raises(BrowserCrashed):
        session.page  # noqa: B018 - the read is the test
