"""What every workspace page shares: the signed-in agent, the open tabs, full page or htmx fragment."""

from functools import wraps

from django.http import HttpResponse
from django.shortcuts import redirect, render

from replicas.worlds.signin import login_url

from ..models import Ticket, User
from ..policies import SIGNIN

SESSION_TABS = "supportdesk_tabs"
MAX_TABS = 8
LOGIN_URL = "/auth/login"


def signed_in_agent(request) -> User | None:
    """The agent of this session, if it was signed in on this very world and is still an agent."""
    public_id = SIGNIN.signed_in_id(request)
    if public_id is None:
        return None
    return User.objects.filter(public_id=public_id, suspended=False).exclude(role=User.Role.END_USER).first()


def agent_required(view):
    """Only for a signed-in agent; anyone else goes to the sign-in page (and comes back after)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        agent = signed_in_agent(request)
        if agent is None:
            target = login_url(LOGIN_URL, request.get_full_path())
            if request.htmx:
                return HttpResponse(status=204, headers={"HX-Redirect": target})
            return redirect(target)
        request.agent = agent
        return view(request, *args, **kwargs)

    return wrapper


def tab_open(request, number: int):
    """Open a ticket's tab at the end of the bar; an open tab keeps its place (and the session is not rewritten)."""
    tabs = request.session.get(SESSION_TABS, [])
    if number not in tabs:
        request.session[SESSION_TABS] = (tabs + [number])[-MAX_TABS:]


def tab_close(request, number: int):
    request.session[SESSION_TABS] = [n for n in request.session.get(SESSION_TABS, []) if n != number]


def open_tabs(request) -> list:
    numbers = request.session.get(SESSION_TABS, [])
    if not numbers:
        return []
    found = {t.public_id: t for t in Ticket.objects.filter(public_id__in=numbers).only("public_id", "subject")}
    return [found[n] for n in numbers if n in found]


def page(request, template: str, context: dict, *, section: str, fragment: str | None = None, status: int = 200):
    """Render a workspace page, or only `fragment` for an htmx request that targets it."""
    if fragment and request.htmx and not request.htmx.boosted:
        return render(request, fragment, {"request": request, **context, "agent": request.agent}, status=status)
    return render(
        request,
        template,
        {
            "agent": request.agent,
            "section": section,
            "open_tabs": open_tabs(request),
            **context,
        },
        status=status,
    )
