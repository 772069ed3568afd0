"""A small urlconf served on test worlds, so fault tests do not depend on replica pages in progress.

Shaped like a replica: an HTML page, an internal JSON API, a sign-in that writes the
support desk's session key, a page that needs it, and an htmx fragment.
"""
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import path, re_path

from replicas.supportdesk.faults import LOGIN_PATH
from replicas.supportdesk.models import Ticket
from replicas.worlds.clock import now

PAGE = "<!doctype html><html><head><title>{title}</title></head><body><main><h1>{title}</h1><button id=target>Save</button></main></body></html>"


def page(request, name="home"):
    return HttpResponse(PAGE.format(title=name))


def billing(request, rest=""):
    if request.method == "POST":
        # a write through the API: tags the ticket, so a test can see whether the work was done
        ticket = Ticket.objects.get(public_id=int(request.POST["ticket"]))
        ticket.tags = [*ticket.tags, "refund_issued"]
        ticket.save(update_fields=["tags"])
    return JsonResponse({"ok": True, "path": request.path, "clock": now().isoformat()})


def sign_in(request):
    from replicas.supportdesk.views.common import SESSION_AGENT

    if request.method == "POST":
        request.session[SESSION_AGENT] = 361000000
        return redirect(request.POST.get("next", "/"))
    return HttpResponse(PAGE.format(title="Sign in"))


def account(request):
    from replicas.supportdesk.views.common import SESSION_AGENT

    if request.session.get(SESSION_AGENT) is None:
        return redirect(f"{LOGIN_PATH}?next=/account")
    return HttpResponse(PAGE.format(title="Account"))


def fragment(request):
    return HttpResponse("<tr><td>row</td></tr></body>")


HTMX_PAGE = (
    '<!doctype html><html><head><title>Queue</title><script src="/static/supportdesk/vendor/htmx.min.js"></script></head>'
    '<body><main><button id="more" hx-get="/fragment" hx-target="#rows" hx-swap="beforeend">More</button>'
    "<table><tbody id=rows></tbody></table></main></body></html>"
)


def htmx_page(request):
    return HttpResponse(HTMX_PAGE)


urlpatterns = [
    path("", page),
    path("auth/login", sign_in),
    path("account", account),
    path("fragment", fragment),
    path("queue", htmx_page),
    re_path(r"^api/v2/billing/(?P<rest>.*)$", billing),
    path("p/<slug:name>", page),
]
