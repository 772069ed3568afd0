"""The shop's side of fault injection (replicas/worlds/faults/data.py has the contract): whether a
session is signed in, the store's own error page for a failing route (JSON for its suggestion API),
`stale_record` (the stock figure a cart showed goes stale: the item sells out while its shopper is
checking out) and `data_conflict` (a return both approved and rejected, or a catalogue price that
no longer matches the cart's, which puts the price-change interstitial in front of the order)."""

from datetime import timedelta
from decimal import Decimal

from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

from replicas.worlds import clock
from replicas.worlds.faults import DataFaultError
from replicas.worlds.faults.pages import wants_json

from . import selectors, services
from .models import CartItem, ReturnRequest, Variant
from .signin import SIGNIN

PRICE_RISE = Decimal("5.00")  # what the price-change conflict adds to a variant's price


def session_is_signed_in(session) -> bool:
    return SIGNIN.session_is_signed_in(session)


def error_response(request, *, status: int, code: str, message: str) -> HttpResponse:
    if wants_json(request) or request.path.startswith("/s/suggest"):
        return JsonResponse({"error": message, "code": code}, status=status)
    page = render_to_string("shop/error.html", {"status": status, "message": message, "retry": request.get_full_path()})
    return HttpResponse(page, status=status)


def stale_record(ctx) -> dict:
    """The stock figure the cart showed is stale: once the shopper reaches items and delivery (the review), the
    variant (`record`: its SKU, default one drawn from the carts) has sold out."""
    if ctx.phase == "arm":
        record = ctx.params.get("record")
        if record is not None:
            variant = Variant.objects.filter(sku=str(record), stock__gt=0).first()
            if variant is None:
                raise DataFaultError(f"record: no variant {record!r} in stock in this world")
        else:
            skus = sorted(
                set(
                    CartItem.objects.filter(saved_for_later=False, variant__stock__gt=0).values_list(
                        "variant__sku", flat=True
                    )
                )
            )
            if not skus:
                raise DataFaultError("no cart holds a variant in stock")
            variant = Variant.objects.get(sku=ctx.rng.choice(skus))
        return {"model": "variant", "record": variant.sku, "route": "^/checkout/review$"}
    variant = Variant.objects.get(sku=ctx.detail["record"])
    before = variant.stock
    variant.stock = 0
    variant.save(update_fields=["stock"])
    return {"model": "variant", "record": variant.sku, "changed": {"stock": [before, 0]}}


def data_conflict(ctx) -> dict:
    """Two records disagree. `record` names which:
    - a return (RMA-…, default: the first pending return inside its window): it is recorded twice,
      approved under its own number and rejected under a new one, both on the same request;
    - a variant's SKU: the catalogue price rises by PRICE_RISE while carts keep the price the item
      went in at, so checkout stops on the price-change interstitial."""
    record = ctx.params.get("record")
    variant = Variant.objects.filter(sku=str(record)).first() if record is not None else None
    if variant is not None:
        if not CartItem.objects.filter(variant=variant, saved_for_later=False).exists():
            raise DataFaultError(f"record: variant {record!r} is in no cart")
        before = variant.price
        variant.price = before + PRICE_RISE
        variant.save(update_fields=["price"])
        return {"model": "variant", "record": variant.sku, "changed": {"price": [str(before), str(variant.price)]}}
    pending = ReturnRequest.objects.filter(status=ReturnRequest.Status.REQUESTED).select_related("item__seller")
    if record is not None:
        ret = pending.filter(public_id=str(record)).first()
        if ret is None:
            raise DataFaultError(f"record: no pending return or variant in a cart {record!r} in this world")
    else:
        ret = next(
            (r for r in pending.order_by("public_id") if r.requested_at <= selectors.return_deadline(r.item)), None
        )
        if ret is None:
            raise DataFaultError("no pending return inside its window")
    decided = min(clock.now() - timedelta(hours=1), ret.requested_at + timedelta(hours=20))
    ret.status, ret.decided_at = ReturnRequest.Status.APPROVED, decided
    ret.save(update_fields=["status", "decided_at"])
    twin = ReturnRequest.objects.create(
        public_id=services.next_number(ReturnRequest, "public_id", "RMA-", 1001),
        item=ret.item,
        reason=ret.reason,
        comment=ret.comment,
        status=ReturnRequest.Status.REJECTED,
        requested_at=ret.requested_at,
        decided_at=decided,
    )
    return {
        "model": "returnrequest",
        "record": ret.public_id,
        "conflict": {"approved": ret.public_id, "rejected": twin.public_id},
    }


DATA_FAULTS = {"stale_record": stale_record, "data_conflict": data_conflict}
