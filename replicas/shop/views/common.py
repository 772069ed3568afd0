"""What every shop page shares: the signed-in account, the sign-in redirect, the header's
"Deliver to", the checkout under way in the session, and the context of the store's header."""

import secrets
from functools import wraps
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from replicas.worlds import clock
from replicas.worlds.signin import login_url

from .. import policies, selectors
from ..models import Account, Address, Product
from ..signin import SIGNIN

CHECKOUT = "shop_checkout"  # the checkout under way: address, speed(s), card, codes, gift, 3ds_ok
DELIVER_TO = "shop_deliver_to"  # the header's "Deliver to": {"address": public id} or {"state": "MT"}
LOGIN_URL = "/ap/signin"
VISITOR = "shop_visitor"  # a signed-out shopper's cart token (models.VisitorCartItem)
VIEWED = "shop_viewed"  # ASINs of the product pages last opened, most recent first (home's "Keep shopping for")
VIEWED_KEPT = 12


def error_messages(error: ValidationError) -> list[str]:
    return list(error.messages)


def field_messages(error: ValidationError, labels: bool = True) -> list[str]:
    """A service's errors, "Zip Code: …" per field when the service named the fields (a full address
    book or card list raises one message for the whole form)."""
    if not hasattr(error, "error_dict"):
        return error_messages(error)
    if labels:
        return [f"{k.replace('_', ' ').title()}: {' '.join(v)}" for k, v in error.message_dict.items()]
    return [" ".join(v) for v in error.message_dict.values()]


def signed_in(request) -> Account | None:
    public_id = SIGNIN.signed_in_id(request)
    return None if public_id is None else Account.objects.filter(public_id=public_id).first()


def visitor_token(request, *, create: bool = False) -> str:
    """The signed-out shopper's cart token in this session ("" when none yet; `create` makes one)."""
    token = request.session.get(VISITOR)
    if not isinstance(token, str) or len(token) != 32:
        token = ""
    if not token and create:
        token = request.session[VISITOR] = secrets.token_hex(16)
    return token


def viewed_note(request, asin: str):
    """Remember a product page opened, for "Keep shopping for" (the session keeps the last few)."""
    viewed = [a for a in request.session.get(VIEWED, []) if isinstance(a, str) and a != asin]
    request.session[VIEWED] = [asin, *viewed][:VIEWED_KEPT]


def login_redirect(request):
    """To the sign-in page, then back. A form's POST path answers only POST (GET after sign-in was
    HTTP 405), so a post comes back to the page its form was on, else the home page."""
    back = request.get_full_path()
    if request.method != "GET":
        referer = urlsplit(request.headers.get("Referer", ""))
        same_origin = referer.netloc == request.get_host() and referer.path.startswith("/")
        back = (referer.path + (f"?{referer.query}" if referer.query else "")) if same_origin else "/"
    return redirect(login_url(LOGIN_URL, back))


def customer_required(view):
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        account = signed_in(request)
        if account is None or account.role != Account.Role.CUSTOMER:
            return login_redirect(request)
        request.account = account
        return view(request, *args, **kwargs)

    return wrapper


def staff_required(view):
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        account = signed_in(request)
        if account is None:
            return login_redirect(request)
        if account.role != Account.Role.STAFF:
            return render(request, "shop/forbidden.html", page_context(request, account=account), status=403)
        request.account = account
        return view(request, *args, **kwargs)

    return wrapper


def deliver_to_of(request, account) -> tuple[Address | None, str]:
    """The shopper's "Deliver to" location: the address chosen in the header (or at checkout), else
    the default address; a visitor may pick a state. Returns (address or None, its state)."""
    chosen = request.session.get(DELIVER_TO) or {}
    if account is not None and account.role == Account.Role.CUSTOMER:
        pid = chosen.get("address")
        address = account.addresses.filter(public_id=pid).first() if isinstance(pid, int) else None
        address = address or account.addresses.filter(is_default=True).first()
        if address is not None:
            return address, address.state
    state = chosen.get("state")
    return None, state if state in policies.STATES else ""


def checkout_state(request) -> dict:
    return dict(request.session.get(CHECKOUT) or {})


def checkout_state_save(request, state: dict):
    request.session[CHECKOUT] = state


def page_context(request, **extra) -> dict:
    account = extra.pop("account", None) or getattr(request, "account", None) or signed_in(request)
    deliver_to, deliver_state = extra.pop("deliver", None) or deliver_to_of(request, account)
    customer = account is not None and account.role == Account.Role.CUSTOMER
    return {
        "account": account,
        "deliver_to": deliver_to,
        "deliver_state": deliver_state,
        "deliver_zone": policies.zone_for(deliver_state) if deliver_state else None,
        "departments": Product.Department.choices,
        "cart_count": selectors.cart_count(account)
        if customer
        else (selectors.visitor_cart_count(visitor_token(request)) if account is None else 0),
        "currency": account.currency if customer else "USD",
        "now": clock.now(),
        **extra,
    }


def whole_number(value) -> int | None:
    """A GET parameter's whole number, or None (isascii: "²" passes isdigit() but int() refuses it)."""
    return int(value) if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 12 else None
