""" "Open this world" from the editor: a link that signs a browser in on a world's own origin.

A world is served on its own host, so the platform cannot set the replica's session cookie
for it. The editor makes the replica user's session (ReplicaConfig.sign_in) and hands the
browser a short-lived link signed for that one world; this middleware, on the world's host,
turns the link into the session cookie and sends the browser on to the start page.
"""

from django.conf import settings
from django.core import signing
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render

from .routing import PAGE_NOT_FOUND, world_url

SIGNIN_PATH = "/__replicagym/signin"
_SALT = "replicagym.worlds.signin_link"
# The link is meant to be followed at once, from the tab the editor opens; an author who comes
# back to that tab later (they expired after 120 s into a bare "Page not found") gets a page saying so.
LINK_MAX_AGE = 15 * 60
EXPIRED_PAGE = (
    "<!doctype html><title>Sign-in link expired</title>"
    '<body style="font: 14px/1.5 system-ui, sans-serif; margin: 3em">'
    '<h1 style="font-size: 20px">This sign-in link has expired</h1>'
    "<p>Links from <em>Open this world</em> last {minutes} minutes. Go back to the task editor and click "
    "<strong>Open this world</strong> again for a new one; the world itself is still there.</p></body>"
)


def world_signin_url(*, world, user, next_path: str = "/") -> str:
    token = signing.dumps({"w": world.token, "k": user.session_key, "p": next_path}, salt=_SALT)
    return world_url(world, f"{SIGNIN_PATH}?t={token}")


def _safe_path(path) -> str:
    return path if isinstance(path, str) and path.startswith("/") and not path.startswith("//") else "/"


class WorldSignInMiddleware:
    """On a world's host only (after WorldRoutingMiddleware): answers the sign-in link."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        world = getattr(request, "world", None)
        if world is None or request.path_info != SIGNIN_PATH:
            return self.get_response(request)
        try:
            doc = signing.loads(request.GET.get("t", ""), salt=_SALT, max_age=LINK_MAX_AGE)
        except signing.SignatureExpired:
            return HttpResponse(EXPIRED_PAGE.format(minutes=LINK_MAX_AGE // 60), status=410)
        except signing.BadSignature:
            doc = None
        if not isinstance(doc, dict) or doc.get("w") != world.token or not isinstance(doc.get("k"), str):
            return render(request, PAGE_NOT_FOUND, status=404)
        response = HttpResponseRedirect(_safe_path(doc.get("p")))
        response.set_cookie(settings.SESSION_COOKIE_NAME, doc["k"], httponly=True, samesite="Lax")
        return response
