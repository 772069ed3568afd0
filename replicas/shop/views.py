"""The storefront's pages on a world's origin: search (with htmx suggestions), product (Q&A,
frequently bought together), cart (gift options, price changes), the three-step checkout with
per-item delivery speeds, the price-change interstitial and its 3-D Secure challenge, orders
(tracking, invoice, cancel, change address, return), the account (membership, rewards,
currency, sellers' messages), and the staff's back office. Views stay thin: reads in selectors,
writes in services."""

from datetime import timedelta
from decimal import Decimal, InvalidOperation
from functools import wraps
from urllib.parse import quote as urlquote

from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds import clock
from replicas.worlds.signin import login_url, safe_next

from . import images, policies, selectors, services
from .models import (
    Account,
    Address,
    Card,
    CartItem,
    Order,
    OrderItem,
    Product,
    Refund,
    ReturnRequest,
    SeasonalSale,
    SellerMessage,
    Variant,
)
from .signin import SIGNIN

CHECKOUT = "shop_checkout"
LOGIN_URL = "/ap/signin"


def _messages(error) -> list[str]:
    if isinstance(error, ValidationError):
        return [m for m in error.messages]
    return [str(error)]


def _field_messages(error: ValidationError, labels: bool = True) -> list[str]:
    """A form's errors, "Zip Code: …" per field when the service named the fields (a full address
    book or card list raises one message for the whole form)."""
    if not hasattr(error, "error_dict"):
        return _messages(error)
    if labels:
        return [f"{k.replace('_', ' ').title()}: {' '.join(v)}" for k, v in error.message_dict.items()]
    return [" ".join(v) for v in error.message_dict.values()]


def signed_in(request) -> Account | None:
    public_id = SIGNIN.signed_in_id(request)
    return None if public_id is None else Account.objects.filter(public_id=public_id).first()


def _login_redirect(request):
    return redirect(login_url(LOGIN_URL, request.get_full_path()))


def customer_required(view):
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        account = signed_in(request)
        if account is None or account.role != Account.Role.CUSTOMER:
            return _login_redirect(request)
        request.account = account
        return view(request, *args, **kwargs)

    return wrapper


def staff_required(view):
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        account = signed_in(request)
        if account is None:
            return _login_redirect(request)
        if account.role != Account.Role.STAFF:
            return render(request, "shop/forbidden.html", _ctx(request, account=account), status=403)
        request.account = account
        return view(request, *args, **kwargs)

    return wrapper


DELIVER_TO = "shop_deliver_to"  # the header's "Deliver to": {"address": public id} or {"state": "MT"}


def _deliver_to(request, account) -> tuple[Address | None, str]:
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


def _ctx(request, **extra) -> dict:
    account = extra.pop("account", None) or getattr(request, "account", None) or signed_in(request)
    deliver_to, deliver_state = extra.pop("deliver", None) or _deliver_to(request, account)
    customer = account is not None and account.role == Account.Role.CUSTOMER
    return {
        "account": account,
        "deliver_to": deliver_to,
        "deliver_state": deliver_state,
        "deliver_zone": policies.zone_for(deliver_state) if deliver_state else None,
        "departments": Product.Department.choices,
        "cart_count": selectors.cart_count(account) if customer else 0,
        "currency": account.currency if customer else "USD",
        "now": clock.now(),
        **extra,
    }


# --- sign-in ----------------------------------------------------------------------------------------


def signin(request):
    next_url = safe_next(request, "/")
    error = ""
    if request.method == "POST":
        email = request.POST.get("email", "").strip().lower()
        password = request.POST.get("password", "")
        account = Account.objects.filter(email__iexact=email).first() if email else None
        if account is None or not SIGNIN.password_matches(
            seed=request.world.seed, user_id=account.public_id, password=password
        ):
            error = "Your email or password is incorrect."
        else:
            SIGNIN.sign_in(request.session, request.world, account.public_id)
            request.session.pop(CHECKOUT, None)
            if account.role == Account.Role.STAFF and next_url == "/":
                next_url = "/backoffice/returns"
            return redirect(next_url)
    return render(
        request,
        "shop/signin.html",
        {"next": next_url, "error": error, "email": request.POST.get("email", "")},
        status=400 if error else 200,
    )


@require_POST
def signout(request):
    request.session.flush()
    return redirect("/")


# --- catalogue ------------------------------------------------------------------------------------------


def home(request):
    return search(request)


def search(request):
    q = selectors.SearchQuery.from_params(request.GET)
    results = selectors.search(q)
    params = request.GET.copy()
    params.pop("page", None)

    def link(**changes):
        p = params.copy()
        for k, v in changes.items():
            if v in (None, ""):
                p.pop(k, None)
            else:
                p[k] = v
        return "/s?" + p.urlencode()

    filters = {
        "departments": [(code, name, link(i=code, brand=None)) for code, name in Product.Department.choices],
        "ratings": [(n, link(rating=None if q.min_rating == n else str(n))) for n in (4, 3, 2, 1)],
        "brands": [(b, link(brand=None if q.brand == b else b)) for b in results.brands],
        "fast": link(fast=None if q.fast else "1"),
        "deals": link(deals=None if q.deals else "1"),
        "clear": "/s?" + (f"k={urlquote(q.text)}" if q.text else ""),
    }
    pages = [(n, link(page=str(n))) for n in range(1, results.pages + 1)]
    account = signed_in(request)
    deliver = _deliver_to(request, account)
    zone = policies.zone_for(deliver[1])
    return render(
        request,
        "shop/search.html",
        _ctx(
            request,
            account=account,
            deliver=deliver,
            q=q,
            results=results,
            filters=filters,
            pages=pages,
            sorts=selectors.SORTS,
            prev_link=link(page=str(q.page - 1)) if q.page > 1 else "",
            next_link=link(page=str(q.page + 1)) if q.page < results.pages else "",
            speeds=policies.SPEEDS,
            standard_extra=zone.extra_days["standard"],
            fast_by=policies.delivery_date(speed="fast", standard_days=0, today=clock.now().date(), state=deliver[1]),
        ),
    )


def suggest(request):
    """Suggestions as one types: the listbox under the search box for htmx, JSON for other clients."""
    found = selectors.suggestions(request.GET.get("k", "")[:100])
    if request.htmx:
        return render(request, "shop/_suggestions.html", {"suggestions": found})
    return JsonResponse({"suggestions": found})


def deliver_to(request):
    """ "Choose your location": one of the shopper's saved addresses, or (for a visitor) a state.
    Dates on product, cart and checkout pages follow it (policies.ZONES)."""
    account = signed_in(request)
    customer = account is not None and account.role == Account.Role.CUSTOMER
    error = ""
    if request.method == "POST":
        pid, state = request.POST.get("address", ""), request.POST.get("state", "").strip().upper()
        if pid and customer:
            address = account.addresses.filter(public_id=_int(pid)).first()
            if address is None:
                error = "Please choose one of your addresses."
            elif not address.state:
                error = (
                    "This address has no state, so no delivery date can be given for it. Add it again with its state."
                )
            else:
                request.session[DELIVER_TO] = {"address": address.public_id}
        elif pid:
            error = "Sign in to deliver to one of your saved addresses."
        elif state:
            if state not in policies.STATES:
                error = f'We do not deliver to "{state[:10]}". Please choose a state from the list.'
            else:
                request.session[DELIVER_TO] = {"state": state}
        else:
            error = "Please choose an address or a state."
        if not error:
            return redirect(safe_next(request, "/"))
    addresses = selectors.usable_addresses(account) if customer else []
    return render(
        request,
        "shop/deliver_to.html",
        _ctx(
            request,
            addresses=addresses,
            states=policies.STATES,
            zones=policies.ZONES,
            error=error,
            next=safe_next(request, "/"),
        ),
        status=400 if error else 200,
    )


def product(request, asin):
    product = get_object_or_404(Product.objects.select_related("seller"), asin=asin)
    variants = list(product.variants.order_by("sku"))
    if not variants:
        raise Http404
    chosen = next((v for v in variants if v.sku == request.GET.get("sku")), None) or next(
        (v for v in variants if v.stock), variants[0]
    )
    now = clock.now()
    account = signed_in(request)
    member = bool(account and account.member)
    sales = selectors.seasonal_sales(now)
    price = selectors.variant_price(chosen, now, sales)
    sale = sales.get(product.department)
    today = now.date()
    deliver = _deliver_to(request, account)
    deliver_state = deliver[1]
    dates = selectors.delivery_options(product, deliver_state, today)
    reviews = list(product.reviews.order_by("-created_at", "public_id"))
    star = request.GET.get("stars", "")
    if star in {"1", "2", "3", "4", "5"}:
        reviews = [r for r in reviews if r.rating == int(star)]
    together = _bundle(product, now, sales)
    qa_text = request.GET.get("qa", "").strip()[:100]
    view = request.GET.get("view", "0")
    view = int(view) if view in {"0", "1", "2"} else 0  # the gallery's three views; anything else shows the first
    return render(
        request,
        "shop/product.html",
        _ctx(
            request,
            account=account,
            deliver=deliver,
            product=product,
            variants=variants,
            chosen=chosen,
            price=price,
            view=view,
            views=range(3),
            deal=selectors.deal_active(product, now),
            histogram=selectors.histogram(product),
            reviews=reviews[:10],
            star=star,
            standard_date=dates["standard"],
            fast_date=dates.get("fast"),
            no_nextday=bool(deliver_state) and not policies.speed_served("nextday", deliver_state),
            sale=sale
            if sale is not None and price == policies.seasonal_price(chosen.price, sale.percent_off)
            else None,
            standard_free=member or price >= policies.FREE_SHIPPING_OVER,
            colours=sorted({v.colour for v in variants if v.colour}),
            together=together,
            bundle_total=sum((t.price_now for t in together), Decimal(0)),
            bundle_ready=all(t.bundle_variant is not None for t in together),
            quantities=range(1, min(services.MAX_QUANTITY, max(chosen.stock, 1)) + 1),
            savings=product.list_price - price if product.list_price > price else None,
            speeds=policies.SPEEDS,
            questions=selectors.questions(product, qa_text),
            qa_text=qa_text,
            qa_error=request.session.pop("shop_qa_error", ""),
        ),
    )


def _bundle(product, now, sales) -> list[Product]:
    """This item and the ones bought with it, each with the variant "Add all to Cart" would add."""
    if not product.bought_together:
        return []
    # the product again, with the others: one query for all their variants (prices read them all)
    found = {
        p.asin: p
        for p in Product.objects.filter(asin__in=[product.asin, *product.bought_together]).prefetch_related("variants")
    }
    items = [found[a] for a in [product.asin, *product.bought_together] if a in found]
    for p in items:
        variants = sorted(p.variants.all(), key=lambda v: v.sku)
        p.bundle_variant = next((v for v in variants if v.stock), None)
        p.price_now = selectors.variant_price(p.bundle_variant or variants[0], now, sales) if variants else p.list_price
    return items if len(items) > 1 else []


@require_POST
@customer_required
def question_ask(request, asin):
    product = get_object_or_404(Product, asin=asin)
    try:
        services.question_ask(account=request.account, product=product, text=request.POST.get("question", ""))
    except ValidationError as e:
        request.session["shop_qa_error"] = " ".join(_messages(e))
    return redirect(f"/dp/{product.asin}#questions")


def product_image(request, asin, view=0):
    product = get_object_or_404(Product, asin=asin)
    response = HttpResponse(images.product_svg(product, view=view), content_type="image/svg+xml")
    response["Cache-Control"] = "max-age=86400"
    return response


# --- cart ------------------------------------------------------------------------------------------------


@customer_required
def cart(request):
    lines = selectors.cart_lines(request.account)
    saved = selectors.cart_lines(request.account, saved=True)
    subtotal = sum((ln.amount for ln in lines), Decimal(0))
    deliver = _deliver_to(request, request.account)
    deliver_state = deliver[1]
    today = clock.now().date()
    ended = list(SeasonalSale.objects.filter(ends_at__lte=clock.now()).order_by("-ends_at")) if lines else []
    for ln in lines:
        # a seasonal sale on its department that ended since the item went into the cart
        ln.sale_ended = next(
            (
                e
                for e in ended
                if e.department == ln.product.department
                and e.ends_at > ln.item.added_at
                and e.starts_at <= ln.item.added_at
            ),
            None,
        )
        ln.arrives = policies.delivery_date(
            speed="standard", standard_days=ln.product.standard_days, today=today, state=deliver_state
        )
    return render(
        request,
        "shop/cart.html",
        _ctx(
            request,
            deliver=deliver,
            lines=lines,
            saved=saved,
            subtotal=subtotal,
            count=sum(ln.quantity for ln in lines),
            blocked=any(ln.out_of_stock for ln in lines),
            error=request.session.pop("shop_error", ""),
            quantities=range(0, services.MAX_QUANTITY + 1),
            gift_wrap_fee=policies.GIFT_WRAP_FEE,
            gift_message_max=policies.GIFT_MESSAGE_MAX,
        ),
    )


@require_POST
@customer_required
def cart_add(request):
    variant = Variant.objects.select_related("product").filter(sku=request.POST.get("sku", "")).first()
    if variant is None:
        raise Http404
    qty = request.POST.get("quantity", "1")
    try:
        services.cart_add(account=request.account, variant=variant, quantity=_int(qty) if _int(qty) is not None else 0)
    except ValidationError as e:
        request.session["shop_error"] = " ".join(_messages(e))
    return redirect("/cart")


@require_POST
@customer_required
def cart_add_bundle(request):
    skus = request.POST.getlist("sku")[:5]
    variants = list(Variant.objects.select_related("product").filter(sku__in=skus))
    if len(variants) != len(set(skus)):
        raise Http404
    try:
        services.cart_add_bundle(account=request.account, variants=sorted(variants, key=lambda v: skus.index(v.sku)))
    except ValidationError as e:
        request.session["shop_error"] = " ".join(_messages(e))
    return redirect("/cart")


def _cart_item(request, sku) -> CartItem:
    return get_object_or_404(CartItem, account=request.account, variant__sku=sku)


@require_POST
@customer_required
def cart_update(request, sku):
    item = _cart_item(request, sku)
    action = request.POST.get("action", "update")
    try:
        if action == "delete":
            services.cart_update(item=item, quantity=0)
        elif action in ("save", "move"):
            services.cart_save_for_later(item=item, saved=action == "save")
        elif action == "gift":
            services.cart_gift(
                item=item,
                gift=request.POST.get("gift") == "1",
                wrap=request.POST.get("gift_wrap") == "1",
                message=request.POST.get("gift_message", "")[:1000],
            )
        else:
            qty = request.POST.get("quantity", "")
            services.cart_update(item=item, quantity=_int(qty) if _int(qty) is not None else -1)
    except ValidationError as e:
        request.session["shop_error"] = " ".join(_messages(e))
    return redirect("/cart")


# --- checkout ---------------------------------------------------------------------------------------------


def _state(request) -> dict:
    return dict(request.session.get(CHECKOUT) or {})


def _save_state(request, state):
    request.session[CHECKOUT] = state


def _checkout_lines(request):
    lines = selectors.cart_lines(request.account)
    return lines


def _address(request, state) -> Address | None:
    pid = state.get("address")
    return request.account.addresses.filter(public_id=pid).first() if isinstance(pid, int) else None


def _card(request, state) -> Card | None:
    pid = state.get("card")
    return request.account.cards.filter(public_id=pid, removed=False).first() if isinstance(pid, int) else None


def _step(request, template, step, lines=None, **extra):
    state = _state(request)
    lines = _checkout_lines(request) if lines is None else lines
    address = _address(request, state)
    speed = state.get("speed", "standard")
    q = selectors.quote(
        account=request.account,
        lines=lines,
        state=address.state if address else "",
        speed=speed,
        codes=state.get("codes", []),
        use_gift=bool(state.get("gift")),
        speeds=state.get("speeds"),
    )
    return render(
        request,
        template,
        _ctx(
            request,
            step=step,
            lines=lines,
            address=address,
            speed=speed,
            state=state,
            quote=q,
            card=_card(request, state),
            **extra,
        ),
        status=400 if extra.get("errors") else 200,
    )


@customer_required
def checkout(request):
    if not selectors.cart_lines(request.account):
        return redirect("/cart")
    return redirect("/checkout/address")


@customer_required
def checkout_address(request):
    if not selectors.cart_lines(request.account):
        return redirect("/cart")
    errors = []
    if request.method == "POST":
        address = request.account.addresses.filter(public_id=_int(request.POST.get("address"))).first()
        if address is None:
            errors = ["Please choose a shipping address."]
        elif not address.complete:
            errors = ["This address is missing required fields (state or ZIP code). Add it again as a new address."]
        else:
            state = _state(request)
            state["address"] = address.public_id
            _save_state(request, state)
            request.session[DELIVER_TO] = {"address": address.public_id}
            return redirect("/checkout/delivery")
    deliver_to, _ = _deliver_to(request, request.account)
    return _step(
        request,
        "shop/checkout_address.html",
        1,
        addresses=selectors.usable_addresses(request.account),
        errors=errors,
        form={},
        states=policies.STATES,
        preselect=_state(request).get("address") or (deliver_to.public_id if deliver_to else None),
    )


@require_POST
@customer_required
def checkout_address_new(request):
    """The address validation service: checks and saves a new address, then uses it."""
    fields = ["full_name", "line1", "line2", "city", "state", "zip_code", "phone"]
    form = {f: request.POST.get(f, "") for f in fields}
    try:
        address = services.address_add(account=request.account, **form)
    except ValidationError as e:
        errors = _field_messages(e)
        return _step(
            request,
            "shop/checkout_address.html",
            1,
            addresses=selectors.usable_addresses(request.account),
            errors=errors,
            form=form,
            states=policies.STATES,
            adding=True,
        )
    state = _state(request)
    state["address"] = address.public_id
    _save_state(request, state)
    request.session[DELIVER_TO] = {"address": address.public_id}
    return redirect("/checkout/delivery")


def _int(value):
    # isascii: "²" and other Unicode digits pass isdigit() but int() refuses them
    return int(value) if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 12 else None


@customer_required
def checkout_delivery(request):
    state = _state(request)
    address = _address(request, state)
    if address is None:
        return redirect("/checkout/address")
    dest = address.state
    lines = _checkout_lines(request)
    errors = []
    if request.method == "POST":
        speed = request.POST.get("speed", "")
        # a line's own speed ("" = the order's); only speeds that line can ship at
        own = {ln.variant.sku: request.POST.get(f"speed-{ln.variant.sku}", "") for ln in lines}
        own = {sku: sp for sku, sp in own.items() if sp}
        by_sku = {ln.variant.sku: ln for ln in lines}
        unserved = sorted(
            {sp for sp in [speed, *own.values()] if sp in policies.SPEEDS and not policies.speed_served(sp, dest)}
        )
        if unserved:
            errors = [
                f"{policies.speed_label(unserved[0])} is not available to {dest} "
                f"({policies.zone_for(dest).name} delivery zone). Please choose another delivery option."
            ]
        elif speed not in policies.SPEEDS or not selectors.speed_allowed(
            speed, [by_sku[s] for s in by_sku if s not in own], dest
        ):
            errors = ["Please choose a delivery option."]
        elif any(
            sp not in policies.SPEEDS or not selectors.speed_allowed(sp, [by_sku[sku]], dest) for sku, sp in own.items()
        ):
            errors = ["One of the items cannot ship at the speed chosen for it."]
        else:
            state["speed"] = speed
            state["speeds"] = {sku: sp for sku, sp in own.items() if sp != speed}
            _save_state(request, state)
            return redirect("/checkout/payment")
    today = clock.now().date()
    days = max((ln.product.standard_days for ln in lines), default=5)
    subtotal = sum((ln.amount for ln in lines), Decimal(0))
    options = [
        {
            "code": code,
            "label": s.label,
            "allowed": selectors.speed_allowed(code, lines, dest),
            "date": policies.delivery_date(speed=code, standard_days=days, today=today, state=dest),
            "fee": policies.shipping_fee(speed=code, subtotal=subtotal, member=request.account.member),
        }
        for code, s in policies.SPEEDS.items()
        if policies.speed_served(code, dest)
    ]
    own = state.get("speeds") or {}
    for ln in lines:
        ln.own_speed = own.get(ln.variant.sku, "")
        ln.speed_options = [
            (
                code,
                s.label,
                policies.delivery_date(speed=code, standard_days=ln.product.standard_days, today=today, state=dest),
            )
            for code, s in policies.SPEEDS.items()
            if selectors.speed_allowed(code, [ln], dest)
        ]
    unserved = [s.label for code, s in policies.SPEEDS.items() if not policies.speed_served(code, dest)]
    return _step(
        request,
        "shop/checkout_delivery.html",
        2,
        lines=lines,
        options=options,
        errors=errors,
        zone=policies.zone_for(dest),
        unserved=unserved,
    )


def _payment_page(request, errors=(), card_form=None, promo_error=""):
    cards = [(c, selectors.card_is_expired(c)) for c in selectors.usable_cards(request.account)]
    return _step(
        request,
        "shop/checkout_payment.html",
        3,
        cards=cards,
        errors=list(errors),
        card_form=card_form or {},
        promo_error=promo_error,
        months=range(1, 13),
        years=range(clock.now().year, clock.now().year + 11),
    )


@customer_required
def checkout_payment(request):
    state = _state(request)
    if _address(request, state) is None:
        return redirect("/checkout/address")
    if "speed" not in state:
        return redirect("/checkout/delivery")
    if request.method == "POST":
        state["gift"] = request.POST.get("use_gift") == "1" and request.account.gift_card_balance > 0
        card = request.account.cards.filter(public_id=_int(request.POST.get("card")), removed=False).first()
        if card is None:
            _save_state(request, state)
            return _payment_page(request, ["Please choose a payment method."])
        if selectors.card_is_expired(card):
            _save_state(request, state)
            return _payment_page(request, [f"Your {card.label()} has expired. Please choose another payment method."])
        state["card"] = card.public_id
        state.pop("3ds_ok", None)
        _save_state(request, state)
        return redirect("/checkout/review")
    return _payment_page(request)


@require_POST
@customer_required
def checkout_card_new(request):
    form = {f: request.POST.get(f, "") for f in ("number", "exp_month", "exp_year", "holder")}
    try:
        card = services.card_add(account=request.account, **form)
    except ValidationError as e:
        return _payment_page(request, _field_messages(e, labels=False), card_form={**form, "number": ""})
    state = _state(request)
    state["card"] = card.public_id
    state.pop("3ds_ok", None)
    _save_state(request, state)
    return _payment_page(request)


@require_POST
@customer_required
def checkout_promo(request):
    state = _state(request)
    codes = list(state.get("codes", []))
    if request.POST.get("remove"):
        state["codes"] = [c for c in codes if c != request.POST["remove"]]
        _save_state(request, state)
        return redirect("/checkout/payment")
    try:
        coupon = selectors.coupon_check(request.POST.get("code", "")[:40], _checkout_lines(request), codes)
    except ValidationError as e:
        return _payment_page(request, promo_error=" ".join(_messages(e)))
    state["codes"] = codes + [coupon.code]
    _save_state(request, state)
    return redirect("/checkout/payment")


@customer_required
def checkout_review(request):
    state = _state(request)
    if _address(request, state) is None or "speed" not in state:
        return redirect("/checkout/address")
    lines = _checkout_lines(request)
    if not lines:
        return redirect("/cart")
    if selectors.price_changes(lines):
        return redirect("/checkout/price-change")
    q = selectors.quote(
        account=request.account,
        lines=lines,
        state=_address(request, state).state,
        speed=state["speed"],
        codes=state.get("codes", []),
        use_gift=bool(state.get("gift")),
        speeds=state.get("speeds"),
    )
    if q.card_amount > 0 and _card(request, state) is None:
        return redirect("/checkout/payment")
    return _step(
        request,
        "shop/checkout_review.html",
        4,
        errors=[request.session.pop("shop_error", "")] if request.session.get("shop_error") else [],
    )


@customer_required
def checkout_price_change(request):
    """The interstitial the store puts before the order when a price moved since the item went into
    the cart: the shopper accepts the new prices (or goes back to the cart) before placing it."""
    lines = _checkout_lines(request)
    changed = selectors.price_changes(lines)
    if request.method == "POST":
        services.cart_accept_prices(account=request.account)
        return redirect("/checkout/review")
    if not changed:
        return redirect("/checkout/review")
    return render(request, "shop/checkout_price_change.html", _ctx(request, changed=changed, step=4))


def _place(request):
    state = _state(request)
    address = _address(request, state)
    if address is None or "speed" not in state:
        return redirect("/checkout/address")
    if selectors.price_changes(_checkout_lines(request)):
        return redirect("/checkout/price-change")
    try:
        order = services.order_place(
            account=request.account,
            address=address,
            speed=state["speed"],
            card=_card(request, state),
            codes=state.get("codes", []),
            use_gift=bool(state.get("gift")),
            speeds=state.get("speeds"),
        )
    except ValidationError as e:
        request.session["shop_error"] = " ".join(_messages(e))
        return redirect("/checkout/review")
    request.session.pop(CHECKOUT, None)
    return redirect(f"/gp/buy/thankyou/{order.public_id}")


@require_POST
@customer_required
def checkout_place(request):
    state = _state(request)
    card = _card(request, state)
    if card is not None and card.requires_3ds and not state.get("3ds_ok"):
        return redirect("/checkout/3ds")
    return _place(request)


@customer_required
def checkout_3ds(request, error=""):
    """The card issuer's challenge page (3-D Secure), shown when the chosen card asks for it."""
    card = _card(request, _state(request))
    if card is None:
        return redirect("/checkout/payment")
    return render(
        request,
        "shop/checkout_3ds.html",
        _ctx(request, card=card, error=error, code=policies.THREE_DS_CODE),
        status=400 if error else 200,
    )


@require_POST
@customer_required
def checkout_3ds_verify(request):
    state = _state(request)
    if request.POST.get("code", "").strip() != policies.THREE_DS_CODE:
        return checkout_3ds(request, error="The code you entered is incorrect. Please try again.")
    state["3ds_ok"] = True
    _save_state(request, state)
    return _place(request)


@customer_required
def thankyou(request, public_id):
    order = get_object_or_404(Order, account=request.account, public_id=public_id)
    return render(request, "shop/thankyou.html", _ctx(request, order=order, items=list(order.items.order_by("line"))))


# --- orders -----------------------------------------------------------------------------------------------


FILTERS = {"last30": ("past 30 days", 30), "months-3": ("past 3 months", 92), "all": ("all orders", None)}


@customer_required
def orders(request):
    key = request.GET.get("timeFilter", "months-3")
    key = key if key in FILTERS or key == "cancelled" else "months-3"
    qs = request.account.orders.order_by("-placed_at")
    if key == "cancelled":
        qs = qs.filter(status=Order.Status.CANCELLED)
    elif FILTERS[key][1]:
        qs = qs.filter(placed_at__gte=clock.now() - timedelta(days=FILTERS[key][1]))
    found = list(qs.prefetch_related("items"))
    return render(request, "shop/orders.html", _ctx(request, orders=found, key=key, filters=FILTERS))


def _order(request, public_id) -> Order:
    return get_object_or_404(Order.objects.select_related("card"), account=request.account, public_id=public_id)


def _order_page(request, order, **extra):
    items = list(order.items.select_related("seller").order_by("line"))
    for item in items:
        item.deadline = selectors.return_deadline(item)
        item.blocker = selectors.return_blocker(item)
        item.open_returns = list(item.returns.order_by("public_id"))
    shipments = selectors.order_shipments(order)
    for shipment in shipments:
        shipment["items"] = [i for i in items if i.shipment == shipment["number"]]
        shipment["latest"] = next(iter(selectors.tracking(order, shipment)), None)
    return render(
        request,
        "shop/order.html",
        _ctx(
            request,
            order=order,
            items=items,
            shipments=shipments,
            refunds=list(order.refunds.order_by("public_id")),
            **extra,
        ),
        status=400 if extra.get("errors") else 200,
    )


@customer_required
def order_detail(request, public_id):
    return _order_page(request, _order(request, public_id))


@customer_required
def order_invoice(request, public_id):
    order = _order(request, public_id)
    return render(
        request,
        "shop/invoice.html",
        _ctx(
            request,
            order=order,
            shipments=selectors.order_shipments(order),
            refunds=list(order.refunds.order_by("public_id")),
            speeds=policies.SPEEDS,
        ),
    )


@customer_required
def order_tracking(request, public_id):
    order = _order(request, public_id)
    shipments = selectors.order_shipments(order)
    wanted = _int(request.GET.get("shipment", "1")) or 1
    shipment = next((s for s in shipments if s["number"] == wanted), None)
    if shipment is None:
        raise Http404
    events = selectors.tracking(order, shipment)
    seen = " ".join(e.status for e in events)
    progress = [(label, label in seen) for label in ("Ordered", "Shipped", "Out for delivery", "Delivered")]
    return render(
        request,
        "shop/tracking.html",
        _ctx(
            request,
            order=order,
            shipment=shipment,
            shipments=shipments,
            events=events,
            progress=progress,
            speed_label=policies.speed_label(shipment["speed"]),
        ),
    )


@customer_required
def order_cancel(request, public_id):
    order = _order(request, public_id)
    errors = []
    if request.method == "POST":
        try:
            services.order_cancel_items(
                order=order, lines=[_int(n) for n in request.POST.getlist("line") if _int(n) is not None]
            )
        except ValidationError as e:
            errors = _messages(e)
        else:
            return redirect(f"/your-orders/{order.public_id}")
    return render(
        request,
        "shop/order_cancel.html",
        _ctx(
            request,
            order=order,
            errors=errors,
            items=list(order.items.filter(status=OrderItem.Status.ACTIVE).order_by("line")),
        ),
        status=400 if errors else 200,
    )


@customer_required
def order_address(request, public_id):
    order = _order(request, public_id)
    errors = []
    if request.method == "POST":
        address = request.account.addresses.filter(public_id=_int(request.POST.get("address"))).first()
        try:
            if address is None:
                raise ValidationError("Please choose an address.")
            services.order_change_address(order=order, address=address)
        except ValidationError as e:
            errors = _messages(e)
        else:
            return redirect(f"/your-orders/{order.public_id}")
    return render(
        request,
        "shop/order_address.html",
        _ctx(request, order=order, errors=errors, addresses=selectors.usable_addresses(request.account)),
        status=400 if errors else 200,
    )


@customer_required
def order_return(request, public_id, line):
    order = _order(request, public_id)
    item = get_object_or_404(OrderItem.objects.select_related("seller"), order=order, line=line)
    errors = []
    if request.method == "POST":
        try:
            services.return_request(
                item=item,
                reason=request.POST.get("reason", ""),
                comment=request.POST.get("comment", ""),
                refund_method=request.POST.get("refund_method", Refund.Method.CARD),
            )
        except ValidationError as e:
            errors = _messages(e)
        else:
            return redirect(f"/your-orders/{order.public_id}")
    return render(
        request,
        "shop/order_return.html",
        _ctx(
            request,
            order=order,
            item=item,
            errors=errors,
            reasons=ReturnRequest.Reason.choices,
            methods=Refund.Method.choices,
            chosen_reason=request.POST.get("reason", ""),
            chosen_method=request.POST.get("refund_method", Refund.Method.CARD),
            deadline=selectors.return_deadline(item),
            blocker=selectors.return_blocker(item),
        ),
        status=400 if errors else 200,
    )


# --- account ----------------------------------------------------------------------------------------------


@customer_required
def account_home(request):
    return render(
        request,
        "shop/account.html",
        _ctx(
            request,
            tier=policies.loyalty_tier(request.account.loyalty_points),
            message_count=request.account.messages.count(),
        ),
    )


@customer_required
def account_membership(request):
    error = ""
    if request.method == "POST":
        try:
            services.membership_set(account=request.account, member=request.POST.get("action") == "join")
        except ValidationError as e:
            error = " ".join(_messages(e))
        else:
            return redirect("/account/membership")
    return render(
        request,
        "shop/membership.html",
        _ctx(request, error=error, speeds=policies.SPEEDS, threshold=policies.FREE_SHIPPING_OVER),
        status=400 if error else 200,
    )


@customer_required
def account_rewards(request):
    points = request.account.loyalty_points
    tier, up = policies.loyalty_tier(points), policies.next_tier(points)
    return render(
        request,
        "shop/rewards.html",
        _ctx(request, tier=tier, next_tier=up, to_next=up.min_points - points if up else 0, tiers=policies.TIERS),
    )


@customer_required
def account_currency(request):
    error = ""
    if request.method == "POST":
        try:
            services.currency_set(account=request.account, currency=request.POST.get("currency", ""))
        except ValidationError as e:
            error = " ".join(_messages(e))
        else:
            return redirect("/account/currency")
    return render(
        request,
        "shop/currency.html",
        _ctx(request, error=error, currencies=policies.CURRENCIES.values()),
        status=400 if error else 200,
    )


@customer_required
def account_messages(request):
    found = list(request.account.messages.select_related("seller", "order").order_by("-sent_at", "-public_id"))
    return render(request, "shop/messages.html", _ctx(request, found=found))


@customer_required
def account_message(request, public_id):
    message = get_object_or_404(
        SellerMessage.objects.select_related("seller", "order"), account=request.account, public_id=public_id
    )
    return render(request, "shop/message.html", _ctx(request, message=message))


ADDRESS_FIELDS = ["full_name", "line1", "line2", "city", "state", "zip_code", "phone"]


@customer_required
def account_addresses(request):
    """The address book: add an address (validated as at checkout), make one the default, remove one."""
    errors, form = [], {}
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "add":
                form = {f: request.POST.get(f, "")[:200] for f in ADDRESS_FIELDS}
                services.address_add(account=request.account, **form)
            elif action in ("default", "remove"):
                address = request.account.addresses.filter(public_id=_int(request.POST.get("address"))).first()
                if address is None:
                    raise ValidationError("Please choose one of your addresses.")
                if action == "default":
                    services.address_set_default(address=address)
                else:
                    services.address_remove(address=address)
                    # a checkout under way must not ship to the address that took its slot later
                    state = _state(request)
                    if state.pop("address", None) == address.public_id:
                        _save_state(request, state)
            else:
                raise ValidationError("Choose add, set as default or remove.")
        except ValidationError as e:
            errors = _field_messages(e)
        else:
            return redirect("/account/addresses")
    return render(
        request,
        "shop/addresses.html",
        _ctx(
            request,
            addresses=selectors.usable_addresses(request.account),
            errors=errors,
            form=form,
            adding=bool(form),
            states=policies.STATES,
        ),
        status=400 if errors else 200,
    )


@customer_required
def account_payments(request):
    """Saved cards: remove one, or add one (Luhn, expiry and the issuer's check, as at checkout)."""
    errors, card_form = [], {}
    if request.method == "POST":
        if "remove" in request.POST:
            card = request.account.cards.filter(public_id=_int(request.POST.get("remove")), removed=False).first()
            if card is None:
                raise Http404
            services.card_remove(card=card)
            return redirect("/account/payments")
        card_form = {f: request.POST.get(f, "")[:40] for f in ("number", "exp_month", "exp_year", "holder")}
        try:
            services.card_add(account=request.account, **card_form)
        except ValidationError as e:
            errors = _field_messages(e, labels=False)
            card_form["number"] = ""  # a card number is never echoed back
        else:
            return redirect("/account/payments")
    cards = [(c, selectors.card_is_expired(c)) for c in selectors.usable_cards(request.account)]
    year = clock.now().year
    return render(
        request,
        "shop/payments.html",
        _ctx(
            request, cards=cards, errors=errors, card_form=card_form, months=range(1, 13), years=range(year, year + 11)
        ),
        status=400 if errors else 200,
    )


# --- back office ------------------------------------------------------------------------------------------


@staff_required
def backoffice_returns(request):
    status = request.GET.get("status", "requested")
    status = status if status in ReturnRequest.Status.values else "requested"
    rets = list(
        ReturnRequest.objects.filter(status=status)
        .select_related("item__order__account", "item__seller")
        .prefetch_related("item__returns")
        .order_by("requested_at", "public_id")
    )
    for ret in rets:
        ret.others = [r for r in ret.item.returns.all() if r.pk != ret.pk]
        ret.deadline = selectors.return_deadline(ret.item)
        ret.in_window = ret.deadline is not None and ret.requested_at <= ret.deadline
        ret.refund_amount = selectors.refund_for_return(ret)
    return render(
        request,
        "shop/backoffice_returns.html",
        _ctx(
            request,
            returns=rets,
            status=status,
            statuses=ReturnRequest.Status.choices,
            error=request.session.pop("shop_error", ""),
        ),
    )


@require_POST
@staff_required
def backoffice_return_decide(request, public_id):
    ret = get_object_or_404(ReturnRequest.objects.select_related("item__seller", "item__order"), public_id=public_id)
    decision = request.POST.get("decision")
    if decision not in ("approve", "reject"):
        request.session["shop_error"] = "Choose approve or reject."
    else:
        try:
            services.return_decide(ret=ret, approve=decision == "approve")
        except ValidationError as e:
            request.session["shop_error"] = " ".join(_messages(e))
    return redirect("/backoffice/returns")


@staff_required
def backoffice_orders(request):
    q = request.GET.get("q", "").strip().upper()[:20]
    order = Order.objects.filter(public_id=q).first() if q else None
    if order is not None:
        return redirect(f"/backoffice/orders/{order.public_id}")
    return render(request, "shop/backoffice_orders.html", _ctx(request, q=q, not_found=bool(q)))


@staff_required
def backoffice_order(request, public_id):
    order = get_object_or_404(Order.objects.select_related("account", "card"), public_id=public_id)
    errors = []
    if request.method == "POST":
        item = order.items.filter(line=_int(request.POST.get("line"))).first()
        try:
            amount = Decimal(request.POST.get("amount", "").replace("$", "").replace(",", "").strip())
        except InvalidOperation:
            amount = None
        try:
            if item is None:
                raise ValidationError("Choose the item to refund.")
            services.refund_issue(
                order=order,
                item=item,
                amount=amount,
                reason=request.POST.get("reason", ""),
                method=request.POST.get("method", ""),
            )
        except ValidationError as e:
            errors = _messages(e)
        else:
            return redirect(f"/backoffice/orders/{order.public_id}")
    items = list(order.items.select_related("seller").order_by("line"))
    for item in items:
        item.refunded = selectors.refunded_total(item)
    return render(
        request,
        "shop/backoffice_order.html",
        _ctx(
            request,
            order=order,
            items=items,
            errors=errors,
            refunds=list(order.refunds.order_by("public_id")),
            methods=Refund.Method.choices,
            returns=list(ReturnRequest.objects.filter(item__order=order).order_by("public_id")),
        ),
        status=400 if errors else 200,
    )


@staff_required
def backoffice_inventory(request):
    """Stock per variant, fewest units first, with the count a person can correct after a stock take."""
    text = request.GET.get("q", "").strip()[:60]
    stock = request.GET.get("stock", "all")
    stock = stock if stock in selectors.STOCK_FILTERS else "all"
    errors = []
    if request.method == "POST":
        sku = request.POST.get("sku", "").strip()[:24]
        variant = Variant.objects.select_related("product").filter(sku=sku).first() if sku else None
        try:
            if variant is None:
                raise ValidationError("Choose a variant from the list.")
            services.variant_stock_set(variant=variant, stock=request.POST.get("stock", "")[:12])
        except ValidationError as e:
            errors = _messages(e)
        else:
            request.session["shop_notice"] = f"{variant.sku}: {variant.stock} on hand."
            return redirect(request.get_full_path())
    found = selectors.inventory(text=text, stock=stock, page=_int(request.GET.get("page", "1")) or 1)
    params = {k: v for k, v in (("q", text), ("stock", stock)) if v and v != "all"}
    base = "/backoffice/inventory?" + "".join(f"{k}={urlquote(v)}&" for k, v in params.items())
    return render(
        request,
        "shop/backoffice_inventory.html",
        _ctx(
            request,
            found=found,
            text=text,
            stock=stock,
            filters=selectors.STOCK_FILTERS,
            errors=errors,
            notice=request.session.pop("shop_notice", ""),
            low=selectors.LOW_STOCK,
            max_stock=services.MAX_STOCK,
            prev_link=f"{base}page={found.page - 1}" if found.page > 1 else "",
            next_link=f"{base}page={found.page + 1}" if found.page < found.pages else "",
        ),
        status=400 if errors else 200,
    )


@staff_required
def backoffice_exceptions(request):
    return render(request, "shop/backoffice_exceptions.html", _ctx(request, exceptions=selectors.order_exceptions()))
