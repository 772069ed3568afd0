"""Your List: products saved from their page with "Add to List", each to open, add to the cart or
delete."""

from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from .. import selectors, services
from ..models import Variant
from .common import customer_required, page_context
from .product import DP_NOTICE


def _variant(request) -> Variant:
    return get_object_or_404(Variant.objects.select_related("product"), sku=request.POST.get("sku", "")[:24])


@customer_required
def your_list(request):
    items = selectors.list_items(request.account)
    for item in items:
        item.price_now = selectors.variant_price(item.variant)
    return render(request, "shop/list.html", page_context(request, items=items))


@require_POST
@customer_required
def list_add(request):
    variant = _variant(request)
    services.list_add(account=request.account, variant=variant)
    request.session[DP_NOTICE] = {"error": False, "text": "1 item added to Your List", "list": True}
    return redirect(f"/dp/{variant.product.asin}?sku={variant.sku}")


@require_POST
@customer_required
def list_remove(request):
    services.list_remove(account=request.account, variant=_variant(request))
    return redirect("/hz/wishlist/ls")
