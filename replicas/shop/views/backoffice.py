"""The staff's back office: returns to decide, an order with its refunds, order exceptions, and
stock per variant."""

from urllib.parse import quote as urlquote

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from .. import selectors, services
from ..forms import OrderSearchForm, RefundForm, ReplacementForm, ReturnDecisionForm, StockForm, form_messages
from ..models import Order, Refund, Replacement, ReturnRequest, Variant
from .common import error_messages, page_context, staff_required, whole_number

BO_ERROR = "shop_error"  # a refused decision, shown once on the returns page it redirects to
BO_NOTICE = "shop_notice"


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
        page_context(
            request,
            returns=rets,
            status=status,
            statuses=ReturnRequest.Status.choices,
            error=request.session.pop(BO_ERROR, ""),
        ),
    )


@require_POST
@staff_required
def backoffice_return_decide(request, public_id):
    ret = get_object_or_404(ReturnRequest.objects.select_related("item__seller", "item__order"), public_id=public_id)
    form = ReturnDecisionForm(request.POST)
    try:
        if not form.is_valid():
            raise ValidationError(form_messages(form))
        services.return_decide(ret=ret, approve=form.cleaned_data["decision"] == "approve")
    except ValidationError as e:
        request.session[BO_ERROR] = " ".join(error_messages(e))
    return redirect("/backoffice/returns")


@staff_required
def backoffice_orders(request):
    """Order search by customer, order number, status and the days placed (the latest orders when
    nothing is asked); an exact order number opens that order."""
    form = OrderSearchForm(request.GET)
    found, total, errors = [], 0, []
    if form.is_valid():
        data = form.cleaned_data
        text = data["q"].strip()
        exact = Order.objects.filter(public_id=text.upper()).first() if text else None
        if exact is not None:
            return redirect(f"/backoffice/orders/{exact.public_id}")
        found, total = selectors.backoffice_order_search(
            text=text, status=data["status"], since=data["since"], until=data["until"]
        )
    else:
        errors = form_messages(form)
    return render(
        request,
        "shop/backoffice_orders.html",
        page_context(
            request,
            asked={k: request.GET.get(k, "")[:60] for k in ("q", "status", "since", "until")},
            statuses=Order.Status.choices,
            found=found,
            total=total,
            errors=errors,
        ),
        status=400 if errors else 200,
    )


@staff_required
def backoffice_order(request, public_id):
    order = get_object_or_404(Order.objects.select_related("account", "card"), public_id=public_id)
    errors = []
    if request.method == "POST":
        form = RefundForm(request.POST, items=order.items.all())
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            data = form.cleaned_data
            services.refund_issue(
                order=order, item=data["line"], amount=data["amount"], reason=data["reason"], method=data["method"]
            )
        except ValidationError as e:
            errors = error_messages(e)
        else:
            return redirect(f"/backoffice/orders/{order.public_id}")
    return _order_page(request, order, errors=errors)


@require_POST
@staff_required
def backoffice_order_replace(request, public_id):
    """Create a replacement order for the ticked lines; the original's page then names it."""
    order = get_object_or_404(Order.objects.select_related("account", "card"), public_id=public_id)
    form = ReplacementForm(request.POST, items=list(order.items.order_by("line")))
    try:
        if not form.is_valid():
            raise ValidationError(form_messages(form))
        new = services.replacement_create(
            order=order, quantities=form.cleaned_data["quantities"], reason=form.cleaned_data["reason"]
        )
    except ValidationError as e:
        return _order_page(request, order, replace_errors=error_messages(e))
    request.session[BO_NOTICE] = f"Replacement order {new.public_id} created, at no charge."
    return redirect(f"/backoffice/orders/{order.public_id}")


def _order_page(request, order, *, errors=(), replace_errors=()):
    items = list(order.items.select_related("seller").prefetch_related("replacements__order").order_by("line"))
    for item in items:
        item.refunded = selectors.refunded_total(item)
    return render(
        request,
        "shop/backoffice_order.html",
        page_context(
            request,
            order=order,
            items=items,
            errors=errors,
            replace_errors=replace_errors,
            notice=request.session.pop(BO_NOTICE, ""),
            refunds=list(order.refunds.order_by("public_id")),
            methods=Refund.Method.choices,
            reasons=Replacement.Reason.choices,
            replaces=list(order.replaces.select_related("item__order").order_by("item__line")),
            returns=list(ReturnRequest.objects.filter(item__order=order).order_by("public_id")),
        ),
        status=400 if errors or replace_errors else 200,
    )


@staff_required
def backoffice_inventory(request):
    """Stock per variant, fewest units first, with the count a person can correct after a stock take."""
    text = request.GET.get("q", "").strip()[:60]
    stock = request.GET.get("stock", "all")
    stock = stock if stock in selectors.STOCK_FILTERS else "all"
    errors = []
    if request.method == "POST":
        form = StockForm(request.POST, variants=Variant.objects.select_related("product"))
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            variant = services.variant_stock_set(variant=form.cleaned_data["sku"], stock=form.cleaned_data["stock"])
        except ValidationError as e:
            errors = error_messages(e)
        else:
            request.session[BO_NOTICE] = f"{variant.sku}: {variant.stock} on hand."
            return redirect(request.get_full_path())
    found = selectors.inventory(text=text, stock=stock, page=whole_number(request.GET.get("page", "1")) or 1)
    params = {k: v for k, v in (("q", text), ("stock", stock)) if v and v != "all"}
    base = "/backoffice/inventory?" + "".join(f"{k}={urlquote(v)}&" for k, v in params.items())
    return render(
        request,
        "shop/backoffice_inventory.html",
        page_context(
            request,
            found=found,
            text=text,
            stock=stock,
            filters=selectors.STOCK_FILTERS,
            errors=errors,
            notice=request.session.pop(BO_NOTICE, ""),
            low=selectors.LOW_STOCK,
            max_stock=services.MAX_STOCK,
            prev_link=f"{base}page={found.page - 1}" if found.page > 1 else "",
            next_link=f"{base}page={found.page + 1}" if found.page < found.pages else "",
        ),
        status=400 if errors else 200,
    )


@staff_required
def backoffice_exceptions(request):
    return render(
        request, "shop/backoffice_exceptions.html", page_context(request, exceptions=selectors.order_exceptions())
    )
