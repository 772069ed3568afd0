"""Your Orders: the list by period, an order's details, invoice and tracking, cancelling items,
changing the shipping address, and asking for a return."""

from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe

from replicas.worlds import clock

from .. import policies, qr, selectors, services
from ..forms import AddressChoiceForm, CancelForm, ReturnForm, form_messages
from ..models import Order, OrderItem, Refund, ReturnRequest
from .common import customer_required, error_messages, page_context, whole_number

ORDER_NOTICE = "shop_order_notice"  # what a cancellation changed, shown once on the order page
FILTERS = {"last30": ("past 30 days", 30), "months-3": ("past 3 months", 92), "all": ("all orders", None)}


# Your Orders' tabs: (query value, label); "orders" is the list by period
TABS = [
    ("orders", "Orders"),
    ("buy-again", "Buy Again"),
    ("not-shipped", "Not Yet Shipped"),
    ("cancelled", "Cancelled Orders"),
]


@customer_required
def orders(request):
    key = request.GET.get("timeFilter", "months-3")
    key = key if key in FILTERS or key == "cancelled" else "months-3"
    tab = request.GET.get("tab", "")
    tab = tab if tab in dict(TABS) else ("cancelled" if key == "cancelled" else "orders")
    qs = request.account.orders.order_by("-placed_at")
    bought = []
    # "Search all orders": every word in an item's title, or the order number, across every period
    search = " ".join(request.GET.get("search", "").split())[:80]
    if search and tab == "orders":
        for word in search.split():
            qs = qs.filter(Q(public_id__icontains=word) | Q(items__title__icontains=word))
        qs = qs.distinct()
    elif tab == "cancelled":
        qs = qs.filter(status=Order.Status.CANCELLED)
    elif tab == "not-shipped":
        qs = qs.filter(status=Order.Status.PLACED)
    elif tab == "buy-again":
        bought, qs = selectors.bought_before(request.account), qs.none()
    elif FILTERS.get(key, FILTERS["months-3"])[1]:
        qs = qs.filter(placed_at__gte=clock.now() - timedelta(days=FILTERS[key][1]))
    found = list(qs.prefetch_related("items__variant__product", "items__replacements__order", "replaces__item__order"))
    return render(
        request,
        "shop/orders.html",
        page_context(request, orders=found, key=key, filters=FILTERS, tab=tab, tabs=TABS, bought=bought, search=search),
    )


def _cancel_notice(order: Order, discount_before, total_before) -> str:
    """What a cancellation changed in money: the promotions re-evaluated on the items kept, and the
    new total (nothing is charged for cancelled items, so this is what the shopper gets back)."""
    parts = ["The selected items were cancelled; you will not be charged for them."]
    promotions = selectors.order_promotions(order)
    if promotions:
        said = "; ".join(
            f"{p.code} ({p.rule}) no longer applies: {p.dropped}"
            if p.dropped
            else f"{p.code} ({p.rule}): -{policies.money(p.amount)}"
            for p in promotions
        )
        parts.append(
            f"Promotions were re-evaluated on the items you kept: {said}. "
            f"Promotion total -{policies.money(order.discount)} (was -{policies.money(discount_before)})."
        )
    parts.append(f"New order total {policies.money(order.total)} (was {policies.money(total_before)}).")
    return " ".join(parts)


def _order(request, public_id) -> Order:
    return get_object_or_404(Order.objects.select_related("card"), account=request.account, public_id=public_id)


@customer_required
def order_detail(request, public_id):
    order = _order(request, public_id)
    items = list(
        order.items.select_related("seller", "variant__product")
        .prefetch_related("replacements__order")
        .order_by("line")
    )
    for item in items:
        item.deadline = selectors.return_deadline(item)
        item.blocker = selectors.return_blocker(item)
        item.open_returns = list(item.returns.order_by("public_id"))
    shipments = selectors.order_shipments(order)
    for shipment in shipments:
        shipment["items"] = [i for i in items if i.shipment == shipment["number"]]
        # a shipment whose every item was cancelled is not coming: no arrival date, nothing to track
        shipment["cancelled"] = all(i.status == OrderItem.Status.CANCELLED for i in shipment["items"])
        shipment["latest"] = next(iter(selectors.tracking(order, shipment)), None)
    return render(
        request,
        "shop/order.html",
        page_context(
            request,
            order=order,
            items=items,
            shipments=shipments,
            refunds=list(order.refunds.order_by("public_id")),
            notice=request.session.pop(ORDER_NOTICE, ""),
            promotions=selectors.order_promotions(order) if any(i.status == "cancelled" for i in items) else [],
        ),
    )


@customer_required
def order_invoice(request, public_id):
    order = _order(request, public_id)
    return render(
        request,
        "shop/invoice.html",
        page_context(
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
    wanted = whole_number(request.GET.get("shipment", "1")) or 1
    shipment = next((s for s in shipments if s["number"] == wanted), None)
    if shipment is None:
        raise Http404
    events = selectors.tracking(order, shipment)
    seen = " ".join(e.status for e in events)
    progress = [(label, label in seen) for label in ("Ordered", "Shipped", "Out for delivery", "Delivered")]
    return render(
        request,
        "shop/tracking.html",
        page_context(
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
    form = CancelForm(request.POST) if request.method == "POST" else None
    if form is not None:
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            before = (order.discount, order.total)
            services.order_cancel_items(order=order, lines=form.lines, reason=form.reason)
        except ValidationError as e:
            errors = error_messages(e)
        else:
            request.session[ORDER_NOTICE] = _cancel_notice(order, *before)
            return redirect(f"/your-orders/{order.public_id}")
    return render(
        request,
        "shop/order_cancel.html",
        page_context(
            request,
            order=order,
            errors=errors,
            items=list(
                order.items.filter(status=OrderItem.Status.ACTIVE).select_related("variant__product").order_by("line")
            ),
            reasons=OrderItem.CancelReason.choices,
            # a refused submission keeps what was checked and picked
            checked=set(form.lines) if form else set(),
            picked=form.reason if form else "",
        ),
        status=400 if errors else 200,
    )


@customer_required
def order_address(request, public_id):
    order = _order(request, public_id)
    errors = []
    if request.method == "POST":
        form = AddressChoiceForm(
            request.POST, addresses=request.account.addresses.all(), message="Please choose an address."
        )
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            services.order_change_address(order=order, address=form.cleaned_data["address"])
        except ValidationError as e:
            errors = error_messages(e)
        else:
            return redirect(f"/your-orders/{order.public_id}")
    return render(
        request,
        "shop/order_address.html",
        page_context(request, order=order, errors=errors, addresses=selectors.usable_addresses(request.account)),
        status=400 if errors else 200,
    )


# the return flow, a page a step: (step, its title, the fields it asks for); its answers so far travel along
# as hidden fields, and the last step's "Confirm your return" posts them all without a step
RETURN_STEPS = (
    ("items", "Choose items to return", ("quantity",)),
    ("reason", "Why are you returning this?", ("reason", "comment")),
    ("resolution", "How can we make it right?", ("resolution", "refund_method")),
    ("drop_off", "How will you send it back?", ("drop_off",)),
    ("review", "Review your return", ()),
)
RETURN_FIELDS = ("quantity", "reason", "comment", "resolution", "refund_method", "drop_off")


def _return_step_errors(item: OrderItem, form: ReturnForm, upto: int) -> list[str]:
    """What is wrong with the answers of steps 0..upto (the steps after it are not asked yet)."""
    asked = [f for _, _, fields in RETURN_STEPS[: upto + 1] for f in fields]
    errors = [m for f in asked for m in form.errors.get(f, [])]
    if not errors and upto >= 2 and form.cleaned_data.get("resolution") == ReturnRequest.Resolution.REPLACEMENT:
        units = form.cleaned_data.get("quantity") or item.quantity
        blocker = selectors.replacement_blocker(item, form.cleaned_data.get("reason", ""), units)
        errors = [blocker] if blocker else []
    return errors


@customer_required
def order_return(request, public_id, line):
    """Return or replace an item, as the store's flow: items (how many), reason, refund or replacement,
    drop-off method, then a review to confirm; "Return started" shows the drop-off code. A POST without
    `step` is the confirmation (all the answers at once); with `step`, the answers up to that step, and
    the next step is shown (`change` goes back to a step, keeping every answer)."""
    order = _order(request, public_id)
    item = get_object_or_404(OrderItem.objects.select_related("seller", "variant"), order=order, line=line)
    names = [name for name, _, _ in RETURN_STEPS]
    errors, at = [], 0
    if request.method == "POST":
        form = ReturnForm(request.POST)
        valid = form.is_valid()
        went, change = request.POST.get("step", ""), request.POST.get("change", "")
        if change in names:
            at = names.index(change)
        elif went in names[:-1]:
            done = names.index(went)
            errors = _return_step_errors(item, form, done)
            at = done if errors else done + 1
        else:
            try:
                if not valid:
                    raise ValidationError(form_messages(form))
                ret = services.return_request(item=item, **form.cleaned_data)
            except ValidationError as e:
                errors, at = error_messages(e), len(RETURN_STEPS) - 1
            else:
                return redirect(f"/your-orders/{order.public_id}/returns/{ret.public_id}")
    chosen = {
        "quantity": request.POST.get("quantity", str(item.quantity))[:4],
        "reason": request.POST.get("reason", "")[:30],
        "comment": request.POST.get("comment", "")[:1000],
        "resolution": request.POST.get("resolution", ReturnRequest.Resolution.REFUND)[:30],
        "refund_method": request.POST.get("refund_method", Refund.Method.CARD)[:30],
        "drop_off": request.POST.get("drop_off", ReturnRequest.DropOff.COUNTER)[:30],
    }
    step, title, asked = RETURN_STEPS[at]
    units = whole_number(chosen["quantity"]) or item.quantity
    estimate = selectors.refund_for_return(
        ReturnRequest(item=item, reason=chosen["reason"], quantity=min(max(units, 1), item.quantity))
    )
    return render(
        request,
        "shop/order_return.html",
        page_context(
            request,
            order=order,
            item=item,
            errors=errors,
            step=step,
            step_number=at + 1,
            step_title=title,
            steps=[(n, t) for n, t, _ in RETURN_STEPS],
            carried=[(f, chosen[f]) for f in RETURN_FIELDS if f not in asked],
            chosen=chosen,
            labels={
                "reason": dict(ReturnRequest.Reason.choices).get(chosen["reason"], ""),
                "resolution": dict(ReturnRequest.Resolution.choices).get(chosen["resolution"], ""),
                "refund_method": dict(Refund.Method.choices).get(chosen["refund_method"], ""),
                "drop_off": dict(ReturnRequest.DropOff.choices).get(chosen["drop_off"], ""),
            },
            estimate=estimate,
            others=[
                i
                for i in order.items.select_related("variant__product", "seller").order_by("line")
                if i.pk != item.pk and not selectors.return_blocker(i)
            ],
            reasons=ReturnRequest.Reason.choices,
            methods=Refund.Method.choices,
            resolutions=ReturnRequest.Resolution.choices,
            drop_offs=ReturnRequest.DropOff.choices,
            units=range(1, item.quantity + 1),
            replacement_stock=item.variant.stock,
            deadline=selectors.return_deadline(item),
            blocker=selectors.return_blocker(item),
        ),
        status=400 if errors else 200,
    )


@customer_required
def return_started(request, public_id, rma):
    """The return's confirmation: what happens next, and the drop-off code to show at the counter."""
    order = _order(request, public_id)
    ret = get_object_or_404(ReturnRequest.objects.select_related("item__seller"), item__order=order, public_id=rma)
    return render(
        request,
        "shop/return_started.html",
        page_context(
            request,
            order=order,
            ret=ret,
            item=ret.item,
            refund=selectors.refund_for_return(ret),
            code=mark_safe(qr.qr_svg(ret.public_id, label=f"Drop-off code for {ret.public_id}")),  # noqa: S308 - our own SVG
        ),
    )
