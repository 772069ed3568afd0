"""Applies a world's armed faults to its requests, by route pattern: replica code has no call sites.

Sits right after the world routing middleware (so the world is bound) and before
the session middleware (so it can end a session before the replica reads it).
Also answers the reserved paths under /__replicagym/faults/ (modal dismissal,
banner clicks) without touching any replica's URLs.
"""

import re
import time
from importlib import import_module
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpResponse, HttpResponseBadRequest, HttpResponseNotFound, HttpResponseRedirect

from ..models import FaultProgress, FaultState
from ..signin import safe_next
from . import pages
from .data import hook
from .library import BANNER_PATH, DISMISS_PATH, LIBRARY, MAX_TOTAL_DELAY_MS, PAGE, REQUEST, RESERVED_PREFIX, SESSION
from .runtime import activate, bump, claim, ensure_armed, event_write, next_request, trigger_due

# Requests a browser makes on its own, at moments no action decides: never counted.
UNCOUNTED = re.compile(r"^/(static/|favicon\.ico$|robots\.txt$|\.well-known/)")


class FaultMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        world = getattr(request, "world", None)
        if world is None or not world.faults:
            return self.get_response(request)
        if request.path.startswith(RESERVED_PREFIX):
            return reserved(request, world)
        if UNCOUNTED.match(request.path):
            return self.get_response(request)
        run = FaultRun(request, world)
        early = run.before()
        response = early if early is not None else self.get_response(request)
        return run.after(response)


class FaultRun:
    """The faults' part in one counted request of one world."""

    def __init__(self, request, world):
        self.request, self.world = request, world
        self.path = request.path
        self.watch_success: list = []  # request faults waiting for a good answer on their route
        self.watch_session: list = []  # expired sessions waiting for a sign-in
        self.pages: list = []  # page faults that may inject into this response
        self.layer = False  # an interstitial is armed and not yet dismissed
        self.replace_with = None  # a timeout that lets the view run, then loses its answer

    def before(self):
        world = self.world
        row = next_request(world.id)
        if row is None:
            ensure_armed(world)
            row = next_request(world.id)
        self.n, self.step = row
        delay, failing = 0, None
        for progress in FaultProgress.objects.filter(world=world).order_by("index"):
            spec = world.faults[progress.index]
            params, fault = spec["params"], LIBRARY[progress.name]
            if not progress.active:
                self._maybe_activate(progress)
            if not progress.active:
                if progress.name == "interstitial" and not progress.resolved:
                    self.layer = True  # the page gets the (empty) layer a later htmx answer can fill
                continue
            if fault.kind == REQUEST:
                if failing is not None or not re.search(params["route"], self.path):
                    continue
                hit = bump(progress, "hits", limit=params["times"])
                if hit is None:
                    if not progress.resolved:
                        self.watch_success.append(progress)
                    continue
                delay += params.get("delay_ms", 0)
                detail = {"occurrence": hit, "of": params["times"], "method": self.request.method}
                if "status" in params:
                    failing = params["status"]
                    # whether the view ran: false means the request never reached the service
                    detail["processed"] = bool(params.get("processed"))
                    if detail["processed"]:
                        self.replace_with = failing
                else:
                    self.watch_success.append(progress)
                self._event(progress, "fired", detail)
            elif fault.kind == SESSION:
                if progress.hits == 0 and bump(progress, "hits", limit=1) == 1:
                    self._event(progress, "fired", {"had_session": self._end_session()})
                elif progress.hits and not progress.resolved:
                    self.watch_session.append(progress)
            elif fault.kind == PAGE:
                if progress.name == "interstitial" and not progress.resolved:
                    self.layer = True
                    self.pages.append(progress)
                elif progress.name == "layout_shift" and progress.hits < params["times"]:
                    self.pages.append(progress)
        if delay:
            # the fault's latency itself: capped, and deterministic in length
            time.sleep(min(delay, MAX_TOTAL_DELAY_MS) / 1000)
        if failing is not None and self.replace_with is None:
            return pages.error_response(self.request, world, failing)
        return None

    def _maybe_activate(self, progress):
        trigger = progress.trigger
        if "requests" in trigger:
            if "route" in trigger and not re.search(trigger["route"], self.path):
                return
            if bump(progress, "seen") >= trigger["requests"]:
                activate(world=self.world, progress=progress, at_request=self.n, at_step=self.step, route=self.path)
        elif trigger_due(progress, clock=self.world.clock):
            activate(world=self.world, progress=progress, at_request=self.n, at_step=self.step, route=self.path)
        # step triggers are fired by world_step(), called by the episode engine

    def _event(self, progress, event, detail=None):
        event_write(
            world=self.world,
            progress=progress,
            event=event,
            at_request=self.n,
            at_step=self.step,
            route=self.path,
            detail=detail,
        )

    def _end_session(self) -> bool:
        """End the replica session as the server would: the stored session is gone."""
        key = self.request.COOKIES.get(settings.SESSION_COOKIE_NAME)
        if not key:
            return False
        store = import_module(settings.SESSION_ENGINE).SessionStore
        store(session_key=key).delete()
        # the session middleware, which runs next, then starts this request signed out
        del self.request.COOKIES[settings.SESSION_COOKIE_NAME]
        return True

    def after(self, response):
        if self.replace_with is not None:
            # the work is done (and committed); the client only ever sees the timeout
            return pages.error_response(self.request, self.world, self.replace_with)
        status = response.status_code
        for progress in self.watch_success:
            if status < 400 and claim(progress, "resolved"):
                self._event(progress, "recovered", {"status": status})
        if self.watch_session:
            session = getattr(self.request, "session", None)
            signed_in = hook(self.world.replica, "session_is_signed_in", default_signed_in)
            if session is not None and signed_in(session):
                for progress in self.watch_session:
                    if claim(progress, "resolved"):
                        self._event(progress, "recovered", {"status": status})
        if (self.pages or self.layer) and pages.is_full_page(self.request, response):
            modals, shifts = self._markup(self.request.get_full_path(), shifts=True)
            if modals or shifts or self.layer:
                pages.inject(response, modals=modals, shifts=shifts)
        elif self.pages and pages.is_fragment(self.request, response):
            # a modal due while the agent works through htmx: shown without a page load
            modals, _ = self._markup(self._page_path(), shifts=False)
            if modals:
                pages.inject_fragment(response, modals=modals)
        return response

    def _page_path(self) -> str:
        """The path of the page the browser shows (htmx names it), for the modal's way back."""
        current = urlsplit(self.request.htmx.current_url or "")
        if current.netloc.lower() == self.request.get_host().lower() and current.path.startswith("/"):
            return current.path + (f"?{current.query}" if current.query else "")
        return "/"

    def _markup(self, next_path: str, *, shifts: bool):
        modals, configs = [], []
        for progress in self.pages:
            params = self.world.faults[progress.index]["params"]
            if progress.name == "interstitial":
                if bump(progress, "hits") == 1:
                    self._event(progress, "fired", {"kind": params["kind"]})
                modals.append(pages.interstitial_markup(index=progress.index, kind=params["kind"], next_path=next_path))
            elif shifts and bump(progress, "hits", limit=params["times"]) is not None:
                self._event(progress, "fired", {"occurrence": progress.hits, "of": params["times"]})
                configs.append(pages.layout_shift_config(index=progress.index, params=params, next_path=next_path))
        return modals, configs


def default_signed_in(session) -> bool:
    """A session holding anything but flash messages belongs to someone who signed in."""
    return any(key != "_messages" for key in session.keys())


def reserved(request, world):
    """/__replicagym/faults/...: the modal's dismissal and the banner's link."""
    if request.path == DISMISS_PATH:
        return _dismiss(request, world)
    if request.path == BANNER_PATH:
        return _banner(request, world)
    return HttpResponseNotFound("No such page.", content_type="text/plain")


def _fault_at(world, raw, name):
    try:
        index = int(raw)
    except (TypeError, ValueError):
        return None
    return FaultProgress.objects.filter(world=world, index=index, name=name, active=True).first()


def _same_origin(request) -> bool:
    origin = request.headers.get("Origin")
    return origin is None or urlsplit(origin).netloc.lower() == request.get_host().lower()


def _reserved_event(world, progress, event, route, detail):
    state = FaultState.objects.get(world=world)
    event_write(
        world=world,
        progress=progress,
        event=event,
        at_request=state.requests,
        at_step=state.step,
        route=route,
        detail=detail,
    )


def _dismiss(request, world):
    if request.method != "POST":
        return HttpResponse("Use POST.", status=405, headers={"Allow": "POST"}, content_type="text/plain")
    if not _same_origin(request):
        return HttpResponse("Cross-origin dismissal refused.", status=403, content_type="text/plain")
    progress = _fault_at(world, request.POST.get("fault"), "interstitial")
    if progress is None:
        return HttpResponseBadRequest(
            "fault: no active interstitial with this number in this world", content_type="text/plain"
        )
    choice = request.POST.get("choice", "dismiss")
    if not isinstance(choice, str) or len(choice) > 40:
        return HttpResponseBadRequest("choice: at most 40 characters", content_type="text/plain")
    if claim(progress, "resolved"):
        _reserved_event(world, progress, "recovered", request.path, {"choice": choice})
    if request.headers.get("X-ReplicaGym-Fault"):
        return HttpResponse(status=204)
    return HttpResponseRedirect(safe_next(request, "/"), status=303)


def _banner(request, world):
    progress = _fault_at(world, request.GET.get("fault"), "layout_shift")
    if progress is None:
        return HttpResponseBadRequest(
            "fault: no active layout shift with this number in this world", content_type="text/plain"
        )
    _reserved_event(world, progress, "misclick", request.path, {})
    return HttpResponseRedirect(safe_next(request, "/"), status=303)
