"""Checkout, one page of collapsible sections as the store has it today (shop/checkout.html): shipping
address (or a new one through the address validation service), delivery speeds per order and per item,
payment (saved or new card, gift card, promotional codes), review with "Place your order" in the side box;
each section's URL opens that section. Then the price-change interstitial, the card issuer's 3-D Secure
challenge, and the thank-you page. What was chosen so far lives in the session (common.CHECKOUT)."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds import clock

from .. import policies, selectors, services
from ..forms import (
    AddressChoiceForm,
    AddressForm,
    CardForm,
    CartAddForm,
    DeliveryForm,
    PaymentForm,
    PromoForm,
    ThreeDSForm,
    form_messages,
)
from ..models import Address, Card, Order, Variant
from .common import (
    CHECKOUT,
    DELIVER_TO,
    checkout_state,
    checkout_state_save,
    customer_required,
    deliver_to_of,
    error_messages,
    field_messages,
    page_context,
)
from .product import DP_NOTICE

CHECKOUT_ERROR = "shop_error"  # why placing the order failed, shown once on the review page


def _address(request, state) -> Address | None:
    pid = state.get("address")
    return request.account.addresses.filter(public_id=pid).first() if isinstance(pid, int) else None


def _card(request, state) -> Card | None:
    pid = state.get("card")
    return request.account.cards.filter(public_id=pid, removed=False).first() if isinstance(pid, int) else None


def _step(request, template, step, lines=None, quote=None, **extra):
    """The single checkout page with section `step` open (1 address, 2 delivery, 3 payment, 4 review and
    place the order); the sections before it show what was chosen, with Change."""
    state = checkout_state(request)
    lines = selectors.checkout_lines(request.account) if lines is None else lines
    address = _address(request, state)
    speed = state.get("speed", "standard")
    q = (
        quote
        if quote is not None
        else selectors.quote(
            account=request.account,
            lines=lines,
            state=address.state if address else "",
            speed=speed,
            codes=state.get("codes", []),
            use_gift=bool(state.get("gift")),
            speeds=state.get("speeds"),
        )
    )
    return render(
        request,
        template,
        page_context(
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


def _ship_to(request, address: Address):
    """Use `address` for this checkout, and for the header's "Deliver to" from now on."""
    state = checkout_state(request)
    state["address"] = address.public_id
    checkout_state_save(request, state)
    request.session[DELIVER_TO] = {"address": address.public_id}
    return redirect("/checkout/delivery")


@customer_required
def checkout(request):
    """Proceed to checkout from the cart: the cart's lines (an unfinished Buy Now is dropped)."""
    services.buy_now_drop(account=request.account)
    if not selectors.cart_lines(request.account):
        return redirect("/cart")
    return redirect("/checkout/address")


@require_POST
@customer_required
def buy_now(request):
    """Buy Now on the product page: straight to checkout with this item alone (the cart stays)."""
    form = CartAddForm(request.POST)
    variant = get_object_or_404(Variant.objects.select_related("product"), sku=request.POST.get("sku", "")[:24])
    try:
        if not form.is_valid():
            raise ValidationError(form_messages(form))
        services.buy_now(account=request.account, variant=variant, quantity=form.cleaned_data["quantity"])
    except ValidationError as e:
        request.session[DP_NOTICE] = {"error": True, "text": " ".join(error_messages(e))}
        return redirect(f"/dp/{variant.product.asin}?sku={variant.sku}")
    return redirect("/checkout/address")


def _address_page(request, errors=(), form=None):
    deliver_to, _ = deliver_to_of(request, request.account)
    return _step(
        request,
        "shop/checkout.html",
        1,
        addresses=selectors.usable_addresses(request.account),
        errors=list(errors),
        form=form or {},
        states=policies.STATES,
        adding=form is not None,
        preselect=checkout_state(request).get("address") or (deliver_to.public_id if deliver_to else None),
    )


@customer_required
def checkout_address(request):
    if not selectors.checkout_lines(request.account):
        return redirect("/cart")
    if request.method == "POST":
        form = AddressChoiceForm(
            request.POST, addresses=request.account.addresses.all(), message="Please choose a shipping address."
        )
        if not form.is_valid():
            return _address_page(request, form_messages(form))
        address = form.cleaned_data["address"]
        if not address.complete:
            return _address_page(
                request,
                ["This address is missing required fields (state or ZIP code). Add it again as a new address."],
            )
        return _ship_to(request, address)
    return _address_page(request)


@require_POST
@customer_required
def checkout_address_new(request):
    """The address validation service: checks and saves a new address, then uses it."""
    form = AddressForm(request.POST)
    try:
        if not form.is_valid():
            raise ValidationError({name: errors for name, errors in form.errors.items()})
        address = services.address_add(account=request.account, **form.cleaned_data)
    except ValidationError as e:
        return _address_page(request, field_messages(e), form=form.typed())
    return _ship_to(request, address)


@customer_required
def checkout_delivery(request):
    state = checkout_state(request)
    address = _address(request, state)
    if address is None:
        return redirect("/checkout/address")
    dest = address.state
    lines = selectors.checkout_lines(request.account)
    errors = []
    if request.method == "POST":
        form = DeliveryForm(request.POST, lines=lines, dest=dest)
        if form.is_valid():
            state["speed"] = form.cleaned_data["speed"]
            state["speeds"] = form.cleaned_data["speeds"]
            checkout_state_save(request, state)
            return redirect("/checkout/payment")
        errors = form_messages(form)
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
        "shop/checkout.html",
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
        "shop/checkout.html",
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
    state = checkout_state(request)
    if _address(request, state) is None:
        return redirect("/checkout/address")
    if "speed" not in state:
        return redirect("/checkout/delivery")
    if request.method == "POST":
        form = PaymentForm(request.POST, cards=request.account.cards.filter(removed=False))
        valid = form.is_valid()
        # the gift card choice is kept even when the card is refused, as the page shows it again
        state["gift"] = form.cleaned_data.get("use_gift", False) and request.account.gift_card_balance > 0
        if not valid:
            checkout_state_save(request, state)
            return _payment_page(request, form_messages(form))
        state["card"] = form.cleaned_data["card"].public_id
        state.pop("3ds_ok", None)
        checkout_state_save(request, state)
        return redirect("/checkout/review")
    return _payment_page(request)


@require_POST
@customer_required
def checkout_card_new(request):
    form = CardForm(request.POST)
    try:
        if not form.is_valid():
            raise ValidationError(form_messages(form))
        card = services.card_add(account=request.account, **form.cleaned_data)
    except ValidationError as e:
        return _payment_page(request, field_messages(e, labels=False), card_form=form.typed())
    state = checkout_state(request)
    state["card"] = card.public_id
    state.pop("3ds_ok", None)
    checkout_state_save(request, state)
    return _payment_page(request)


@require_POST
@customer_required
def checkout_promo(request):
    state = checkout_state(request)
    codes = list(state.get("codes", []))
    form = PromoForm(request.POST)
    if not form.is_valid():
        return _payment_page(request, promo_error=" ".join(form_messages(form)))
    if form.cleaned_data["remove"]:
        state["codes"] = [c for c in codes if c != form.cleaned_data["remove"]]
        checkout_state_save(request, state)
        return redirect("/checkout/payment")
    try:
        coupon = selectors.coupon_check(form.cleaned_data["code"], selectors.checkout_lines(request.account), codes)
    except ValidationError as e:
        return _payment_page(request, promo_error=" ".join(error_messages(e)))
    state["codes"] = codes + [coupon.code]
    checkout_state_save(request, state)
    return redirect("/checkout/payment")


@customer_required
def checkout_review(request):
    state = checkout_state(request)
    if _address(request, state) is None or "speed" not in state:
        return redirect("/checkout/address")
    lines = selectors.checkout_lines(request.account)
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
    error = request.session.pop(CHECKOUT_ERROR, "")
    return _step(request, "shop/checkout.html", 4, lines=lines, quote=q, errors=[error] if error else [])


@customer_required
def checkout_price_change(request):
    """The interstitial the store puts before the order when a price moved since the item went into
    the cart: the shopper accepts the new prices (or goes back to the cart) before placing it."""
    lines = selectors.checkout_lines(request.account)
    changed = selectors.price_changes(lines)
    if request.method == "POST":
        services.cart_accept_prices(account=request.account)
        return redirect("/checkout/review")
    if not changed:
        return redirect("/checkout/review")
    return render(request, "shop/checkout_price_change.html", page_context(request, changed=changed, step=4))


def _place(request):
    state = checkout_state(request)
    address = _address(request, state)
    if address is None or "speed" not in state:
        return redirect("/checkout/address")
    if selectors.price_changes(selectors.checkout_lines(request.account)):
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
        request.session[CHECKOUT_ERROR] = " ".join(error_messages(e))
        return redirect("/checkout/review")
    request.session.pop(CHECKOUT, None)
    return redirect(f"/gp/buy/thankyou/{order.public_id}")


@require_POST
@customer_required
def checkout_place(request):
    state = checkout_state(request)
    card = _card(request, state)
    if card is not None and card.requires_3ds and not state.get("3ds_ok"):
        return redirect("/checkout/3ds")
    return _place(request)


def _challenge_page(request, error=""):
    """The card issuer's challenge page (3-D Secure), shown when the chosen card asks for it."""
    card = _card(request, checkout_state(request))
    if card is None:
        return redirect("/checkout/payment")
    return render(
        request,
        "shop/checkout_3ds.html",
        page_context(request, card=card, error=error, code=policies.THREE_DS_CODE),
        status=400 if error else 200,
    )


@customer_required
def checkout_3ds(request):
    return _challenge_page(request)


@require_POST
@customer_required
def checkout_3ds_verify(request):
    form = ThreeDSForm(request.POST)
    if not form.is_valid():
        return _challenge_page(request, error=" ".join(form_messages(form)))
    state = checkout_state(request)
    state["3ds_ok"] = True
    checkout_state_save(request, state)
    return _place(request)


@customer_required
def thankyou(request, public_id):
    order = get_object_or_404(Order, account=request.account, public_id=public_id)
    return render(
        request, "shop/thankyou.html", page_context(request, order=order, items=list(order.items.order_by("line")))
    )
