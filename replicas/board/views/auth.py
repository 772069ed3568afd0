"""Sign-in and sign-out on the world's origin."""

from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds.signin import safe_next

from ..forms import LoginForm
from ..signin import SIGNIN, person_authenticate
from .common import LOGIN


def login(request):
    next_url = safe_next(request, "/")
    form = LoginForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        person = person_authenticate(
            world=request.world, email=form.cleaned_data["email"], password=form.cleaned_data["password"]
        )
        if person is None:
            error = "Incorrect email address and / or password."
        else:
            SIGNIN.sign_in(request.session, request.world, person.username)  # the draft of an expired session is kept
            return redirect(next_url)
    status = 400 if request.method == "POST" else 200
    return render(request, "board/login.html", {"form": form, "next": next_url, "error": error}, status=status)


@require_POST
def logout(request):
    request.session.flush()
    return redirect(LOGIN)


def home(request):
    return redirect("/projects/AGENT/board")
