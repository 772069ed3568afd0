"""Checkout, one page of collapsible sections in the store's 2024-25 order (shop/checkout.html): shipping
address (or a new one through the address validation service), payment (saved or new card, gift card,
promotional codes), then items and delivery (the delivery options shown with the items they carry, per
order and per item); "Place your order" stays in the side box throughout. Each section's URL opens that
section. Then the price-change interstitial, the card issuer's 3-D Secure challenge, and the thank-you
page. What was chosen so far lives in the session (common.CHECKOUT)."""

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

CHECKOUT_ERROR = "shop_error"  # why placing the order (or a delivery choice) failed, shown once on the page

# The sections of the single checkout page, in the store's order; `_step` opens one of them.
ADDRESS, PAYMENT, ITEMS = 1, 2, 3


def _address(request, state) -> Address | None:
    pid = state.get("address")
    return request.account.addresses.filter(public_id=pid).first() if isinstance(pid, int) else None


def _card(request, state) -> Card | None:
    pid = state.get("card")
    return request.account.cards.filter(public_id=pid, removed=False).first() if isinstance(pid, int) else None


def _quote(request, state: dict, lines, address: Address | None):
    """The order's totals as chosen so far (standard shipping until a delivery option is chosen)."""
    return selectors.quote(
        account=request.account,
        lines=lines,
        state=address.state if address else "",
        speed=state.get("speed", "standard"),
        codes=state.get("codes", []),
        use_gift=bool(state.get("gift")),
        speeds=state.get("speeds"),
    )


def _step(request, step, lines=None, quote=None, errors=(), **extra):
    """The single checkout page with section `step` open (ADDRESS, PAYMENT, ITEMS); the sections before it
    show what was chosen, with Change. An error left by a redirect (CHECKOUT_ERROR) is shown once."""
    state = checkout_state(request)
    left = request.session.pop(CHECKOUT_ERROR, "")
    errors = [*errors, *([left] if left else [])]
    lines = selectors.checkout_lines(request.account) if lines is None else lines
    address = _address(request, state)
    return render(
        request,
        "shop/checkout.html",
        page_context(
            request,
            step=step,
            errors=errors,
            lines=lines,
            address=address,
            speed=state.get("speed", "standard"),
            state=state,
            quote=quote if quote is not None else _quote(request, state, lines, address),
            card=_card(request, state),
            **extra,
        ),
        status=400 if errors and not left else 200,
    )


def _ship_to(request, address: Address):
    """Use `address` for this checkout, and for the header's "Deliver to" from now on."""
    state = checkout_state(request)
    state["address"] = address.public_id
    checkout_state_save(request, state)
    request.session[DELIVER_TO] = {"address": address.public_id}
    return redirect("/checkout/payment")


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
        ADDRESS,
        errors=errors,
        addresses=selectors.usable_addresses(request.account),
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


def _delivery_choices(request, lines, dest: str, state: dict) -> dict:
    """The items-and-delivery section's choices: the order's speeds the destination's zone serves (with
    date, fee and whether every item can take it), each line's own speeds, and the speeds not served."""
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
    return {
        "options": options,
        "zone": policies.zone_for(dest),
        "unserved": [s.label for code, s in policies.SPEEDS.items() if not policies.speed_served(code, dest)],
    }


def _delivery_save(request, state: dict, lines, dest: str) -> bool:
    """Keep the delivery choice posted from the items-and-delivery section; False, with the reason left
    for the page (CHECKOUT_ERROR), when the zone or an item cannot take it."""
    form = DeliveryForm(request.POST, lines=lines, dest=dest)
    if not form.is_valid():
        request.session[CHECKOUT_ERROR] = " ".join(form_messages(form))
        return False
    state["speed"] = form.cleaned_data["speed"]
    state["speeds"] = form.cleaned_data["speeds"]
    checkout_state_save(request, state)
    return True


@customer_required
def checkout_delivery(request):
    """The delivery options live in the items-and-delivery section (/checkout/review); a change there posts
    here (the page's script does it on change, so the totals and arrival dates follow at once)."""
    state = checkout_state(request)
    address = _address(request, state)
    if address is None:
        return redirect("/checkout/address")
    if request.method == "POST":
        _delivery_save(request, state, selectors.checkout_lines(request.account), address.state)
    return redirect("/checkout/review")


def _payment_page(request, errors=(), card_form=None, promo_error=""):
    cards = [(c, selectors.card_is_expired(c)) for c in selectors.usable_cards(request.account)]
    return _step(
        request,
        PAYMENT,
        errors=errors,
        cards=cards,
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


def _missing(request, state, address: Address | None, quote) -> tuple[str, str] | None:
    """What the order still lacks before it can be placed, as (section URL, message), or None. Delivery
    lacks nothing: it starts at standard shipping, as the store preselects it."""
    if address is None:
        return "/checkout/address", "Choose a shipping address to place your order."
    if quote.card_amount > 0 and _card(request, state) is None:
        return "/checkout/payment", "Choose a payment method to place your order."
    return None


@customer_required
def checkout_review(request):
    """The items-and-delivery section, open once address and payment are chosen."""
    state = checkout_state(request)
    lines = selectors.checkout_lines(request.account)
    if not lines:
        return redirect("/cart")
    address = _address(request, state)
    q = _quote(request, state, lines, address)
    missing = _missing(request, state, address, q)
    if missing:
        return redirect(missing[0])
    if selectors.price_changes(lines):
        return redirect("/checkout/price-change")
    return _step(request, ITEMS, lines=lines, quote=q, **_delivery_choices(request, lines, address.state, state))


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
    return render(request, "shop/checkout_price_change.html", page_context(request, changed=changed))


def _place(request):
    state = checkout_state(request)
    lines = selectors.checkout_lines(request.account)
    if not lines:
        return redirect("/cart")
    address = _address(request, state)
    missing = _missing(request, state, address, _quote(request, state, lines, address))
    if missing:
        request.session[CHECKOUT_ERROR] = missing[1]
        return redirect(missing[0])
    if selectors.price_changes(lines):
        return redirect("/checkout/price-change")
    try:
        order = services.order_place(
            account=request.account,
            address=address,
            speed=state.get("speed", "standard"),
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
    """The side box's "Place your order". From the items-and-delivery section it carries that section's
    delivery choice: a choice the page has not yet priced (no script ran) is kept and the page shown again
    with its totals, so no order is charged a total the shopper did not see."""
    state = checkout_state(request)
    address = _address(request, state)
    if "speed" in request.POST and address is not None:
        before = (state.get("speed", "standard"), state.get("speeds") or {})
        if not _delivery_save(request, state, selectors.checkout_lines(request.account), address.state):
            return redirect("/checkout/review")
        if (state["speed"], state["speeds"]) != before:
            request.session[CHECKOUT_ERROR] = (
                "Your delivery choice changed your order total. Review it, then place your order."
            )
            return redirect("/checkout/review")
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
