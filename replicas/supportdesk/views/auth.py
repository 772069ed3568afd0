"""Agent sign-in and sign-out on the world's origin."""

from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds.signin import safe_next

from ..forms import LoginForm
from ..policies import SIGNIN
from . import domain
from .common import SESSION_TABS, signed_in_agent

HOME = "/agent/filters/your-unsolved"


def login(request):
    next_url = safe_next(request, HOME)
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
            SIGNIN.sign_in(request.session, request.world, agent.public_id, **{SESSION_TABS: []})
            return redirect(next_url)
    return render(request, "supportdesk/login.html", {"form": form, "next": next_url}, status=status)


@require_POST
def logout(request):
    request.session.flush()
    return redirect("/auth/login")
