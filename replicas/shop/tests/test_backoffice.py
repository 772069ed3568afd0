"""The back office's inventory and order-exception screens, and the payment provider's test card
that is always declined, through Django's test client. Refused input answers with a clear error
and changes nothing."""

from datetime import timedelta

import pytest

from replicas.shop import policies, selectors
from replicas.shop.models import Account, Card, Order, OrderItem, ReturnRequest, Variant
from replicas.shop.tasks import params as P
from replicas.shop.tests.clients import client_as
from replicas.worlds import clock
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def _staff(world_client, world):
    with bound_world(world):
        staff = Account.objects.filter(role="staff").order_by("public_id").first()
    return client_as(world_client, world, staff)


def _hash(world):
    return state_hash(snapshot(world))


def test_inventory_lists_sold_out_and_low_variants_and_customers_are_kept_out(shop, world_client):
    staff = _staff(world_client, shop)
    with bound_world(shop):
        out = list(Variant.objects.filter(stock=0).order_by("sku").values_list("sku", flat=True))
        low = list(Variant.objects.filter(stock__gt=0, stock__lt=selectors.LOW_STOCK).values_list("sku", flat=True))
        product_word = Variant.objects.select_related("product").order_by("sku").first().product.title.split()[1]
    assert out and low  # the small variant has the out_of_stock layer and 3-unit variants
    page = staff.get("/backoffice/inventory", {"stock": "out"}).content.decode()
    assert f"{len(out)} variant" in page and all(f'id="{sku}"' in page for sku in out[:50])
    assert not any(f'id="{sku}"' in page for sku in low)
    page = staff.get("/backoffice/inventory", {"stock": "low"}).content.decode()
    assert f"{len(low)} variant" in page and not any(f'id="{sku}"' in page for sku in out)
    # an exact SKU finds that one variant; words search the titles
    assert staff.get("/backoffice/inventory", {"q": out[0].lower()}).content.decode().count('<tr id="') == 1
    with bound_world(shop):
        found = selectors.inventory(text=product_word)
        word = product_word.lower()
        assert found.total and all(
            word in v.product.title.lower() or word in v.product.brand.lower() for v in found.variants
        )
    # malformed filters fall back, never an error page
    assert staff.get("/backoffice/inventory", {"stock": "weird", "page": "x"}).status_code == 200
    assert world_client(shop).get("/backoffice/inventory").status_code == 403
    assert world_client(shop).get("/backoffice/exceptions").status_code == 403


def test_setting_units_on_hand_is_validated_and_changes_only_that_variant(shop, world_client):
    staff = _staff(world_client, shop)
    with bound_world(shop):
        variant = Variant.objects.filter(stock=0).order_by("sku").first()
        others = dict(Variant.objects.exclude(sku=variant.sku).values_list("sku", "stock"))
        before = _hash(shop)
    for bad in ("-3", "abc", "", "10000", "2.5"):
        page = staff.post(f"/backoffice/inventory?q={variant.sku}", {"sku": variant.sku, "stock": bad})
        assert page.status_code == 400 and b"whole number from 0 to 9999" in page.content
    same = staff.post("/backoffice/inventory", {"sku": variant.sku, "stock": "0"})
    assert same.status_code == 400 and f"{variant.sku} already has 0 on hand.".encode() in same.content
    unknown = staff.post("/backoffice/inventory", {"sku": "B0NOPE-1", "stock": "4"})
    assert unknown.status_code == 400 and b"Choose a variant from the list." in unknown.content
    assert _hash(shop) == before
    saved = staff.post(f"/backoffice/inventory?q={variant.sku}", {"sku": variant.sku, "stock": " 12 "})
    assert saved["Location"] == f"/backoffice/inventory?q={variant.sku}"
    assert f"{variant.sku}: 12 on hand.".encode() in staff.get(saved["Location"]).content
    with bound_world(shop):
        assert Variant.objects.get(sku=variant.sku).stock == 12
        assert dict(Variant.objects.exclude(sku=variant.sku).values_list("sku", "stock")) == others
    # restocked, the product page sells it again
    assert b"Add to Cart" in world_client(shop).get(f"/dp/{variant.product.asin}", {"sku": variant.sku}).content


def test_exceptions_list_late_shipments_and_returns_both_approved_and_rejected(make_world, world_client):
    probe = make_world(replica="shop", seed=7, variant="small")
    with bound_world(probe):
        key = P.conflicting_return(probe)
        assert selectors.order_exceptions() == []  # a fresh world has nothing overdue or in conflict
    world = make_world(
        replica="shop", seed=7, variant="small", faults=[{"name": "data_conflict", "params": {"record": key["rma"]}}]
    )
    with bound_world(world):
        shipped = Order.objects.filter(status="shipped").order_by("public_id").first()
        due = clock.now().date() - timedelta(days=2)
        OrderItem.objects.filter(order=shipped).update(delivery_date=due)
        delivered = Order.objects.filter(status="delivered").order_by("public_id").first()
        OrderItem.objects.filter(order=delivered).update(delivery_date=due)  # delivered late is no longer an exception
    page = _staff(world_client, world).get("/backoffice/exceptions").content.decode()
    assert f'<a href="/backoffice/orders/{shipped.public_id}">' in page
    assert f"Due {due:%b} {due.day}, 2 days ago; still shipped." in page
    assert f"{key['rma']} approved, {key['twin']} rejected." in page and key["order"] in page
    assert f'/backoffice/orders/{delivered.public_id}"' not in page


def test_an_approved_return_without_a_refund_is_an_exception(shop):
    with bound_world(shop):
        ret = ReturnRequest.objects.filter(status="requested").order_by("public_id").first()
        ret.status = "approved"
        ret.save(update_fields=["status"])
        found = selectors.order_exceptions()
        assert [(e.kind, e.order.public_id) for e in found] == [
            ("Approved return not refunded", ret.item.order.public_id)
        ]


def test_the_providers_always_declined_test_card_is_refused_when_added(shop, world_client):
    with bound_world(shop):
        key = P.new_card(shop)
        account = Account.objects.get(public_id=key["customer"])
        cards = Card.objects.filter(account=account).count()
        before = _hash(shop)
    client = client_as(world_client, shop, account)
    client.post("/checkout/address", {"address": str(key["address"])})
    client.post("/checkout/delivery", {"speed": "standard"})
    client.post("/checkout/payment", {"card": str(key["card"])})
    declined = next(iter(policies.DECLINED_NUMBERS))
    page = client.post(
        "/checkout/card/new",
        {"number": declined, "exp_month": "12", "exp_year": str(shop.clock.year + 2), "holder": account.name},
    )
    assert page.status_code == 400 and b"Your card was declined by the issuing bank." in page.content
    assert declined.encode() not in page.content  # the number is not echoed back
    assert _hash(shop) == before
    with bound_world(shop):
        assert Card.objects.filter(account=account).count() == cards


def test_order_search_by_customer_status_and_days_in_a_console_of_its_own(shop, world_client):
    staff = _staff(world_client, shop)
    with bound_world(shop):
        order = Order.objects.select_related("account").filter(status="shipped").order_by("public_id").first()
        customer = order.account
        theirs = set(Order.objects.filter(account=customer).values_list("public_id", flat=True))
        shipped = set(Order.objects.filter(status="shipped").values_list("public_id", flat=True))
        day = order.placed_at.date()
        on_day = set(Order.objects.filter(placed_at__date=day).values_list("public_id", flat=True))
    before = _hash(shop)
    page = staff.get("/backoffice/orders", {"q": customer.email}).content.decode()
    # the console's own header, not the storefront's search bar and cart
    assert 'class="bo-head"' in page and "twotabsearchtextbox" not in page and 'href="/help/approval">Policies' in page
    listed = {pid for pid in theirs if f'href="/backoffice/orders/{pid}"' in page}
    assert listed == theirs and f"{len(theirs)} order" in page
    page = staff.get("/backoffice/orders", {"status": "shipped", "since": day, "until": day}).content.decode()
    assert {p for p in shipped & on_day if f'/backoffice/orders/{p}"' in page} == shipped & on_day
    assert not any(f'/backoffice/orders/{p}"' in page for p in (on_day - shipped) | (shipped - on_day))
    # an exact order number opens it; refused input says why
    assert staff.get("/backoffice/orders", {"q": order.public_id.lower()})["Location"] == (
        f"/backoffice/orders/{order.public_id}"
    )
    bad = staff.get("/backoffice/orders", {"since": "yesterday"})
    assert bad.status_code == 400 and b"Enter the first day as YYYY-MM-DD." in bad.content
    backwards = staff.get("/backoffice/orders", {"since": day, "until": day - timedelta(days=1)})
    assert backwards.status_code == 400 and b"The first day must not be after the last day." in backwards.content
    assert staff.get("/backoffice/orders", {"status": "lost"}).status_code == 400
    assert _hash(shop) == before
