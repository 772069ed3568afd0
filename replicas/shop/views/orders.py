"""Your Orders: the list by period, an order's details, invoice and tracking, cancelling items,
changing the shipping address, and asking for a return."""

from datetime import timedelta

from django.core.exceptions import ValidationError
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
    if tab == "cancelled":
        qs = qs.filter(status=Order.Status.CANCELLED)
    elif tab == "not-shipped":
        qs = qs.filter(status=Order.Status.PLACED)
    elif tab == "buy-again":
        bought, qs = selectors.bought_before(request.account), qs.none()
    elif FILTERS.get(key, FILTERS["months-3"])[1]:
        qs = qs.filter(placed_at__gte=clock.now() - timedelta(days=FILTERS[key][1]))
    found = list(qs.prefetch_related("items__variant__product"))
    return render(
        request,
        "shop/orders.html",
        page_context(request, orders=found, key=key, filters=FILTERS, tab=tab, tabs=TABS, bought=bought),
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
    if request.method == "POST":
        form = CancelForm(request.POST)
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            before = (order.discount, order.total)
            services.order_cancel_items(order=order, lines=form.lines)
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
            items=list(order.items.filter(status=OrderItem.Status.ACTIVE).order_by("line")),
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


@customer_required
def order_return(request, public_id, line):
    order = _order(request, public_id)
    item = get_object_or_404(OrderItem.objects.select_related("seller"), order=order, line=line)
    errors = []
    if request.method == "POST":
        form = ReturnForm(request.POST)
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            ret = services.return_request(item=item, **form.cleaned_data)
        except ValidationError as e:
            errors = error_messages(e)
        else:
            return redirect(f"/your-orders/{order.public_id}/returns/{ret.public_id}")
    return render(
        request,
        "shop/order_return.html",
        page_context(
            request,
            order=order,
            item=item,
            errors=errors,
            reasons=ReturnRequest.Reason.choices,
            methods=Refund.Method.choices,
            resolutions=ReturnRequest.Resolution.choices,
            drop_offs=ReturnRequest.DropOff.choices,
            units=range(1, item.quantity + 1),
            chosen_reason=request.POST.get("reason", ""),
            chosen_method=request.POST.get("refund_method", Refund.Method.CARD),
            chosen_resolution=request.POST.get("resolution", ReturnRequest.Resolution.REFUND),
            chosen_drop_off=request.POST.get("drop_off", ReturnRequest.DropOff.COUNTER),
            chosen_units=request.POST.get("quantity", str(item.quantity)),
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
