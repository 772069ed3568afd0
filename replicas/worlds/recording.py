"""Recording sessions: an annotator's own browser in a world, with the recorder on every page it is served.

A browser becomes a recording session by following a signed start link (made by the
platform for one world and one recording); the world answers it with a cookie signed
for that world alone. Only requests carrying that cookie get the recorder scripts at
the end of their HTML pages and may be framed by the world's own recording bar; an
agent's browser never holds the cookie, so nothing of the recorder reaches an episode.

The paths under RECORDING_PREFIX belong to the recorder, not to the replica: the
platform registers a handler for them (`recording_register`, from its AppConfig.ready),
because this layer knows no annotation model. Without a valid cookie they are the
world's ordinary 404.
"""

from dataclasses import dataclass

from django.core import signing
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.utils.html import format_html

from .routing import PAGE_NOT_FOUND, world_url

RECORDING_PREFIX = "/__recording__/"
START_PATH = RECORDING_PREFIX + "start"
COOKIE = "rg_recording"
_SALT = "replicagym.worlds.recording"
START_LINK_MAX_AGE = 10 * 60  # a start link is followed at once; the cookie lives as long as the session
COOKIE_MAX_AGE = 12 * 3600


@dataclass(frozen=True)
class RecordingHooks:
    # handler(request, *, world, session: int, subpath: str) -> HttpResponse, for RECORDING_PREFIX paths
    handler: object
    # inline scripts put before the recorder (the engine's in-page helper, which stamps bids)
    scripts: tuple = ()


_hooks: list[RecordingHooks] = []


def recording_register(*, handler, scripts=()) -> None:
    """Install the platform's recording handler and the scripts the recorder builds on (once)."""
    _hooks[:] = [RecordingHooks(handler=handler, scripts=tuple(scripts))]


def recording_start_url(*, world, session: int, port: int | None = None) -> str:
    """The link that makes a browser a recording session of `session` in `world` (valid for minutes)."""
    token = signing.dumps({"w": world.token, "s": int(session)}, salt=_SALT + ".start")
    return world_url(world, f"{START_PATH}?t={token}", port=port)


def recording_session(request) -> int | None:
    """The recording session this request belongs to, or None (no cookie, a forged one, another world's)."""
    world = getattr(request, "world", None)
    raw = request.COOKIES.get(COOKIE)
    if world is None or not raw:
        return None
    try:
        doc = signing.loads(raw, salt=_SALT, max_age=COOKIE_MAX_AGE)
    except signing.BadSignature:
        return None
    if not isinstance(doc, dict) or doc.get("w") != world.token or not isinstance(doc.get("s"), int):
        return None
    return doc["s"]


def recording_token(*, world, session: int) -> str:
    """What the recording bar sends with each post: a page of another origin cannot read it."""
    return signing.dumps({"w": world.token, "s": int(session)}, salt=_SALT + ".post")


def recording_token_valid(request, *, session: int) -> bool:
    try:
        doc = signing.loads(request.headers.get("X-Recording-Token", ""), salt=_SALT + ".post", max_age=COOKIE_MAX_AGE)
    except signing.BadSignature:
        return False
    return doc == {"w": request.world.token, "s": session}


def _start(request):
    try:
        doc = signing.loads(request.GET.get("t", ""), salt=_SALT + ".start", max_age=START_LINK_MAX_AGE)
    except signing.BadSignature:
        return None
    if not isinstance(doc, dict) or doc.get("w") != request.world.token or not isinstance(doc.get("s"), int):
        return None
    response = HttpResponseRedirect(RECORDING_PREFIX)
    response.set_cookie(COOKIE, signing.dumps(doc, salt=_SALT), max_age=COOKIE_MAX_AGE, httponly=True, samesite="Lax")
    return response


def _is_page(request, response) -> bool:
    """A whole HTML document, whatever its status: a form answered 400 with its errors is a page the person acts on."""
    return (
        not getattr(response, "streaming", False)
        and not request.htmx
        and response.get("Content-Type", "").startswith("text/html")
        and b"</body>" in response.content
    )


def _inject(response, scripts: tuple) -> None:
    # "</" never appears inside the scripts, so none can close its element early
    inline = "".join("<script>" + s.replace("</", "<\\/") + "</script>" for s in scripts)
    markup = (inline + format_html('<script src="{}" defer></script>', static("worlds/recorder.js"))).encode()
    content = response.content
    at = content.rfind(b"</body>")
    response.content = content[:at] + markup + content[at:]
    if response.has_header("Content-Length"):
        response["Content-Length"] = str(len(response.content))


class RecordingMiddleware:
    """Serves the recorder's paths and puts the recorder on the pages of recording sessions (after routing)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if getattr(request, "world", None) is None:
            return self.get_response(request)
        path = request.path_info
        if path == START_PATH:
            return _start(request) or render(request, PAGE_NOT_FOUND, status=404)
        session = recording_session(request) if _hooks else None
        if path.startswith(RECORDING_PREFIX):
            if session is None:
                return render(request, PAGE_NOT_FOUND, status=404)
            return _hooks[0].handler(
                request, world=request.world, session=session, subpath=path[len(RECORDING_PREFIX) :]
            )
        response = self.get_response(request)
        if session is not None:
            # the recording bar frames the world's pages; only the world itself may
            response["X-Frame-Options"] = "SAMEORIGIN"
            if _is_page(request, response):
                _inject(response, _hooks[0].scripts)
        return response
