"""Issue 29's fixes: a signed-out shopper's cart that merges into the account's cart at sign-in
(and a post that needs sign-in comes back to its page, not to a 405), and promotions re-evaluated
by their rules when part of an order is cancelled."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client

from replicas.shop import policies
from replicas.shop.models import Account, CartItem, Coupon, Order, OrderItem, Variant, VisitorCartItem
from replicas.shop.signin import account_password
from replicas.worlds import clock
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def _visitor(world) -> Client:
    return Client(HTTP_HOST=f"w-{world.token}.localhost:8000")


def _sign_in(client, world, account, next_url="/"):
    password = account_password(seed=world.seed, public_id=account.public_id)
    return client.post("/ap/signin", {"email": account.email, "password": password, "next": next_url})


def test_a_visitors_cart_merges_into_the_accounts_cart_at_sign_in(shop):
    with bound_world(shop):
        account = Account.objects.filter(role="customer").order_by("public_id").first()
        held = set(CartItem.objects.filter(account=account).values_list("variant__sku", flat=True))
        fresh = Variant.objects.filter(stock__gt=5).exclude(sku__in=held).select_related("product").order_by("sku")[0]
        # one line the account already has, so the merge must add up rather than replace
        shared = Variant.objects.filter(stock__gt=5).exclude(sku=fresh.sku).order_by("sku")[1]
        CartItem.objects.filter(account=account, variant=shared).delete()
        CartItem.objects.create(
            account=account, variant=shared, quantity=1, price_when_added=shared.price, added_at=clock.now()
        )
    visitor = _visitor(shop)
    assert visitor.post("/cart/add", {"sku": fresh.sku, "quantity": "2"})["Location"] == "/cart"
    visitor.post("/cart/add", {"sku": shared.sku, "quantity": "3"})
    page = visitor.get("/cart")
    assert page.status_code == 200 and fresh.product.title.encode() in page.content
    assert b'aria-label="5 items in cart"' in page.content
    assert b"Save for later" not in page.content  # saved-for-later belongs to an account
    # another visitor sees an empty cart of their own
    assert fresh.product.title.encode() not in _visitor(shop).get("/cart").content

    signed = _sign_in(visitor, shop, account, "/cart")
    assert signed["Location"] == "/cart"
    with bound_world(shop):
        assert CartItem.objects.get(account=account, variant=fresh).quantity == 2
        assert CartItem.objects.get(account=account, variant=shared).quantity == 4
        assert not VisitorCartItem.objects.exists()
    assert fresh.product.title.encode() in visitor.get("/cart").content


def test_a_visitors_refused_add_changes_nothing(shop):
    with bound_world(shop):
        variant = Variant.objects.filter(stock__gt=2).order_by("sku").first()
        gone = Variant.objects.filter(stock=0).order_by("sku").first()
        before = state_hash(snapshot(shop))
    visitor = _visitor(shop)
    for bad in ({"sku": variant.sku, "quantity": "²"}, {"sku": variant.sku, "quantity": "11"}):
        assert visitor.post("/cart/add", bad)["Location"] == "/cart"
        assert b"Quantity must be between 1 and 10." in visitor.get("/cart").content
    visitor.post("/cart/add", {"sku": gone.sku, "quantity": "1"})
    assert b"This option is currently unavailable." in visitor.get("/cart").content
    assert visitor.post("/cart/add", {"sku": "NO-SUCH-SKU"}).status_code == 404
    assert state_hash(snapshot(shop)) == before


def test_a_post_that_needs_sign_in_comes_back_to_its_page_not_a_405(shop):
    with bound_world(shop):
        account = Account.objects.filter(role="customer").order_by("public_id").first()
        variant = Variant.objects.filter(stock__gt=0).select_related("product").order_by("sku").first()
    visitor = _visitor(shop)
    page = f"/dp/{variant.product.asin}?sku={variant.sku}"
    asked = visitor.post(
        f"/dp/{variant.product.asin}/questions",
        {"question": "Does it come with a carrying case?"},
        HTTP_REFERER=f"http://w-{shop.token}.localhost:8000{page}",
    )
    assert asked["Location"] == "/ap/signin?next=" + page.replace("?", "%3F").replace("=", "%3D")
    back = _sign_in(visitor, shop, account, page)["Location"]
    assert back == page and visitor.get(back).status_code == 200
    # a referer from another origin is not followed
    elsewhere = _visitor(shop).post(
        f"/dp/{variant.product.asin}/questions", {"question": "x" * 20}, HTTP_REFERER="http://evil.test/dp/x"
    )
    assert elsewhere["Location"] == "/ap/signin?next=/"


def _order_with_promotion(world, coupon_kwargs):
    """A placed order of two or more lines, as if checked out with a fresh coupon of `coupon_kwargs`."""
    with bound_world(world):
        order = next(
            o
            for o in Order.objects.filter(status="placed").order_by("public_id")
            if o.items.filter(status="active").count() >= 2
        )
        coupon = Coupon.objects.create(expires_at=clock.now() + timedelta(days=30), **coupon_kwargs)
        items = list(order.items.filter(status="active").order_by("line"))
        subtotal = sum((i.amount for i in items), Decimal(0))
        order.promo_codes = [coupon.code]
        order.discount = (
            policies.cents(subtotal * coupon.value / 100) if coupon.kind == "percent" else min(coupon.value, subtotal)
        )
        order.total = order.before_tax + policies.tax_for(
            order.subtotal - order.discount - order.loyalty_discount, order.ship_state
        )
        order.save()
        return order, items


def _cancel(client, order, line):
    done = client.post(f"/your-orders/{order.public_id}/cancel", {"line": str(line), "reason": "cheaper"})
    assert done.status_code == 302
    return client.get(done["Location"]).content.decode()


def test_a_partial_cancel_takes_the_percentage_of_what_is_left(shop):
    order, items = _order_with_promotion(shop, {"code": "TENOFF", "kind": "percent", "value": Decimal("10")})
    client = _visitor(shop)
    _sign_in(client, shop, order.account)
    was = order.discount
    page = _cancel(client, order, items[0].line)
    with bound_world(shop):
        order.refresh_from_db()
    kept = sum((i.amount for i in items[1:]), Decimal(0))
    assert order.discount == policies.cents(kept / 10) < was
    assert order.total == order.before_tax + order.tax
    assert f"TENOFF (10% off): -{policies.money(order.discount)}" in page
    assert f"(was -{policies.money(was)})" in page


def test_a_partial_cancel_drops_a_promotion_whose_minimum_spend_is_no_longer_met(shop):
    with bound_world(shop):
        probe = next(
            o
            for o in Order.objects.filter(status="placed").order_by("public_id")
            if o.items.filter(status="active").count() >= 2
        )
        lines = list(probe.items.filter(status="active").order_by("line"))
    kept = sum((i.amount for i in lines[1:]), Decimal(0))
    order, items = _order_with_promotion(
        shop, {"code": "BIGSPEND", "kind": "amount", "value": Decimal("5.00"), "min_subtotal": kept + Decimal("0.01")}
    )
    assert order.discount == Decimal("5.00")
    client = _visitor(shop)
    _sign_in(client, shop, order.account)
    page = _cancel(client, order, items[0].line)
    with bound_world(shop):
        order.refresh_from_db()
        assert OrderItem.objects.get(order=order, line=items[0].line).status == "cancelled"
    assert order.discount == 0
    assert "BIGSPEND ($5.00 off, minimum spend" in page and "no longer applies" in page
