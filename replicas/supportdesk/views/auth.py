"""Agent sign-in and sign-out on the world's origin."""

from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from ..forms import LoginForm
from . import domain
from .common import SESSION_AGENT, SESSION_TABS, SESSION_WORLD, safe_next, signed_in_agent

HOME = "/agent/filters/your-unsolved"


def login(request):
    next_url = safe_next(request, request.POST.get("next") or request.GET.get("next"), HOME)
    if request.method == "GET" and signed_in_agent(request) is not None:
        return redirect(next_url)
    form = LoginForm(request.POST or None)
    status = 400 if request.method == "POST" else 200
    if request.method == "POST" and form.is_valid():
        try:
            agent = domain.agent_sign_in(email=form.cleaned_data["email"], password=form.cleaned_data["password"])
        except ValidationError as exc:
            form.add_error(None, exc)
            if exc.code == "throttled":
                status = 429
        else:
            request.session.cycle_key()  # a new session id at sign-in: no fixation
            request.session[SESSION_WORLD] = request.world.token
            request.session[SESSION_AGENT] = agent.public_id
            request.session[SESSION_TABS] = []
            return redirect(next_url)
    return render(request, "supportdesk/login.html", {"form": form, "next": next_url}, status=status)


@require_POST
def logout(request):
    request.session.flush()
    return redirect("/auth/login")
