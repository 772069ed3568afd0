"""A small urlconf served on test worlds, so fault tests do not depend on a product replica's pages.

Shaped like a replica: an HTML page, an internal JSON API, a sign-in that writes the
testbed's session keys, a page that needs it, and an htmx fragment.
"""

from pathlib import Path

from django.http import FileResponse, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import path, re_path

from replicas.testbed.models import Note
from replicas.testbed.services import SIGNIN
from replicas.worlds.clock import now
from replicas.worlds.registry import get_replica

HTMX = Path(__file__).resolve().parents[2] / "frontend/node_modules/htmx.org/dist/htmx.min.js"
PAGE = (
    "<!doctype html><html><head><title>{title}</title></head><body><main><h1>{title}</h1><button "
    "id=target>Save</button></main></body></html>"
)


def page(request, name="home"):
    return HttpResponse(PAGE.format(title=name))


def billing(request, rest=""):
    if request.method == "POST":
        # a write through the API: marks the note, so a test can see whether the work was done
        note = Note.objects.get(public_id=int(request.POST["note"]))
        note.body = f"{note.body} [refund_issued]"
        note.save(update_fields=["body"])
    return JsonResponse({"ok": True, "path": request.path, "clock": now().isoformat()})


def sign_in(request):
    if request.method == "POST":
        SIGNIN.sign_in(request.session, request.world, 100)
        return redirect(request.POST.get("next", "/"))
    return HttpResponse(PAGE.format(title="Sign in"))


def account(request):
    if not SIGNIN.session_is_signed_in(request.session):
        return redirect(f"{get_replica('testbed').login_path}?next=/account")
    return HttpResponse(PAGE.format(title="Account"))


def fragment(request):
    return HttpResponse("<tr><td>row</td></tr></body>")


def htmx(request):
    return FileResponse(HTMX.open("rb"), content_type="text/javascript")


HTMX_PAGE = (
    '<!doctype html><html><head><title>Queue</title><script src="/htmx.min.js"></script></head>'
    '<body><main><button id="more" hx-get="/fragment" hx-target="#rows" hx-swap="beforeend">More</button>'
    "<table><tbody id=rows></tbody></table></main></body></html>"
)


def htmx_page(request):
    return HttpResponse(HTMX_PAGE)


urlpatterns = [
    path("", page),
    path("login", sign_in),
    path("account", account),
    path("fragment", fragment),
    path("htmx.min.js", htmx),
    path("queue", htmx_page),
    re_path(r"^api/v2/billing/(?P<rest>.*)$", billing),
    path("p/<slug:name>", page),
]
