"""Delivery estimates that follow the shopper's "Deliver to" address (zones: far states add days, a
remote one loses One-Day Shipping) on the product page, the cart, the checkout's items-and-delivery section and
the order placed; and seasonal sales: shown and charged while they run on the world clock, gone
once they end, with the cart noticing the price that moved. Refused input says why and changes
nothing."""

from datetime import date, timedelta
from decimal import Decimal

import pytest

from replicas.shop import policies, selectors
from replicas.shop.models import Account, Address, CartItem, Order, Product, SeasonalSale, Variant
from replicas.shop.tasks import params as P
from replicas.shop.tests.clients import client_as
from replicas.worlds import clock
from replicas.worlds.clock import world_clock_advance
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_generate
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def _longdate(day) -> bytes:
    return f"{day:%A}, {day:%B} {day.day}".encode()


def _two_addresses(account):
    """A local (CA) and a remote (MT) address of the account (public ids the seed leaves unused)."""
    common = {"account": account, "full_name": account.name, "line1": "1 Test Way", "phone": "555-010-0100"}
    local = Address.objects.create(
        public_id=account.public_id * 10 + 7, city="Fresno", state="CA", zip_code="93650", **common
    )
    remote = Address.objects.create(
        public_id=account.public_id * 10 + 8, city="Helena", state="MT", zip_code="59601", **common
    )
    return local, remote


# --- rules -----------------------------------------------------------------------------------------------


def test_zones_add_days_and_a_remote_zone_has_no_one_day_shipping():
    today = date(2026, 3, 2)
    assert [policies.zone_for(s).name for s in ("CA", "CO", "MT", "", "ZZ")] == [
        "Local",
        "Far",
        "Remote",
        "Local",
        "Local",
    ]
    assert policies.delivery_date(speed="standard", standard_days=5, today=today, state="CA") == today + timedelta(
        days=5
    )
    assert policies.delivery_date(speed="standard", standard_days=5, today=today, state="OR") == today + timedelta(
        days=7
    )
    assert policies.delivery_date(speed="fast", standard_days=5, today=today, state="MT") == today + timedelta(days=4)
    assert policies.speed_served("nextday", "CA") and not policies.speed_served("nextday", "MT")
    assert policies.seasonal_price(Decimal("19.99"), 20) == Decimal("15.99")
    assert policies.seasonal_price(Decimal("0.01"), 99) == Decimal("0.01")


# --- delivery estimate per address --------------------------------------------------------------------


def test_the_deliver_to_address_changes_the_product_page_cart_checkout_and_order(shop, world_client):
    with bound_world(shop):
        key = P.ready_cart(shop)
        account = Account.objects.get(public_id=key["customer"])
        local, remote = _two_addresses(account)
        lines = selectors.cart_lines(account)
        product = next(
            p
            for p in Product.objects.filter(fast_eligible=True).order_by("asin")
            if p.variants.filter(stock__gt=0).exists()
        )
        today = clock.now().date()
    client = client_as(world_client, shop, account)

    # product page: standard and fastest dates follow the zone; One-Day is refused in the remote one
    assert (
        client.post("/deliver-to", {"address": local.public_id, "next": f"/dp/{product.asin}"})["Location"]
        == f"/dp/{product.asin}"
    )
    page = client.get(f"/dp/{product.asin}").content
    assert _longdate(today + timedelta(days=product.standard_days)) in page and b"Fresno 93650" in page
    assert b"Local delivery zone" in page and b"One-Day Shipping is not available" not in page
    client.post("/deliver-to", {"address": remote.public_id})
    page = client.get(f"/dp/{product.asin}").content
    assert _longdate(today + timedelta(days=product.standard_days + 4)) in page
    assert _longdate(today + timedelta(days=2 + 2)) in page  # Two-Day: two more days to Montana
    assert b"Remote delivery zone" in page and b"One-Day Shipping is not available to MT" in page
    assert b"Helena 59601" in client.get("/").content  # the header's "Deliver to"

    # cart: each line's standard arrival to the chosen address
    cart = client.get("/cart").content
    ln = lines[0]
    assert _longdate(today + timedelta(days=ln.product.standard_days + 4)) in cart and b"to Helena, MT" in cart
    client.post("/deliver-to", {"address": local.public_id})
    assert _longdate(today + timedelta(days=ln.product.standard_days)) in client.get("/cart").content

    # checkout: the address step preselects the Deliver-to address; the items-and-delivery section follows the
    # checkout address, without One-Day to Montana, and refuses it with a reason
    client.get("/checkout")
    assert f'value="{local.public_id}" checked'.encode() in client.get("/checkout/address").content
    client.post("/checkout/address", {"address": remote.public_id})
    client.post("/checkout/payment", {"card": key["card"]})
    days = max(x.product.standard_days for x in lines)
    delivery = client.get("/checkout/review").content
    assert _longdate(today + timedelta(days=days + 4)) in delivery and b'id="speed-nextday"' not in delivery
    before = state_hash(snapshot(shop))
    assert client.post("/checkout/delivery", {"speed": "nextday"})["Location"] == "/checkout/review"
    assert b"One-Day Shipping is not available to MT (Remote delivery zone)" in client.get("/checkout/review").content
    assert state_hash(snapshot(shop)) == before
    assert client.post("/checkout/delivery", {"speed": "standard"})["Location"] == "/checkout/review"
    placed = client.post("/checkout/place-order")
    with bound_world(shop):
        order = Order.objects.get(public_id=placed["Location"].rsplit("/", 1)[1])
        assert order.ship_state == "MT" and order.delivery_date == today + timedelta(days=days + 4)
        assert all(
            i.delivery_date == today + timedelta(days=i.variant.product.standard_days + 4)
            or i.delivery_date == order.delivery_date
            for i in order.items.all()
        )
    # choosing the address at checkout made it the Deliver-to one
    assert b"Helena 59601" in client.get("/").content


def test_the_order_service_refuses_a_speed_the_zone_does_not_serve(shop):
    from django.core.exceptions import ValidationError

    from replicas.shop import services

    with bound_world(shop):
        key = P.ready_cart(shop)
        account = Account.objects.get(public_id=key["customer"])
        _, remote = _two_addresses(account)
        before = state_hash(snapshot(shop))
        with pytest.raises(ValidationError, match="One-Day Shipping is not available to MT"):
            services.order_place(
                account=account,
                address=remote,
                speed="nextday",
                card=account.cards.get(public_id=key["card"]),
                codes=[],
                use_gift=False,
            )
    assert state_hash(snapshot(shop)) == before


def test_deliver_to_input_is_validated(shop, world_client):
    with bound_world(shop):
        account = Account.objects.filter(role="customer").order_by("public_id").first()
        legacy = Address.objects.create(
            public_id=account.public_id * 10 + 9,
            account=account,
            full_name=account.name,
            line1="9 Old Rd",
            city="Springfield",
            state="",
            zip_code="",
        )
        other = Address.objects.exclude(account=account).first()
    visitor = world_client(shop, signed_in=False)
    bad = visitor.post("/deliver-to", {"state": "ZZ"})
    assert bad.status_code == 400 and b"We do not deliver to &quot;ZZ&quot;" in bad.content
    assert visitor.post("/deliver-to", {}).status_code == 400
    assert b"Sign in to deliver" in visitor.post("/deliver-to", {"address": "1"}).content
    assert visitor.post("/deliver-to", {"state": "mt", "next": "https://evil.test/"})["Location"] == "/"
    with bound_world(shop):
        asin = Product.objects.order_by("asin").first().asin
        today = clock.now().date()
    assert b"Deliver to MT" in visitor.get(f"/dp/{asin}").content
    # search results: the two-day promise to Montana takes two more days
    assert _longdate(today + timedelta(days=4)) in visitor.get("/s", {"fast": "1"}).content
    visitor.post("/deliver-to", {"state": "CA"})
    results = visitor.get("/s", {"fast": "1"}).content
    assert _longdate(today + timedelta(days=2)) in results and _longdate(today + timedelta(days=4)) not in results

    client = client_as(world_client, shop, account)
    for value, message in [
        ("abc", b"Please choose one of your addresses."),
        (str(other.public_id), b"Please choose one of your addresses."),
        (str(legacy.public_id), b"This address has no state"),
    ]:
        refused = client.post("/deliver-to", {"address": value})
        assert refused.status_code == 400 and message in refused.content, value
    assert b"Deliver to" in client.get("/deliver-to").content


# --- seasonal pricing -------------------------------------------------------------------------------------


def test_a_seasonal_sale_is_shown_and_charged_and_ends_on_the_world_clock(shop, world_client):
    with bound_world(shop):
        now = clock.now()
        sale = SeasonalSale.objects.get(code="winter-warm-up")
        assert sale.starts_at < now < sale.ends_at and sale.department == "clothing"
        assert not SeasonalSale.objects.filter(code="back-to-school", ends_at__gt=now).exists()
        variant = next(
            v
            for v in Variant.objects.filter(product__department="clothing", stock__gt=2)
            .select_related("product")
            .order_by("sku")
            if not selectors.deal_active(v.product)
        )
        sale_price = policies.seasonal_price(variant.price, sale.percent_off)
        assert selectors.variant_price(variant) == sale_price < variant.price
        key = P.ready_cart(shop)
        account = Account.objects.get(public_id=key["customer"])
        CartItem.objects.filter(account=account).delete()
    client = client_as(world_client, shop, account)
    page = client.get(f"/dp/{variant.product.asin}", {"sku": variant.sku}).content
    assert policies.money(sale_price).encode() in page and b"Winter Warm-Up" in page and b"20% off Clothing" in page
    results = client.get("/s", {"i": "clothing"}).content
    assert b"Winter Warm-Up: 20% off" in results

    # charged: the order's unit price is the sale price
    client.post("/cart/add", {"sku": variant.sku, "quantity": "1"})
    client.get("/checkout")
    client.post("/checkout/address", {"address": key["address"]})
    client.post("/checkout/delivery", {"speed": "standard"})
    client.post("/checkout/payment", {"card": key["card"]})
    placed = client.post("/checkout/place-order")
    with bound_world(shop):
        order = Order.objects.get(public_id=placed["Location"].rsplit("/", 1)[1])
        assert order.items.get().unit_price == sale_price and order.subtotal == sale_price

    # the season ends mid-episode: the page shows the full price and the cart notices the change
    client.post("/cart/add", {"sku": variant.sku, "quantity": "1"})
    world_clock_advance(world=shop, seconds=2 * 3600)
    with bound_world(shop):
        variant.refresh_from_db()
        assert selectors.variant_price(variant) == variant.price
    page = client.get(f"/dp/{variant.product.asin}", {"sku": variant.sku}).content
    assert b"Winter Warm-Up" not in page and policies.money(variant.price).encode() in page
    cart = client.get("/cart").content
    assert b"has increased from" in cart and b"The Winter Warm-Up ended on" in cart
    client.get("/checkout")
    client.post("/checkout/address", {"address": key["address"]})
    client.post("/checkout/delivery", {"speed": "standard"})
    client.post("/checkout/payment", {"card": key["card"]})
    assert client.get("/checkout/review")["Location"] == "/checkout/price-change"


def test_an_upcoming_season_starts_on_the_world_clock(shop):
    with bound_world(shop):
        sale = SeasonalSale.objects.get(code="holiday-toys")
        variant = (
            Variant.objects.filter(product__department="toys", product__deal_price=None)
            .select_related("product")
            .order_by("sku")
            .first()
        )
        assert selectors.variant_price(variant) == variant.price
        wait = (sale.starts_at - clock.now()).total_seconds() + 60
    world_clock_advance(world=shop, seconds=wait)
    with bound_world(shop):
        assert selectors.variant_price(variant) == policies.seasonal_price(variant.price, sale.percent_off)


def test_seasonal_pricing_is_a_messy_layer_absent_in_clean():
    clean = world_generate(replica="shop", seed=3, variant="clean")
    with bound_world(clean):
        assert not SeasonalSale.objects.exists()


def test_changing_an_order_s_address_moves_its_promised_dates_by_the_zones(shop, world_client):
    with bound_world(shop):
        placed = Order.objects.filter(status=Order.Status.PLACED).order_by("public_id")
        order = placed.filter(speed="nextday").first() or placed.first()  # one sent One-Day, to see it refused
        account = order.account
        local, remote = _two_addresses(account)
        old_zone = policies.zone_for(order.ship_state)
        items = {i.line: i.delivery_date for i in order.items.filter(status="active")}
        speeds = {i.line: i.speed for i in order.items.filter(status="active")}
    client = client_as(world_client, shop, account)
    url = f"/your-orders/{order.public_id}/address"
    if "nextday" in speeds.values():
        before = state_hash(snapshot(shop))
        refused = client.post(url, {"address": remote.public_id})
        assert refused.status_code == 400 and b"One-Day Shipping is not available to MT" in refused.content
        assert state_hash(snapshot(shop)) == before
        target, zone = local, policies.zone_for("CA")
    else:
        target, zone = remote, policies.zone_for("MT")
    assert client.post(url, {"address": target.public_id})["Location"] == f"/your-orders/{order.public_id}"
    with bound_world(shop):
        order.refresh_from_db()
        for item in order.items.filter(status="active"):
            shift = zone.extra_days[item.speed] - old_zone.extra_days[speeds[item.line]]
            assert item.delivery_date == items[item.line] + timedelta(days=shift)
        assert order.ship_state == target.state
        if zone != old_zone:
            assert order.delivery_date == max(i.delivery_date for i in order.items.filter(status="active"))
