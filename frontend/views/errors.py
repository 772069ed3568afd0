"""The platform host's 403, 404 and 500 pages: what happened, who is signed in, and where to go.

Django's bare pages said nothing ("403 Forbidden"), while the API says why. These render the
platform's layout, with the navigation narrowed to what the user's roles may open. The 500 page
reads nothing from the database (the failure may be the database) and names no internals.
"""

from django.http import HttpResponseServerError, JsonResponse
from django.template import loader
from django.template.response import TemplateResponse
from replicagym.accounts.roles import public, user_roles

from ..navigation import sections_for

TITLES = {403: "You cannot open this page", 404: "There is no page here", 500: "Something went wrong on our side"}


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


@public
def forbidden(request, exception=None):
    roles = sorted(user_roles(getattr(request, "user", None)))
    reason = str(exception) if exception and str(exception) else "your roles do not admit this page"
    if _is_api(request):
        return JsonResponse({"detail": reason}, status=403)
    context = {
        "status": 403,
        "title": TITLES[403],
        "reason": reason[0].upper() + reason[1:] + ".",
        "roles": ", ".join(roles) or "no role",
        "hint": (
            "Ask an admin for a role (manage.py user create, or Django admin)."
            if not roles
            else "Ask an admin if you need this page; the links above are the pages your roles open."
        ),
        "sections": sections_for(request),
    }
    return TemplateResponse(request, "frontend/error.html", context, status=403).render()


@public
def not_found(request, exception=None):
    if _is_api(request):
        return JsonResponse({"detail": f"no API operation at {request.path[:200]}"}, status=404)
    context = {
        "status": 404,
        "title": TITLES[404],
        "reason": f"Nothing answers at {request.path[:200]}: the address may be mistyped, or what it showed "
        "was removed.",
        "hint": "Start again from the dashboard or a section above.",
        "sections": sections_for(request),
    }
    return TemplateResponse(request, "frontend/error.html", context, status=404).render()


@public
def server_error(request):
    if _is_api(request):
        return JsonResponse({"detail": "server error"}, status=500)
    # no request context: its processors read the session and the user from the database
    return HttpResponseServerError(loader.get_template("frontend/error_500.html").render({"title": TITLES[500]}))
