"""Runs episodes in a real Chromium: one long-lived browser per process, one context per episode.

An `EpisodeSession` is one browser context confined to its world's origin (a workspace's
episode: its members' origins, one tab each): every request to another origin is aborted
and logged, and a `goto` elsewhere is the action's error. `step(action_text)` parses the
action (a malformed one is the step's error, never an exception), runs it with a short
timeout, waits until the page has settled (network idle and a quiet DOM, capped; never a
fixed sleep) and returns the next observation. A crashed browser or page raises `BrowserCrashed`.
"""

import asyncio
import base64
import logging
import os
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import sync_playwright

from verifiers import actions as A

from .observation import (
    ENGINE_JS,
    HTML_JS,
    SETTLED_JS,
    STAMP_JS,
    Observation,
    bid_map,
    flatten_axtree,
    origin_key,
    real_url,
)

log = logging.getLogger("replicagym.episodes")

LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # Screenshots byte for byte: with partial raster, a changed tile is redrawn only where it changed, over
    # its last picture, and the anti-aliased edge of a rounded box can then come out one shade off,
    # depending on which frames were drawn before (seen at steps 0 and 1 of the determinism test,
    # about 2 episodes in 100 on a loaded machine; 0 in 179 with this flag)
    "--disable-partial-raster",
]


CAPTURE_TIMEOUT_S = (
    30  # what an observation's CDP commands may take, all together, before the browser counts as crashed
)
OBSERVE_TRIES = 3  # an observation that raced a navigation is taken again, at most this many times in all
# What a capture can meet that the next try does not: a navigation replaced the document
# mid-capture, or the compositor had no frame to give (seen on a loaded machine while
# another worker's Chromium was being killed: "Unable to capture screenshot").
TRANSIENT_CAPTURE_ERRORS = ("Execution context was destroyed", "Unable to capture screenshot")


# A screenshot-less, untraced, one-tab episode takes the context the last such episode of this thread left,
# emptied (see EpisodeSession._park): a new context costs a renderer, Playwright's set-up of it and its closing,
# about 0.3 s of CPU an episode. At most this many episodes share one context: each one's frozen time is one more
# init script Playwright keeps in it (its clock has no public way to drop them).
REUSE_LIMIT = 20


class BrowserCrashed(RuntimeError):
    """The browser or the episode's page died; the episode cannot go on."""


class _ActionFailed(Exception):
    """An action could not be carried out; its message is the step's error."""


# --- the long-lived browser ---------------------------------------------------------


class _Host(threading.local):
    # Playwright's sync API is bound to the thread that started it, so "one browser per
    # process" is one per thread that runs episodes (in practice: the worker's one thread).
    playwright = None
    browser = None
    pid: int | None = None
    parked: "_Parked | None" = None  # an emptied context, for the next screenshot-less episode


_host = _Host()


@dataclass
class _Parked:
    browser: object
    context: object
    page: object  # its one tab, at about:blank, with no history before it
    clocked: bool  # a frozen time is installed: an episode without one cannot take it
    served: int  # episodes it has served


def _take_parked(browser, *, clocked: bool) -> "_Parked | None":
    """The parked context, if this episode may have it; one it may not have is closed."""
    parked, _host.parked = _host.parked, None
    if parked is None:
        return None
    usable = (
        browser is not None and parked.browser is browser and browser.is_connected() and not parked.page.is_closed()
    )
    if usable and (clocked or not parked.clocked):
        return parked
    _close_quietly(parked.context)
    return None


def _close_quietly(context) -> None:
    try:
        context.close()
    except PlaywrightError:
        pass


def shared_browser():
    """This process's Chromium, launched on first use and again if it died."""
    if _host.pid != os.getpid():
        # A forked child must not talk over its parent's connection to the driver.
        _host.playwright = _host.browser = None
    if _host.browser is None or not _host.browser.is_connected():
        if _host.playwright is None:
            # Playwright's sync API leaves an asyncio loop marked as running in this thread,
            # and Django then refuses ORM calls from it. They are safe: the sync API never
            # runs that loop while our code runs. Set once, here, where the loop starts.
            os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
            _host.playwright = sync_playwright().start()
            # owned from here: a launch that fails must still have its driver stopped by shutdown_browser
            _host.pid = os.getpid()
        _host.browser = _host.playwright.chromium.launch(
            executable_path=settings.CHROMIUM_PATH, headless=True, args=LAUNCH_ARGS
        )
        _host.pid = os.getpid()
        log.info("launched Chromium %s", _host.browser.version)
    return _host.browser


def discard_parked() -> None:
    """Close the context parked for reuse, if any (see REUSE_LIMIT)."""
    _take_parked(None, clocked=False)


def shutdown_browser() -> None:
    """Close this thread's browser and Playwright driver (tests, orderly worker exit)."""
    if _host.pid == os.getpid():
        for closer in (getattr(_host.browser, "close", None), getattr(_host.playwright, "stop", None)):
            if closer is not None:
                try:
                    closer()
                except PlaywrightError:
                    pass
    _host.playwright = _host.browser = _host.pid = _host.parked = None


# --- origins ----------------------------------------------------------------------------


def normalise_origin(origin: str) -> str:
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(f"origin must look like http://host:port, not {origin!r}")
    return f"{parts.scheme}://{parts.netloc.lower()}"


# --- results -------------------------------------------------------------------------------

# Pixel actions aim at a point: what they hit is the element there.
# How many elements a locator matches, and the bid of the first (null if none).
_MATCHED_AND_BID_JS = "els => [els.length, els.length ? els[0].getAttribute('bid') : null]"
_POINT_ACTIONS = (A.MouseClick, A.MouseDblClick, A.MouseDown, A.MouseUp)
_ELEMENT_BOX_AT = """([x, y]) => {
  const el = document.elementFromPoint(x, y);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height};
}"""


@dataclass
class StepResult:
    observation: Observation
    error: str
    timings: dict = field(default_factory=dict)
    target_box: dict | None = None  # where the action's element was before it ran (viewport pixels)
    target_bid: str | None = None  # the bid that element carried in the observation the action was chosen on


@dataclass
class _Tab:
    page: object
    inflight: set = field(default_factory=set)
    cdp: object = None
    bids: dict | None = None
    crashed: bool = False
    popups: int = 0  # tabs this page opened that we have seen appear
    listeners: list = field(default_factory=list)  # (event, handler): taken off when the context is parked


# Actions after which a key or mouse button may still be held down: a tab that ran one is not reused.
_HOLDING_ACTIONS = (A.KeyboardDown, A.MouseDown)
RESET_TRIES = 3  # Page.resetNavigationHistory can meet a tab not yet attached to its new page: tried again


_NOT_TRACKED = {"eventsource", "websocket"}  # long-lived by design: never "idle"


class EpisodeSession:
    """One episode's browser context, confined to `origin`. Use `EpisodeSession.open(...)`."""

    def __init__(
        self,
        *,
        origin,
        instruction,
        viewport,
        other_origins=(),
        action_timeout_ms,
        navigation_timeout_ms,
        settle_cap_ms,
        quiet_ms,
        include_html,
        files_dir,
        screenshots=True,
    ):
        self.origin = normalise_origin(origin)
        # the origins a page may be on: the world's, and the other members' of its workspace
        self.origins = [self.origin, *(normalise_origin(o) for o in other_origins)]
        self._origin_keys = {origin_key(o) for o in self.origins}
        self.instruction = instruction
        self.viewport = tuple(viewport)
        self.action_timeout_ms = action_timeout_ms
        self.navigation_timeout_ms = navigation_timeout_ms
        self.settle_cap_ms = settle_cap_ms
        self.quiet_ms = quiet_ms
        self.include_html = include_html
        self.screenshots = screenshots
        self.files_dir = Path(files_dir).resolve() if files_dir else None
        self.messages: list[str] = []
        self.chat: list[dict] = [{"role": "user", "message": instruction}]
        self.infeasible: str | None = None
        self.done = False
        self.blocked_requests: list[dict] = []
        self.step_index = 0
        self.last_action = ""
        self.last_error = ""
        self._tabs: list[_Tab] = []
        self._active = 0
        self._blocked_navigation: str | None = None
        # (selector, how many elements it matched) as _target_bid found it this step: _execute need not ask again
        self._matched: tuple[str, int] | None = None
        self._closing = False
        self._started = time.monotonic()
        self.observe_timings: dict = {}
        self.browser = None
        self.context = None
        self.trace_path: Path | None = None
        self.reused = False  # the context is an earlier episode's, emptied (REUSE_LIMIT)
        self._reusable = False  # the context may be parked for the next episode when this one closes
        self._clocked = False
        self._served = 0
        self._input_held = False  # a KeyboardDown or MouseDown ran: the tab's input state is not clean
        self._first_page = None  # the tab the episode opened in

    # --- lifecycle ---------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        *,
        origin: str,
        start_url: str,
        instruction: str,
        viewport=(1280, 800),
        action_timeout_ms: int = 3000,
        navigation_timeout_ms: int = 10_000,
        settle_cap_ms: int = 3000,
        quiet_ms: int = 50,
        include_html: bool = False,
        files_dir=None,
        frozen_time: datetime | None = None,
        trace_path: Path | None = None,
        screenshots: bool = True,
        other_tabs: tuple[str, ...] = (),
    ) -> "EpisodeSession":
        """A new context on the shared browser, at `start_url` (a path or a URL on `origin`).

        `other_tabs` are URLs of the other apps of a workspace, each opened in a tab of its own after the
        first (which stays active); their origins are the only others the context may reach.

        `frozen_time` fixes the page's Date.now() (e.g. to the world clock) while timers
        still run; `files_dir` is the only folder upload_file may take files from;
        `trace_path` records a Playwright trace (screenshots, DOM snapshots) written there on close;
        with `screenshots` off, observations carry no picture and none is captured (text-only agents).
        """

        def new_session():
            return cls(
                origin=origin,
                other_origins=[urlsplit(url).scheme + "://" + urlsplit(url).netloc for url in other_tabs],
                instruction=instruction,
                viewport=viewport,
                action_timeout_ms=action_timeout_ms,
                navigation_timeout_ms=navigation_timeout_ms,
                settle_cap_ms=settle_cap_ms,
                quiet_ms=quiet_ms,
                include_html=include_html,
                files_dir=files_dir,
                screenshots=screenshots,
            )

        session = new_session()
        url = session._resolve(start_url)
        if url is None:
            raise ValueError(f"start_url {start_url!r} is not on the world's origin {session.origin}")
        try:
            browser = shared_browser()
        except PlaywrightError as exc:  # killed while it launched, or its driver gone: a crash the episode may retry
            raise BrowserCrashed(f"could not launch the browser: {exc}") from exc
        # Only a text-only agent's context is reused: a picture could depend on what an earlier episode left in
        # the renderer (decoded images, fonts), which such an agent neither fetches nor sees; a trace belongs to
        # one context, and a workspace's tabs are left to a fresh one.
        reusable = not screenshots and trace_path is None and not other_tabs
        parked = _take_parked(browser, clocked=frozen_time is not None) if reusable else None
        if parked is not None:
            session.browser = browser
            try:
                session._start(parked.context, url, (), frozen_time=frozen_time, trace_path=None, parked=parked)
                session._reusable = True
                return session
            except BaseException as exc:
                session.close()  # not parked (not _reusable): closed
                if not isinstance(exc, Exception):
                    raise
                # Whatever failed, it was the reuse: the episode gets a fresh context, as it would have without one
                log.warning("could not take up a parked context; opening a fresh one", exc_info=True)
                session = new_session()
        session.browser = browser
        width, height = session.viewport
        try:
            context = browser.new_context(
                viewport={"width": width, "height": height},
                screen={"width": width, "height": height},
                device_scale_factor=1,
                locale="en-US",
                timezone_id="UTC",
                reduced_motion="reduce",
                color_scheme="light",
                service_workers="block",
                accept_downloads=False,
            )
        except PlaywrightError as exc:
            raise BrowserCrashed(f"could not open a browser context: {exc}") from exc
        try:
            session._start(context, url, other_tabs, frozen_time=frozen_time, trace_path=trace_path, parked=None)
        except BaseException as exc:
            try:
                if isinstance(exc, PlaywrightError):  # a browser that died while the page opened is a crash
                    session._check_alive(exc)
            finally:
                session.close()
            raise
        session._reusable = reusable
        return session

    def _start(self, context, url, other_tabs, *, frozen_time, trace_path, parked: "_Parked | None"):
        """Set `context` up for this episode and open its tabs at `url` and `other_tabs`; a `parked` context
        (an earlier episode's, emptied) keeps ENGINE_JS and gives its blank tab to the first."""
        self.context = context
        self.reused = parked is not None
        self._clocked = frozen_time is not None or (parked is not None and parked.clocked)
        self._served = parked.served if parked else 0
        if trace_path is not None:
            # started before the first page, so the trace holds the whole episode
            context.tracing.start(screenshots=True, snapshots=True)
            self.trace_path = Path(trace_path)
            # ids can be reused (SQLite, a flushed database): a file left at this path by an
            # earlier episode must not pass for this one's trace if writing it fails
            self.trace_path.unlink(missing_ok=True)
        if frozen_time is not None:
            context.clock.set_fixed_time(frozen_time)
        if parked is None:
            context.add_init_script(ENGINE_JS)
        # Only requests leaving the origin are routed to us (the pattern is matched in
        # the driver), so same-origin traffic pays nothing for the confinement.
        allowed = "|".join(re.escape(o) for o in self.origins)
        foreign = re.compile(r"^(?!(?:" + allowed + r")(?:[/?#]|$))[A-Za-z][A-Za-z0-9+.-]*://")
        context.route(foreign, self._block_request)
        context.route_web_socket(foreign, self._block_websocket)
        if not self.screenshots:
            # Nothing is drawn for an agent without screenshots: fonts, pictures and videos are
            # not fetched (nor served, decoded and painted). The accessibility tree has no need
            # of them (an image's name is its alt text), and the settle does not wait on them.
            context.route(_DRAWN_ONLY, _skip_drawn)
        context.on("page", self._on_page)
        if parked is not None:
            self._on_page(parked.page)
        for index, tab_url in enumerate((url, *other_tabs)):
            if index or parked is None:
                context.new_page()  # the new tab is the active one
            self._goto(tab_url)
            self._settle()
            # Stamp now, so bids exist even for an agent that acts before observing.
            self.page.evaluate(STAMP_JS)
        self._first_page = self._tabs[0].page
        if other_tabs:
            self._active = 0
            self.page.bring_to_front()

    def close(self) -> None:
        self._closing = True
        if self.context is not None:
            if self.trace_path is not None:
                try:
                    self.trace_path.parent.mkdir(parents=True, exist_ok=True)
                    self.context.tracing.stop(path=self.trace_path)
                except PlaywrightError:  # a crashed browser keeps its trace; the episode is decided without it
                    log.warning("could not write the trace %s", self.trace_path, exc_info=True)
            if not self._park():
                _close_quietly(self.context)
            self.context = None

    def _park(self) -> bool:
        """Leave the context and its one tab, emptied, to the next screenshot-less episode of this thread;
        False (the caller closes it) when it may not be reused or could not be emptied.

        Emptied of what this episode could have left for the next to see: its listeners and routes; every kind
        of storage of each origin it could reach (cookies, local and session storage, IndexedDB, Cache Storage,
        service workers, file systems; it reached no other: the routes abort every other origin's requests);
        the permissions granted; the pointer's place; and the tab's history, which ends as a new tab's starts:
        about:blank alone. The tab is kept, not replaced by a new one: the next world is the same site
        (*.localhost), so its page can load in the renderer this one used, about 0.3 s of CPU less.
        """
        if not self._reusable or self._input_held or self._served + 1 >= REUSE_LIMIT or len(self._tabs) != 1:
            return False
        tab, context = self._tabs[0], self.context
        try:
            # the tab the episode opened in, alone: a tab the page opened may hold a window.opener to it
            if self.browser is None or not self.browser.is_connected() or context.pages != [tab.page]:
                return False
            if tab.crashed or tab.popups or tab.page is not self._first_page:
                return False
            context.remove_listener("page", self._on_page)
            for event, handler in tab.listeners:
                tab.page.remove_listener(event, handler)
            context.unroute_all(behavior="ignoreErrors")
            if not _unroute_web_sockets(context):
                return False
            if tab.cdp is not None:
                tab.cdp.detach()
            # sessionStorage lives in the tab, and no CDP call clears it without a frame of its origin: it is
            # cleared from an empty page of the world's origin, served by us
            page, empty = tab.page, self.origin + _EMPTIED_PATH
            page.route(empty, _fulfill_empty)
            try:
                page.goto(empty, wait_until="load", timeout=self.navigation_timeout_ms)
                page.evaluate("() => sessionStorage.clear()")
            finally:
                page.unroute(empty, _fulfill_empty)
            page.goto("about:blank", wait_until="load", timeout=self.navigation_timeout_ms)
            # a session of its own, opened on the settled blank page: one opened before the navigations could
            # be left with a document the tab has left ("Not attached to an active page")
            cdp = context.new_cdp_session(page)
            for origin in self.origins:
                _cdp_send(cdp, "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            _reset_history(cdp, page)
            cdp.detach()
            context.clear_cookies()
            context.clear_permissions()
            page.mouse.move(-1, -1)  # nothing under the pointer when the next page loads
        except Exception:  # whatever it was, the next episode gets a fresh context
            log.info("could not empty the context for reuse; closing it", exc_info=True)
            return False
        _host.parked = _Parked(
            browser=self.browser, context=context, page=page, clocked=self._clocked, served=self._served + 1
        )
        self._tabs = []
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- tabs and events ----------------------------------------------------------------

    def _active_tab(self):
        """The active tab; a crash when the last tab closed under us (Chromium killed since _check_alive)."""
        if not self._tabs:
            self._check_alive()
        return self._tabs[self._active]

    @property
    def page(self):
        return self._active_tab().page

    @property
    def tabs(self) -> list[dict]:
        return [{"index": i, "url": t.page.url, "active": i == self._active} for i, t in enumerate(self._tabs)]

    def _on_page(self, page):
        tab = _Tab(page=page)
        page.set_default_timeout(self.action_timeout_ms)
        page.set_default_navigation_timeout(self.navigation_timeout_ms)

        def on_request(request):
            if request.resource_type not in _NOT_TRACKED:
                tab.inflight.add(request)

        def on_request_done(request):
            tab.inflight.discard(request)

        def on_popup(_page):
            tab.popups += 1

        def on_crash(_page):
            tab.crashed = True

        def on_close(_page):
            if tab in self._tabs:
                index = self._tabs.index(tab)
                self._tabs.remove(tab)
                if self._active >= index and self._active > 0:
                    self._active -= 1

        def on_dialog(dialog):
            # Accept, as a person who clicked "Delete" would confirm; the agent sees the text.
            self.chat.append({"role": "info", "message": f"{dialog.type} dialog: {dialog.message}"})
            try:
                dialog.accept()
            except PlaywrightError:
                pass

        tab.listeners = [
            ("request", on_request),
            ("requestfinished", on_request_done),
            ("requestfailed", on_request_done),
            ("crash", on_crash),
            ("popup", on_popup),
            ("close", on_close),
            ("dialog", on_dialog),
        ]
        for event, handler in tab.listeners:
            page.on(event, handler)
        self._tabs.append(tab)
        # As in BrowserGym, a new tab (new_tab(), a popup, target=_blank) becomes the active one.
        self._active = len(self._tabs) - 1

    def _block_request(self, route, request):
        try:
            main = request.is_navigation_request() and request.frame.parent_frame is None
        except PlaywrightError:  # a request without a frame (a worker's): not a navigation
            main = False
        self.blocked_requests.append(
            {
                "url": request.url,
                "method": request.method,
                "resource_type": request.resource_type,
                "navigation": main,
                "step": self.step_index,
            }
        )
        log.info("blocked %s %s (outside %s)", request.method, request.url, self.origin)
        if main:
            self._blocked_navigation = request.url
        route.abort("blockedbyclient")

    def _block_websocket(self, ws):
        self.blocked_requests.append(
            {
                "url": ws.url,
                "method": "GET",
                "resource_type": "websocket",
                "navigation": False,
                "step": self.step_index,
            }
        )
        ws.close(code=1008, reason="outside the world's origin")

    def _check_alive(self, exc: BaseException | None = None):
        crashed = not self._tabs or any(t.crashed for t in self._tabs)
        if crashed or self.browser is None or not self.browser.is_connected() or self.context is None:
            raise BrowserCrashed(
                f"the browser or the page crashed{': ' + str(exc).splitlines()[0] if exc else ''}"
            ) from exc

    # --- URLs ------------------------------------------------------------------------------

    def _resolve(self, url: str) -> str | None:
        """Absolute URL for `url` (relative to the current page, or in the display form agents
        are shown: episodes.engine.observation.display_url), or None if off-origin."""
        base = self.origin + "/"
        if self._tabs:
            current = self.page.url
            if origin_key(current) in self._origin_keys:
                base = current
        absolute = urljoin(base, real_url(url.strip(), self.origin))
        if origin_key(absolute) not in self._origin_keys or urlsplit(absolute).scheme not in ("http", "https"):
            return None
        return absolute

    def _goto(self, url: str):
        self.page.goto(url, wait_until="commit", timeout=self.navigation_timeout_ms)

    # --- stepping ---------------------------------------------------------------------------

    def step(self, action_text: str) -> StepResult:
        """Run one action, wait for the page to settle, observe. Errors go in the result."""
        self._check_alive()
        t0 = time.perf_counter()
        self.step_index += 1
        self.last_action = action_text if isinstance(action_text, str) else repr(action_text)
        error = ""
        try:
            action = A.parse_action(action_text)
        except A.ActionError as exc:
            action, error = None, f"invalid action: {exc}"
        target_box = target_bid = None
        self._matched = None
        if action is not None:
            self._blocked_navigation = None
            # the box outlines the action's element on the step's screenshot: none, no box
            target_box = self._target_box(action) if self.screenshots else None
            target_bid = self._target_bid(action)
            try:
                self._execute(action)
            except _ActionFailed as exc:
                error = str(exc)
            except PlaywrightTimeoutError as exc:
                self._check_alive(exc)
                # The action itself was done and only Playwright's wait for the navigation
                # it started ran out (a slow page): not an error, the settle waits for it.
                if not _ACTION_DONE.search(str(exc)):
                    error = _clean_error(exc, action)
            except PlaywrightError as exc:
                self._check_alive(exc)
                error = _clean_error(exc, action)
            if self._blocked_navigation and not error:
                error = (
                    f"navigation to {self._blocked_navigation} was blocked: "
                    f"it is outside this world ({', '.join(self.origins)})"
                )
        t1 = time.perf_counter()
        settled = self._settle()
        if self._blocked_navigation:
            self._recover_from_blocked_navigation()
        t2 = time.perf_counter()
        self.last_error = error
        obs = self.observe()
        t3 = time.perf_counter()
        timings = {
            "action_ms": round((t1 - t0) * 1000, 2),
            "settle_ms": round((t2 - t1) * 1000, 2),
            "observe_ms": round((t3 - t2) * 1000, 2),
            "total_ms": round((t3 - t0) * 1000, 2),
            "settled": settled,
            **self.observe_timings,
        }
        return StepResult(observation=obs, error=error, timings=timings, target_box=target_box, target_bid=target_bid)

    def _target_box(self, action: A.Action) -> dict | None:
        """Where the element an action names (or, for a pixel action, the element under its point) is
        before it runs, for the episode viewer to outline; None if nowhere."""
        try:
            if isinstance(action, _POINT_ACTIONS):
                box = self.page.evaluate(_ELEMENT_BOX_AT, [action.x, action.y])
            elif isinstance(action, A.ElementAction):
                loc = self._locate(action.element)
                box = loc.first.bounding_box(timeout=500) if loc.count() else None
            else:
                return None
        except PlaywrightError:  # a bad selector or a vanished element: _execute reports it to the agent
            return None
        return {k: round(v, 1) for k, v in box.items()} if box else None

    def _target_bid(self, action: A.Action) -> str | None:
        """The bid of the element an action names, read before it runs: a selector as the bid the last
        observation showed that element with (datasets train on what a model can see); None if none."""
        if not isinstance(action, A.ElementAction):
            return None
        if A.is_bid(action.element):
            return action.element
        try:
            # one round trip for both: how many elements match (which _execute checks) and the first one's bid
            matched, bid = self._locate(action.element).evaluate_all(_MATCHED_AND_BID_JS)
        except PlaywrightError:  # a bad selector or a vanished element: _execute reports it to the agent
            return None
        self._matched = (action.element, matched)
        return bid if bid and A.is_bid(bid) else None  # a page's own attribute of that name is no bid

    def _recover_from_blocked_navigation(self):
        # Chromium shows its own error page for a blocked navigation; go back to the
        # page the agent was on so the episode goes on where it was.
        if self.page.url.startswith("chrome-error:"):
            try:
                self.page.go_back(wait_until="commit", timeout=self.navigation_timeout_ms)
                self._settle()
            except PlaywrightError as exc:
                self._check_alive(exc)

    def _locate(self, element: str):
        if A.is_bid(element):
            return self.page.locator(f'[bid="{element}"]')
        return self.page.locator(element)

    def _files(self, file) -> list[str]:
        names = [file] if isinstance(file, str) else list(file)
        if self.files_dir is None:
            raise _ActionFailed("this episode offers no files to upload")
        paths = []
        for name in names:
            path = (self.files_dir / name).resolve()
            if not path.is_relative_to(self.files_dir) or not path.is_file():
                raise _ActionFailed(f"no file {name!r} among this episode's files")
            paths.append(str(path))
        return paths

    def _execute(self, action: A.Action):  # noqa: C901 - one branch per action kind, flat on purpose
        page, t = self.page, self.action_timeout_ms
        if isinstance(action, _HOLDING_ACTIONS):
            self._input_held = True
        if isinstance(action, A.ElementAction):
            loc = self._locate(action.element)
            # Bids and selectors name what the agent saw in the last (settled) observation:
            # if nothing matches now, say so at once instead of waiting out the timeout.
            known = self._matched[1] if self._matched and self._matched[0] == action.element else None
            if (loc.count() if known is None else known) == 0:
                raise _ActionFailed(f"{action.name}: no element matches {_what(action.element)} on this page")
            if isinstance(action, A.DragAndDrop) and self._locate(action.to_bid).count() == 0:
                raise _ActionFailed(f"{action.name}: no element matches {_what(action.to_bid)} on this page")
            match action:
                case A.Click():
                    loc.click(button=action.button, modifiers=list(action.modifiers), timeout=t)
                case A.DblClick():
                    loc.dblclick(button=action.button, modifiers=list(action.modifiers), timeout=t)
                case A.Hover():
                    loc.hover(timeout=t)
                case A.Fill():
                    loc.fill(action.value, timeout=t)
                case A.Clear():
                    loc.clear(timeout=t)
                case A.SelectOption():
                    opts = action.options if isinstance(action.options, str) else list(action.options)
                    loc.select_option(opts, timeout=t)
                case A.Check():
                    loc.check(timeout=t)
                case A.Uncheck():
                    loc.uncheck(timeout=t)
                case A.Press():
                    loc.press(action.key_comb, timeout=t)
                case A.Focus():
                    loc.focus(timeout=t)
                case A.DragAndDrop():
                    loc.drag_to(self._locate(action.to_bid), timeout=t)
                case A.UploadFile():
                    files = self._files(action.file)
                    if loc.evaluate("el => el.tagName === 'INPUT' && el.type === 'file'", timeout=t):
                        loc.set_input_files(files, timeout=t)
                    else:  # a button or label that opens the file chooser
                        with page.expect_file_chooser(timeout=t) as chooser:
                            loc.click(timeout=t)
                        chooser.value.set_files(files)
                case _:
                    raise AssertionError(action)
            return
        match action:
            case A.Scroll():
                page.mouse.wheel(action.delta_x, action.delta_y)
                # Let the wheel event reach the page so the scroll is in the next picture.
                page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            case A.Goto():
                url = self._resolve(action.url)
                if url is None:
                    self.blocked_requests.append(
                        {
                            "url": action.url,
                            "method": "GET",
                            "resource_type": "document",
                            "navigation": True,
                            "step": self.step_index,
                        }
                    )
                    raise _ActionFailed(
                        f"goto({action.url!r}) was refused: only pages of this world ({', '.join(self.origins)}) "
                        "can be opened"
                    )
                self._goto(url)
            case A.GoBack():
                page.go_back(wait_until="commit", timeout=self.navigation_timeout_ms)
            case A.GoForward():
                page.go_forward(wait_until="commit", timeout=self.navigation_timeout_ms)
            case A.NewTab():
                self.context.new_page()
            case A.TabFocus():
                if action.index >= len(self._tabs):
                    raise _ActionFailed(f"no tab {action.index}: {len(self._tabs)} tab(s) are open (0-based)")
                self._active = action.index
                self.page.bring_to_front()
            case A.TabClose():
                page.close()
                if not self._tabs:
                    self.context.new_page()
                self._active = len(self._tabs) - 1
                self.page.bring_to_front()
            case A.SendMsgToUser():
                self.messages.append(action.text)
                self.chat.append({"role": "assistant", "message": action.text})
                self.done = True
            case A.ReportInfeasible():
                self.infeasible = action.reason
                self.chat.append({"role": "infeasible", "message": action.reason})
                self.done = True
            case A.Noop():
                if action.wait_ms:
                    page.wait_for_timeout(action.wait_ms)
            case A.MouseMove():
                page.mouse.move(action.x, action.y)
            case A.MouseClick():
                page.mouse.click(action.x, action.y, button=action.button)
            case A.MouseDblClick():
                page.mouse.dblclick(action.x, action.y, button=action.button)
            case A.MouseDown():
                page.mouse.move(action.x, action.y)
                page.mouse.down(button=action.button)
            case A.MouseUp():
                page.mouse.move(action.x, action.y)
                page.mouse.up(button=action.button)
            case A.MouseDragAndDrop():
                page.mouse.move(action.from_x, action.from_y)
                page.mouse.down()
                page.mouse.move(action.to_x, action.to_y)
                page.mouse.up()
            case A.MouseUploadFile():
                files = self._files(action.file)
                with page.expect_file_chooser(timeout=t) as chooser:
                    page.mouse.click(action.x, action.y)
                chooser.value.set_files(files)
            case A.KeyboardType():
                page.keyboard.type(action.text)
            case A.KeyboardInsertText():
                page.keyboard.insert_text(action.text)
            case A.KeyboardPress():
                page.keyboard.press(action.key)
            case A.KeyboardDown():
                page.keyboard.down(action.key)
            case A.KeyboardUp():
                page.keyboard.up(action.key)
            case _:
                raise AssertionError(action)

    def _settle(self) -> bool:
        """Wait until the active page is idle: loaded, no request in flight, DOM quiet.

        Capped at settle_cap_ms; returns False if the cap was reached first.
        """
        deadline = time.monotonic() + self.settle_cap_ms / 1000
        while True:
            if not self._tabs:
                return True
            tab = self._tabs[self._active]
            remaining = (deadline - time.monotonic()) * 1000
            if remaining <= 0:
                return False
            try:
                handle = tab.page.wait_for_function(SETTLED_JS, arg=self.quiet_ms, timeout=remaining, polling=16)
                opened = _popups_of(handle)
                if opened > tab.popups:
                    # The page opened a tab that has not reached us yet: wait for it, then
                    # settle the new tab, which is now the active one.
                    tab.page.wait_for_event("popup", timeout=max(remaining, 1))
                    continue
                if not tab.inflight:
                    return True
                # The page looks idle but a request it started (an image, say) is still
                # loading: poll shortly, letting Playwright deliver its events meanwhile.
                tab.page.wait_for_timeout(10)
            except PlaywrightTimeoutError:
                return False
            except PlaywrightError as exc:
                # The document was replaced while we waited (a navigation): wait on the new one.
                self._check_alive(exc)
                if tab.page.is_closed():
                    continue
                try:
                    tab.page.wait_for_timeout(10)
                except PlaywrightError as inner:
                    self._check_alive(inner)

    # --- observing ------------------------------------------------------------------------------

    def _cdp(self, tab: _Tab):
        if tab.cdp is None:
            tab.cdp = self.context.new_cdp_session(tab.page)
        return tab.cdp

    def observe(self) -> Observation:
        """The agent's view of the active tab now."""
        tries = 1
        while True:
            try:
                return self._observe()
            except PlaywrightError as exc:
                # A navigation the settle did not wait out (its cap ran out on a loaded machine)
                # replaced the document mid-capture, or the compositor missed a frame: settle, take it again.
                if tries == OBSERVE_TRIES or not any(m in str(exc) for m in TRANSIENT_CAPTURE_ERRORS):
                    raise
                log.info("observation failed (%s); taking it again", str(exc).splitlines()[0])
            tries += 1
            self._settle()

    def _observe(self) -> Observation:
        self._check_alive()
        tab = self._active_tab()
        page = tab.page
        try:
            t0 = time.perf_counter()
            cdp = self._cdp(tab)
            stamp, ax, shot = _stamp_axtree_screenshot(page, cdp, screenshot=self.screenshots)
            t1 = time.perf_counter()
            # Bids never change once given, so the node->bid map only needs a refresh
            # when new elements got bids (which a new document always does).
            if stamp["fresh"] or tab.bids is None:
                tab.bids = bid_map(_cdp_send(cdp, "DOM.getDocument", {"depth": -1, "pierce": True})["root"])
                # getDocument turned the DOM agent on for this session: until it is off, the renderer reports
                # every later change of those nodes to us (about 60 events an episode that nothing reads)
                _cdp_send(cdp, "DOM.disable")
            t2 = time.perf_counter()
            html = page.evaluate(HTML_JS) if self.include_html else None
            tabs = self.tabs
        except PlaywrightError as exc:
            self._check_alive(exc)
            raise
        axtree = flatten_axtree(ax["nodes"], tab.bids)
        t3 = time.perf_counter()
        self.observe_timings = {
            "capture_ms": round((t1 - t0) * 1000, 2),  # stamp + AX tree + screenshot, at once
            "bidmap_ms": round((t2 - t1) * 1000, 2),
            "flatten_ms": round((t3 - t2) * 1000, 2),
        }
        return Observation(
            url=page.url,
            title=stamp.get("title", ""),
            screenshot=base64.b64decode(shot["data"]) if shot else b"",
            axtree=axtree,
            focused_bid=stamp.get("focused"),
            tabs=tabs,
            active_tab=self._active,
            instruction=self.instruction,
            chat=list(self.chat),
            step=self.step_index,
            elapsed_ms=(time.monotonic() - self._started) * 1000,
            last_action=self.last_action,
            last_action_error=self.last_error,
            html=html,
            viewport=self.viewport,
            origin=self.origin,
        )

    def final_page(self) -> dict:
        """{"url", "title", "html"} of the active tab, for the verifier: form fields hold what the
        page was served with, never what was typed and not saved (a text check must not pass on it)."""
        self._check_alive()
        try:
            return {"url": self.page.url, "title": self.page.title(), "html": self.page.evaluate(SAVED_HTML_JS)}
        except PlaywrightError as exc:
            self._check_alive(exc)
            raise


SAVED_HTML_JS = f"() => {{ {ENGINE_JS}\n return window.__replicagym.html(false); }}"
_SCREENSHOT = {"format": "png", "optimizeForSpeed": True}
# URLs of what only the picture needs: fonts, images, media (matched in Playwright's driver).
_DRAWN_ONLY = re.compile(
    r"^[^?#]*\.(?:woff2?|ttf|otf|eot|png|jpe?g|gif|webp|avif|svg|ico|bmp|mp4|webm)(?:[?#]|$)", re.I
)


def _skip_drawn(route):
    route.abort("blockedbyclient")


_ACTION_DONE = re.compile(r"^\s*-?\s*\w+ action done\s*$", re.MULTILINE)


def _stamp_axtree_screenshot(page, cdp, *, screenshot: bool = True) -> tuple[dict, dict, dict | None]:
    """Stamp bids, fetch the AX tree and take the screenshot (None without `screenshot`), all at once.

    They are independent (the renderer builds the AX tree while the compositor
    produces the picture), so sending them together saves most of a step's observe
    time. The sync API has no way to do that, so this uses its event loop through
    `_sync`/`_impl_obj` (playwright is pinned); without them it runs them in turn.
    One PNG per step, straight from the compositor: optimizeForSpeed picks a cheaper
    zlib level, and equal pictures still give equal bytes. Without `screenshot` the
    compositor is not asked at all: a text-only agent does not pay for the picture.
    """
    try:
        run, page_impl, cdp_impl = page._sync, page._impl_obj, cdp._impl_obj
    except AttributeError:
        return (
            page.evaluate(STAMP_JS),
            _cdp_send(cdp, "Accessibility.getFullAXTree"),
            _cdp_send(cdp, "Page.captureScreenshot", _SCREENSHOT) if screenshot else None,
        )

    async def nothing():
        return None

    return tuple(
        _bounded(
            run,
            lambda: asyncio.gather(
                page_impl.evaluate(STAMP_JS, None),
                cdp_impl.send("Accessibility.getFullAXTree", None, None),
                cdp_impl.send("Page.captureScreenshot", _SCREENSHOT, None) if screenshot else nothing(),
            ),
        )
    )


_EMPTIED_PATH = "/__replicagym_emptied__"  # never asked of a replica: the engine answers it (EpisodeSession._park)


def _fulfill_empty(route):
    route.fulfill(status=200, content_type="text/html", body="<!doctype html><title></title>")


def _reset_history(cdp, page) -> None:
    """Leave the tab's history with its current entry alone; tried again (RESET_TRIES) while the tab's session
    is not yet with its page, the error raised after that."""
    for tries in range(1, RESET_TRIES + 1):
        try:
            _cdp_send(cdp, "Page.resetNavigationHistory")
            return
        except PlaywrightError:
            if tries == RESET_TRIES:
                raise
            page.wait_for_timeout(50 * tries)


def _unroute_web_sockets(context) -> bool:
    """Drop a context's WebSocket routes (the sync API has no call for it); False if this Playwright has no
    such internals (not the pinned one), so the context is not reused with the last episode's routes."""
    try:
        run, impl = context._sync, context._impl_obj
        routes = impl._web_socket_routes
    except AttributeError:
        return False
    routes.clear()
    _bounded(run, impl._update_web_socket_interception_patterns)
    return True


def _popups_of(handle) -> int:
    """The tabs a settled page opened, from SETTLED_JS's handle (their number plus one). A number's handle
    comes with its value as its preview, so reading that saves a second round trip (json_value) per settle."""
    try:
        return int(handle._impl_obj._preview) - 1
    except (AttributeError, TypeError, ValueError):  # not the pinned Playwright's JSHandle
        return int(handle.json_value()) - 1


def _bounded(run, make):
    """The awaitable `make()` gives, run by the sync API's loop (`run`), but no longer than CAPTURE_TIMEOUT_S.

    A CDP command has no timeout of its own, and one sent as Chromium died can stay
    unanswered for good (seen when a worker's Chromium was killed mid-observation: the
    worker waited forever while its heartbeat kept the episode alive). A browser that
    does not answer in that time is taken for crashed: the episode's worker retries it.
    """

    async def bounded():
        return await asyncio.wait_for(make(), CAPTURE_TIMEOUT_S)

    try:
        return run(bounded())
    except TimeoutError:
        raise BrowserCrashed(f"the browser did not answer within {CAPTURE_TIMEOUT_S} s") from None


def _cdp_send(cdp, method: str, params: dict | None = None) -> dict:
    """`cdp.send` without the sync API's mapping of its result: the mapping walks every node of
    a reply (a document's DOM tree: thousands of dicts) to wrap Playwright objects that a CDP
    reply never holds, about 100 ms of this process's CPU per new document. The reply is the same."""
    try:
        run, impl = cdp._sync, cdp._impl_obj
    except AttributeError:  # not the pinned Playwright's CDPSession
        return cdp.send(method, params)
    return _bounded(run, lambda: impl.send(method, params, None))


def _what(element: str) -> str:
    return f"bid {element!r}" if A.is_bid(element) else f"selector {element!r}"


_ROUTINE_LOG = re.compile(
    r"^(\d+ × )?(waiting|retrying|attempting|locator resolved|scrolling|done|performing|elementHandle\.)"
)


def _clean_error(exc: PlaywrightError, action: A.Action) -> str:
    """A short, useful message from a Playwright error: its first line and the reason in its call log."""
    text = str(getattr(exc, "message", None) or exc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    head = (
        re.sub(r"^(Locator|Page|Mouse|Keyboard|FileChooser|ElementHandle)\.\w+:\s*", "", lines[0])
        if lines
        else "failed"
    )
    log_lines = (
        [ln.lstrip("- ").strip() for ln in lines[lines.index("Call log:") + 1 :]] if "Call log:" in lines else []
    )
    reasons = [ln for ln in log_lines if not _ROUTINE_LOG.match(ln)]
    reason = reasons[-1] if reasons else ""
    if isinstance(action, A.ElementAction) and isinstance(exc, PlaywrightTimeoutError):
        element = action.element
        if not any(ln.startswith("locator resolved") for ln in log_lines):
            return f"{action.name}: no element matches {_what(element)} on this page"
        return f"{action.name} on {element!r} failed: {head}{' (' + reason + ')' if reason else ''}"
    return f"{action.name} failed: {head}{' (' + reason + ')' if reason and reason not in head else ''}"
