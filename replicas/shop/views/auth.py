"""Sign-in and sign-out, on the worlds' kit (HMAC passwords, world-bound sessions)."""

from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds.signin import safe_next

from .. import services
from ..forms import SignInForm
from ..models import Account
from ..signin import SIGNIN
from .common import CHECKOUT, VISITOR, visitor_token


def signin(request):
    next_url = safe_next(request, "/")
    error = ""
    if request.method == "POST":
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
        {"next": next_url, "error": error, "email": request.POST.get("email", "")[:254]},
        status=400 if error else 200,
    )


@require_POST
def signout(request):
    request.session.flush()
    return redirect("/")
