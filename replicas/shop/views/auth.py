"""Sign-in and sign-out, on the worlds' kit (HMAC passwords, world-bound sessions)."""

from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds.signin import safe_next

from .. import services
from ..forms import SignInEmailForm, SignInForm, form_messages
from ..models import Account
from ..signin import SIGNIN
from .common import CHECKOUT, VISITOR, visitor_token


def signin(request):
    """Two steps, as the store asks: the email and Continue, then the password on a page that shows
    the email (with Change). A post carrying a password is the second step."""
    next_url = safe_next(request, "/")
    error, step, email = "", "email", request.POST.get("email", "").strip()[:254]
    if request.method == "POST" and "password" not in request.POST:
        form = SignInEmailForm(request.POST)
        known = form.is_valid() and Account.objects.filter(email__iexact=form.cleaned_data["email"]).exists()
        if known:
            step, email = "password", form.cleaned_data["email"]
        else:
            error = form_messages(form)[0] if form.errors else SignInEmailForm.UNKNOWN
    elif request.method == "POST":
        step = "password"
        form = SignInForm(request.POST)
        account = Account.objects.filter(email__iexact=form.cleaned_data["email"]).first() if form.is_valid() else None
        if account is None or not SIGNIN.password_matches(
            seed=request.world.seed, user_id=account.public_id, password=form.cleaned_data["password"]
        ):
            error = SignInForm.WRONG
        else:
            SIGNIN.sign_in(request.session, request.world, account.public_id)
            request.session.pop(CHECKOUT, None)
            visitor = visitor_token(request)
            if visitor and account.role == Account.Role.CUSTOMER:
                # what they put in the cart before signing in is in their cart now
                services.visitor_cart_merge(visitor=visitor, account=account)
                request.session.pop(VISITOR, None)
            if account.role == Account.Role.STAFF and next_url == "/":
                next_url = "/backoffice/returns"
            return redirect(next_url)
    return render(
        request,
        "shop/signin.html",
        {"next": next_url, "error": error, "step": step, "email": email},
        status=400 if error else 200,
    )


@require_POST
def signout(request):
    request.session.flush()
    return redirect("/")
