"""The shop's side of fault injection (replicas/worlds/faults/data.py has the contract): whether a
session is signed in, and the store's own error page for a failing route (JSON for its suggestion API)."""
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

from replicas.worlds.faults.pages import wants_json

from .signin import SESSION_ACCOUNT


def session_is_signed_in(session) -> bool:
    return session.get(SESSION_ACCOUNT) is not None


def error_response(request, *, status: int, code: str, message: str) -> HttpResponse:
    if wants_json(request) or request.path.startswith("/s/suggest"):
        return JsonResponse({"error": message, "code": code}, status=status)
    page = render_to_string("shop/error.html", {"status": status, "message": message, "retry": request.get_full_path()})
    return HttpResponse(page, status=status)
