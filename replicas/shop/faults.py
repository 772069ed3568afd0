"""The shop's side of fault injection (replicas/worlds/faults/data.py has the contract): whether a
session is signed in, the store's own error page for a failing route (JSON for its suggestion API),
and `stale_record`: an item in a cart sells out while its shopper is checking out."""
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

from replicas.worlds.faults import DataFaultError
from replicas.worlds.faults.pages import wants_json

from .models import CartItem, Variant
from .signin import SESSION_ACCOUNT


def session_is_signed_in(session) -> bool:
    return session.get(SESSION_ACCOUNT) is not None


def error_response(request, *, status: int, code: str, message: str) -> HttpResponse:
    if wants_json(request) or request.path.startswith("/s/suggest"):
        return JsonResponse({"error": message, "code": code}, status=status)
    page = render_to_string("shop/error.html", {"status": status, "message": message, "retry": request.get_full_path()})
    return HttpResponse(page, status=status)


def stale_record(ctx) -> dict:
    """The stock figure the cart showed is stale: once the shopper reaches the review step, the
    variant (`record`: its SKU, default one drawn from the carts) has sold out."""
    if ctx.phase == "arm":
        record = ctx.params.get("record")
        if record is not None:
            variant = Variant.objects.filter(sku=str(record), stock__gt=0).first()
            if variant is None:
                raise DataFaultError(f"record: no variant {record!r} in stock in this world")
        else:
            skus = sorted(set(CartItem.objects.filter(saved_for_later=False, variant__stock__gt=0)
                              .values_list("variant__sku", flat=True)))
            if not skus:
                raise DataFaultError("no cart holds a variant in stock")
            variant = Variant.objects.get(sku=ctx.rng.choice(skus))
        return {"model": "variant", "record": variant.sku, "route": "^/checkout/review$"}
    variant = Variant.objects.get(sku=ctx.detail["record"])
    before = variant.stock
    variant.stock = 0
    variant.save(update_fields=["stock"])
    return {"model": "variant", "record": variant.sku, "changed": {"stock": [before, 0]}}


DATA_FAULTS = {"stale_record": stale_record}
