"""The cart: lines with their delivery dates and price changes, saved for later, gift options,
adding one item or a frequently-bought-together bundle."""

from decimal import Decimal
from functools import wraps

from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds import clock

from .. import policies, selectors, services
from ..forms import CartAddForm, CartBundleForm, CartUpdateForm, form_messages
from ..models import Account, CartItem, SeasonalSale, Variant, VisitorCartItem
from .common import (
    customer_required,
    deliver_to_of,
    error_messages,
    login_redirect,
    page_context,
    signed_in,
    visitor_token,
)

CART_ERROR = "shop_error"  # a refused cart change, shown once on the cart page it redirects to


def shopper_required(view):
    """For a customer, or a signed-out visitor (whose cart lives under their session's token:
    `request.visitor`); a staff account has no cart and is sent to sign in as a customer."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        account = signed_in(request)
        if account is not None and account.role != Account.Role.CUSTOMER:
            return login_redirect(request)
        request.account = account
        request.visitor = "" if account is not None else visitor_token(request, create=request.method == "POST")
        return view(request, *args, **kwargs)

    return wrapper


@shopper_required
def cart(request):
    if request.account is None:
        lines, saved = selectors.visitor_cart_lines(request.visitor), []
    else:
        lines = selectors.cart_lines(request.account)
        saved = selectors.cart_lines(request.account, saved=True)
    subtotal = sum((ln.amount for ln in lines), Decimal(0))
    deliver = deliver_to_of(request, request.account)
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
        page_context(
            request,
            deliver=deliver,
            lines=lines,
            saved=saved,
            subtotal=subtotal,
            count=sum(ln.quantity for ln in lines),
            blocked=any(ln.out_of_stock for ln in lines),
            error=request.session.pop(CART_ERROR, ""),
            quantities=range(0, services.MAX_QUANTITY + 1),
            gift_wrap_fee=policies.GIFT_WRAP_FEE,
            gift_message_max=policies.GIFT_MESSAGE_MAX,
            visitor=request.account is None,
        ),
    )


@require_POST
@shopper_required
def cart_add(request):
    form = CartAddForm(request.POST)
    sku = request.POST.get("sku", "")[:24]
    variant = Variant.objects.select_related("product").filter(sku=sku).first() if sku else None
    if variant is None:
        raise Http404
    error = ""
    try:
        if not form.is_valid():
            raise ValidationError(form_messages(form))
        if request.account is None:
            services.visitor_cart_add(visitor=request.visitor, variant=variant, quantity=form.cleaned_data["quantity"])
        else:
            services.cart_add(account=request.account, variant=variant, quantity=form.cleaned_data["quantity"])
    except ValidationError as e:
        error = " ".join(error_messages(e))
    if request.htmx:
        return _added_sheet(request, variant, error)
    if error:
        request.session[CART_ERROR] = error
    return redirect("/cart")


def _added_sheet(request, variant, error: str):
    """The "Added to cart" side sheet the product page opens (htmx): the cart's subtotal and the way
    to checkout, and the header's cart count swapped out of band; a refusal shows in the sheet."""
    lines = (
        selectors.cart_lines(request.account)
        if request.account is not None
        else selectors.visitor_cart_lines(request.visitor)
    )
    count = sum(ln.quantity for ln in lines)
    return render(
        request,
        "shop/_added_sheet.html",
        {
            "variant": variant,
            "error": error,
            "count": count,
            "cart_count": count,
            "subtotal": sum((ln.amount for ln in lines), Decimal(0)),
        },
    )


@require_POST
@customer_required
def cart_add_bundle(request):
    form = CartBundleForm(request.POST)
    if not form.is_valid():
        request.session[CART_ERROR] = " ".join(form_messages(form))
        return redirect("/cart")
    variants = list(Variant.objects.select_related("product").filter(sku__in=form.skus))
    if len(variants) != len(form.skus):
        raise Http404
    try:
        services.cart_add_bundle(
            account=request.account, variants=sorted(variants, key=lambda v: form.skus.index(v.sku))
        )
    except ValidationError as e:
        request.session[CART_ERROR] = " ".join(error_messages(e))
    return redirect("/cart")


@require_POST
@shopper_required
def cart_update(request, sku):
    if request.account is None:
        item = get_object_or_404(VisitorCartItem, visitor=request.visitor, variant__sku=sku)
    else:
        item = get_object_or_404(CartItem, account=request.account, variant__sku=sku)
    form = CartUpdateForm(request.POST)
    if not form.is_valid():
        request.session[CART_ERROR] = " ".join(form_messages(form))
        return redirect("/cart")
    data, action = form.cleaned_data, form.cleaned_data["action"]
    if request.account is None and action not in ("update", "delete"):
        # saved for later and gift options belong to an account: sign in first, then come back
        return login_redirect(request)
    try:
        if action == "delete":
            services.cart_update(item=item, quantity=0)
        elif action in ("save", "move"):
            services.cart_save_for_later(item=item, saved=action == "save")
        elif action == "gift":
            services.cart_gift(item=item, gift=data["gift"], wrap=data["gift_wrap"], message=data["gift_message"])
        else:
            services.cart_update(item=item, quantity=data["quantity"])
    except ValidationError as e:
        request.session[CART_ERROR] = " ".join(error_messages(e))
    return redirect("/cart")
