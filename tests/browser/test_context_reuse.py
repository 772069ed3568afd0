"""A screenshot-less episode takes the last such episode's context and tab, emptied: nothing that episode
left is visible to the next (cookies, local and session storage, IndexedDB, Cache Storage, permissions,
history), on the same site or another, and the next sees the same page as in a fresh context. Episodes with
screenshots, a trace, a held key or another tab never share one; a context that cannot be emptied or taken
up is replaced by a fresh one, and the episode goes on."""

from datetime import UTC, datetime

import pytest
from playwright.sync_api import Error as PlaywrightError

from episodes.engine import browser as engine
from episodes.engine.browser import EpisodeSession

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only]

FROZEN = datetime(2026, 3, 14, 9, 30, tzinfo=UTC)

# Everything a page can leave behind in its origin's storage and in its tab, written by one episode.
LEAVE_TRACES_JS = """async () => {
  document.cookie = "session=episode-n; path=/";
  localStorage.setItem("draft", "episode-n");
  sessionStorage.setItem("wizard", "episode-n");
  await new Promise((done, fail) => {
    const open = indexedDB.open("leaky", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("rows");
    open.onsuccess = () => { open.result.close(); done(); };
    open.onerror = () => fail(open.error);
  });
  const cache = await caches.open("leaky");
  await cache.put("/form.html?cached", new Response("episode-n"));
  return [document.cookie, localStorage.length, sessionStorage.length, (await caches.keys()).length];
}"""

# What the next episode's page can find of it.
FIND_TRACES_JS = """async () => ({
  cookie: document.cookie,
  local: localStorage.length,
  session: sessionStorage.length,
  databases: (await indexedDB.databases()).map((db) => db.name),
  caches: await caches.keys(),
  geolocation: (await navigator.permissions.query({name: "geolocation"})).state,
  history: history.length,
  now: Date.now(),
})"""


@pytest.fixture(autouse=True)
def nothing_parked():
    """Each test starts with no context parked by another, and leaves none."""
    engine.discard_parked()
    yield
    engine.discard_parked()


# as in a fresh context, whose new tab's history is about:blank, then the start page
CLEAN = {"cookie": "", "local": 0, "session": 0, "databases": [], "caches": [], "geolocation": "prompt", "history": 2}


def _text_session(open_session, **kwargs):
    return open_session(screenshots=False, frozen_time=FROZEN, **kwargs)


def _leave_traces(session, origin):
    assert session.page.evaluate(LEAVE_TRACES_JS) == ["session=episode-n", 1, 1, 1]
    session.context.grant_permissions(["geolocation"], origin=origin)
    session.step(f'goto("{origin}/second.html")')


def test_nothing_an_episode_leaves_is_visible_to_the_next_on_its_context(open_session, page_server):
    first = _text_session(open_session)
    _leave_traces(first, page_server)
    context = first.context
    first.close()

    second = _text_session(open_session)
    assert second.reused and second.context is context  # the check below is about a reused context
    found = second.page.evaluate(FIND_TRACES_JS)
    assert {k: found[k] for k in CLEAN} == CLEAN
    assert found["now"] == int(FROZEN.timestamp() * 1000)  # the frozen time is this episode's
    # back from the start page goes to the new tab's blank page, not to the page the last episode left
    assert second.step("go_back()").observation.url == "about:blank"


def test_episodes_on_two_sites_take_turns_on_one_context(browser, page_server):
    """The failure that had reuse reverted: a tab that went from one site to another. Each episode is on the
    other site than the last (127.0.0.1 and localhost are two sites), leaves its traces, and finds none."""
    other = page_server.replace("127.0.0.1", "localhost")
    contexts, reused = set(), []
    for origin in [page_server, other] * 3:
        session = EpisodeSession.open(
            origin=origin, start_url="/form.html", instruction="t", screenshots=False, frozen_time=FROZEN
        )
        try:
            found = session.page.evaluate(FIND_TRACES_JS)
            assert {k: found[k] for k in CLEAN} == CLEAN
            assert session.step("go_back()").observation.url == "about:blank"
            session.step(f'goto("{origin}/form.html")')
            _leave_traces(session, origin)
            contexts.add(session.context)
            reused.append(session.reused)
        finally:
            session.close()
    assert reused == [False] + [True] * 5 and len(contexts) == 1


def test_a_key_held_down_is_not_held_in_the_next_episode(open_session):
    first = _text_session(open_session)
    assert first.step('keyboard_down("Shift")').error == ""
    first.close()
    second = _text_session(open_session)
    assert not second.reused  # its tab's keyboard would still hold Shift
    second.step('click("#subject")')
    second.step('keyboard_type("abc")')
    assert second.page.input_value("#subject") == "abc"


def test_a_reused_context_shows_the_same_observations_as_a_fresh_one(open_session):
    actions = ['fill("#subject", "Refund ORD-1")', "click(\"role=button[name='Submit as Solved']\")"]

    def play():
        session = _text_session(open_session)
        seen = [session.observe()]
        seen += [session.step(action).observation for action in actions]
        reused = session.reused
        session.close()
        return reused, [(o.url, o.title, o.axtree, o.focused_bid, o.screenshot) for o in seen]

    fresh, reused = play(), play()
    assert (fresh[0], reused[0]) == (False, True)
    assert fresh[1] == reused[1]
    assert "StaticText 'Saved Refund ORD-1'" in reused[1][-1][2]


@pytest.mark.parametrize(
    "kwargs",
    [{"screenshots": True}, {"screenshots": False, "trace": True}],
    ids=["screenshots", "trace"],
)
def test_episodes_with_pictures_or_a_trace_never_share_a_context(open_session, tmp_path, kwargs):
    if kwargs.pop("trace", False):
        kwargs["trace_path"] = tmp_path / "trace.zip"
    first = open_session(**kwargs)
    first.close()
    second = open_session(**kwargs)
    assert not second.reused and second.context is not first.context


def test_a_context_serves_at_most_reuse_limit_episodes(open_session, monkeypatch):
    monkeypatch.setattr(engine, "REUSE_LIMIT", 3)
    reused = []
    for _ in range(4):
        session = _text_session(open_session)
        reused.append(session.reused)
        session.close()
    assert reused == [False, True, True, False]


def test_an_episode_without_a_frozen_time_does_not_take_a_clocked_context(open_session):
    _text_session(open_session).close()
    unfrozen = open_session(screenshots=False)
    assert not unfrozen.reused
    assert abs(unfrozen.page.evaluate("Date.now()") - datetime.now(UTC).timestamp() * 1000) < 60_000


def test_a_tab_that_opened_another_is_not_reused(open_session):
    first = _text_session(open_session, start="/second.html")
    opened = first.step("click(\"role=link[name='Open in a new tab']\")")
    assert opened.error == "" and len(opened.observation.tabs) == 2
    assert first.step("tab_close()").error == ""
    first.close()
    assert not _text_session(open_session).reused


@pytest.mark.parametrize("failing_method", ["Storage.clearDataForOrigin", "Page.resetNavigationHistory"])
def test_a_context_that_cannot_be_emptied_is_closed_not_reused(open_session, monkeypatch, browser, failing_method):
    real = engine._cdp_send

    def failing(cdp, method, params=None):
        if method == failing_method:  # every time: the history reset's tries too
            raise PlaywrightError(f"{method}: Not attached to an active page")
        return real(cdp, method, params)

    first = _text_session(open_session)
    context = first.context
    monkeypatch.setattr(engine, "_cdp_send", failing)
    first.close()
    monkeypatch.setattr(engine, "_cdp_send", real)
    assert context not in browser.contexts
    assert not _text_session(open_session).reused


def test_a_history_reset_that_fails_once_is_tried_again(open_session, monkeypatch):
    real, calls = engine._cdp_send, []

    def flaky(cdp, method, params=None):
        if method == "Page.resetNavigationHistory":
            calls.append(method)
            if len(calls) == 1:
                raise PlaywrightError(f"{method}: Not attached to an active page")
        return real(cdp, method, params)

    first = _text_session(open_session)
    monkeypatch.setattr(engine, "_cdp_send", flaky)
    first.close()
    monkeypatch.setattr(engine, "_cdp_send", real)
    second = _text_session(open_session)
    assert len(calls) == 2 and second.reused
    assert second.page.evaluate("history.length") == 2


def test_a_parked_context_that_fails_to_open_gives_way_to_a_fresh_one(open_session, monkeypatch, browser):
    first = _text_session(open_session)
    _leave_traces(first, first.origin)
    first.close()
    parked = engine._host.parked.context
    real = EpisodeSession._goto

    def goto(session, url):
        if session.reused:  # the failure that had context reuse reverted, where it happened
            raise PlaywrightError("Page.resetNavigationHistory: Not attached to an active page")
        real(session, url)

    monkeypatch.setattr(EpisodeSession, "_goto", goto)
    second = _text_session(open_session)
    assert not second.reused and second.context is not parked and parked not in browser.contexts
    found = second.page.evaluate(FIND_TRACES_JS)
    assert {k: found[k] for k in CLEAN} == CLEAN
    assert second.step('fill("#subject", "x")').error == ""
    second.close()
    monkeypatch.setattr(EpisodeSession, "_goto", real)
    assert _text_session(open_session).reused  # the fresh context is parked in turn
