"""The storefront's second round of features through Django's test client: questions and answers,
frequently bought together, gift options, the price-change interstitial, per-item delivery speeds
with split shipments, tracking on the world clock, the invoice, membership, rewards tiers,
currencies and their rounding, sellers' messages, htmx suggestions, and the data_conflict fault.
Refused input answers with a clear error and changes nothing."""

from datetime import timedelta
from decimal import Decimal

import pytest

from replicas.shop import policies, selectors
from replicas.shop.faults import PRICE_RISE
from replicas.shop.models import (
    Account,
    CartItem,
    Order,
    OrderItem,
    Product,
    Question,
    Refund,
    ReturnRequest,
    SellerMessage,
    Variant,
)
from replicas.shop.tasks import params as P
from replicas.shop.tests.clients import client_as
from replicas.worlds import clock
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def _shopper(world, key):
    with bound_world(world):
        return Account.objects.get(public_id=key["customer"])


def _to_review(client, key):
    """Address, then payment, in the single page's order; the answer to choosing the card."""
    client.get("/checkout")
    assert client.post("/checkout/address", {"address": key["address"]})["Location"] == "/checkout/payment"
    return client.post("/checkout/payment", {"card": key["card"]})


# --- rules -----------------------------------------------------------------------------------------------


def test_currencies_round_their_own_way_and_tiers_start_at_their_minimum():
    assert policies.convert(Decimal("111.52"), "JPY") == Decimal("16881")  # 16880.78 yen: whole yen
    assert policies.convert(Decimal("10.00"), "CHF") == Decimal("8.85")  # 8.834 francs: to 5 centimes
    assert policies.convert(Decimal("10.00"), "EUR") == Decimal("9.21")
    assert policies.money_in(Decimal("111.52"), "JPY") == "¥16,881"
    assert [policies.loyalty_tier(p).name for p in (0, 1499, 1500, 2999, 3000)] == [
        "Blue",
        "Blue",
        "Silver",
        "Silver",
        "Gold",
    ]
    assert policies.next_tier(1499).name == "Silver" and policies.next_tier(3000) is None
    assert policies.loyalty_discount(Decimal("99.99"), 2) == Decimal("2.00")


def test_seed_gives_questions_bundles_messages_currencies_and_split_orders(shop):
    with bound_world(shop):
        assert Question.objects.filter(answers__by_seller=True).exists()
        product = Product.objects.exclude(bought_together=[]).order_by("asin").first()
        others = Product.objects.filter(asin__in=product.bought_together)
        assert others.count() == 2 and {o.department for o in others} == {product.department}
        assert SellerMessage.objects.exists() and Account.objects.exclude(currency="USD").exists()
        for order in Order.objects.prefetch_related("items__seller")[:80]:
            items = list(order.items.all())
            assert order.total == order.before_tax + order.tax
            assert order.loyalty_discount == policies.loyalty_discount(order.subtotal, order.loyalty_pct)
            # one shipment per seller, numbered from 1
            assert len({i.shipment for i in items}) == len({i.seller_id for i in items})


# --- product page -------------------------------------------------------------------------------------


def test_questions_are_searched_and_a_question_is_asked_once_valid(shop, world_client):
    with bound_world(shop):
        key = P.warranty_from_qa(shop)
        account = Account.objects.filter(role="customer").order_by("public_id").first()
    client = client_as(world_client, shop, account)
    page = client.get(f"/dp/{key['asin']}", {"qa": "warranty"})
    assert f"{key['months']}-month limited warranty".encode() in page.content
    assert b"What are the dimensions?" not in page.content
    assert b'No questions or answers contain "zeppelin"' in client.get(f"/dp/{key['asin']}", {"qa": "zeppelin"}).content
    before = state_hash(snapshot(shop))
    client.post(f"/dp/{key['asin']}/questions", {"question": "Why?"})
    assert state_hash(snapshot(shop)) == before
    assert b"at least 10 characters" in client.get(f"/dp/{key['asin']}").content
    client.post(f"/dp/{key['asin']}/questions", {"question": "  Can this be shipped   to Canada "})
    with bound_world(shop):
        asked = Question.objects.order_by("-public_id").first()
        assert (
            asked.product.asin == key["asin"]
            and asked.text == "Can this be shipped to Canada?"
            and asked.author == account.name
        )


def test_add_all_bought_together_adds_one_of_each_or_nothing(shop, world_client):
    with bound_world(shop):
        key = P.ready_cart(shop)
        account = Account.objects.get(public_id=key["customer"])
        product = next(
            p
            for p in Product.objects.exclude(bought_together=[]).order_by("asin")
            if all(Variant.objects.filter(product__asin=a, stock__gt=0).exists() for a in [p.asin, *p.bought_together])
        )
        skus = [
            Variant.objects.filter(product__asin=a, stock__gt=0).order_by("sku").first().sku
            for a in [product.asin, *product.bought_together]
        ]
        gone = Variant.objects.filter(stock=0).first()
    client = client_as(world_client, shop, account)
    page = client.get(f"/dp/{product.asin}")
    assert b"Frequently bought together" in page.content and b"Add all 3 to Cart" in page.content
    before = state_hash(snapshot(shop))
    client.post("/cart/add-bundle", {"sku": [skus[0], gone.sku]})
    assert state_hash(snapshot(shop)) == before
    assert b"Currently unavailable" in client.get("/cart").content
    assert client.post("/cart/add-bundle", {"sku": skus})["Location"] == "/cart"
    with bound_world(shop):
        assert set(
            CartItem.objects.filter(account=account, variant__sku__in=skus).values_list("variant__sku", flat=True)
        ) == set(skus)


def test_search_suggestions_are_an_htmx_listbox_and_json_for_other_clients(shop, world_client):
    client = world_client(shop)
    fragment = client.get("/s/suggest", {"k": "wire"}, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200 and b'role="listbox"' in fragment.content and b"<html" not in fragment.content
    assert client.get("/s/suggest", {"k": "wire"}).json()["suggestions"]
    assert b'hx-get="/s/suggest"' in client.get("/s").content


# --- cart and checkout --------------------------------------------------------------------------------


def test_gift_options_are_validated_priced_and_carried_to_the_order(shop, world_client):
    with bound_world(shop):
        key = P.gift_order(shop)
    client = client_as(world_client, shop, _shopper(shop, key))
    before = state_hash(snapshot(shop))
    client.post(f"/cart/{key['sku']}", {"action": "gift", "gift": "1", "gift_message": "x" * 241})
    client.post(f"/cart/{key['sku']}", {"action": "gift", "gift_wrap": "1", "gift_message": "Hi"})
    assert state_hash(snapshot(shop)) == before
    assert b"Tick" in client.get("/cart").content
    client.post(
        f"/cart/{key['sku']}", {"action": "gift", "gift": "1", "gift_wrap": "1", "gift_message": key["message"]}
    )
    assert key["message"].encode() in client.get("/cart").content
    assert _to_review(client, key)["Location"] == "/checkout/review"
    review = client.get("/checkout/review")
    assert b"Gift wrap:" in review.content
    placed = client.post("/checkout/place-order")
    with bound_world(shop):
        order = Order.objects.get(public_id=placed["Location"].rsplit("/", 1)[1])
        item = order.items.get(variant__sku=key["sku"])
        assert (item.gift, item.gift_wrap, item.gift_message) == (True, True, key["message"])
        assert order.gift_wrap == policies.GIFT_WRAP_FEE * item.quantity and order.total == order.before_tax + order.tax


def test_a_changed_price_stops_checkout_on_the_interstitial_until_accepted(shop, world_client):
    with bound_world(shop):
        key = P.price_rise(shop)
        variant = Variant.objects.get(sku=key["sku"])
        variant.price += PRICE_RISE
        variant.save()
    client = client_as(world_client, shop, _shopper(shop, key))
    assert b"has increased from" in client.get("/cart").content
    assert _to_review(client, key)["Location"] == "/checkout/review"
    assert client.get("/checkout/review")["Location"] == "/checkout/price-change"
    interstitial = client.get("/checkout/price-change")
    assert (
        b"Prices changed since you added items to your cart" in interstitial.content
        and key["new_price"].encode() in interstitial.content
    )
    before = state_hash(snapshot(shop))
    assert client.post("/checkout/place-order")["Location"] == "/checkout/price-change"
    assert state_hash(snapshot(shop)) == before
    assert client.post("/checkout/price-change")["Location"] == "/checkout/review"
    placed = client.post("/checkout/place-order")
    with bound_world(shop):
        order = Order.objects.get(public_id=placed["Location"].rsplit("/", 1)[1])
        assert order.items.get(variant__sku=key["sku"]).unit_price == Decimal(key["new_price"])


def test_an_item_sent_at_its_own_speed_ships_separately_and_fees_follow_the_speeds(shop, world_client):
    with bound_world(shop):
        key = P.split_shipment(shop)
        slow = next((v for v in Variant.objects.filter(product__fast_eligible=False, stock__gt=0)), None)
    client = client_as(world_client, shop, _shopper(shop, key))
    assert _to_review(client, key)["Location"] == "/checkout/review"
    if slow is not None:
        with bound_world(shop):
            account = _shopper(shop, key)
            CartItem.objects.create(
                account=account,
                variant=slow,
                quantity=1,
                price_when_added=selectors.variant_price(slow),
                added_at=clock.now(),
            )
        refused = client.post("/checkout/delivery", {"speed": "standard", f"speed-{slow.sku}": "fast"})
        assert refused["Location"] == "/checkout/review"
        assert b"cannot ship at the speed chosen" in client.get("/checkout/review").content
        with bound_world(shop):
            CartItem.objects.filter(account=account, variant=slow).delete()
    assert (
        client.post("/checkout/delivery", {"speed": "standard", f"speed-{key['sku']}": "fast"})["Location"]
        == "/checkout/review"
    )
    review = client.get("/checkout/review")
    assert b"ships in 2 shipments" in review.content
    placed = client.post("/checkout/place-order")
    with bound_world(shop):
        order = Order.objects.get(public_id=placed["Location"].rsplit("/", 1)[1])
        items = list(order.items.order_by("line"))
        urgent = next(i for i in items if i.variant.sku == key["sku"])
        assert urgent.speed == "fast" and urgent.delivery_date.isoformat() == key["by"]
        assert all(i.speed == "standard" for i in items if i != urgent)
        assert order.speed == "mixed" and len({i.shipment for i in items}) == key["shipments"]
        assert order.shipping == Decimal(key["shipping"]) and order.delivery_date == max(i.delivery_date for i in items)
    detail = client.get(f"/your-orders/{order.public_id}")
    assert b"Shipment 2 of 2" in detail.content
    # cancelling the urgent item leaves its shipment with no arrival date and nothing to track
    cancelled = client.post(f"/your-orders/{order.public_id}/cancel", {"line": urgent.line, "reason": "late"})
    assert cancelled.status_code == 302
    detail = client.get(f"/your-orders/{order.public_id}").content.decode()
    other = next(i.shipment for i in items if i != urgent)
    assert f"Shipment {urgent.shipment} of 2 · Cancelled" in detail
    assert f'aria-label="Track package {urgent.shipment}"' not in detail
    assert f'aria-label="Track package {other}"' in detail


def test_checkout_sections_run_address_payment_then_items_and_delivery_with_place_order_in_the_side_box(
    shop, world_client
):
    with bound_world(shop):
        key = P.split_shipment(shop)
    client = client_as(world_client, shop, _shopper(shop, key))
    client.get("/checkout")
    page = client.get("/checkout/address").content.decode()
    # the sections in the store's order, and "Place your order" in the side box from the first one
    assert page.index('id="spc-address"') < page.index('id="spc-payment"') < page.index('id="spc-items"')
    assert page.count(">Place your order</button>") == 1 and page.index("Place your order") > page.index("co-summary")
    before = state_hash(snapshot(shop))
    early = client.post("/checkout/place-order")
    assert early["Location"] == "/checkout/address"
    assert b"Choose a shipping address to place your order." in client.get("/checkout/address").content
    assert client.post("/checkout/address", {"address": key["address"]})["Location"] == "/checkout/payment"
    assert client.get("/checkout/review")["Location"] == "/checkout/payment"  # no card chosen yet
    assert client.post("/checkout/place-order")["Location"] == "/checkout/payment"
    assert state_hash(snapshot(shop)) == before
    assert client.post("/checkout/payment", {"card": key["card"]})["Location"] == "/checkout/review"
    review = client.get("/checkout/review").content.decode()
    # the delivery options sit with the items; standard is preselected, and the side box submits them
    assert 'id="speed-standard" value="standard" checked' in review and 'form="co-delivery"' in review
    assert review.index('id="speed-standard"') < review.index('class="co-items"')
    # a speed the page has not priced yet (no script ran) is kept and shown with its total, not charged blind
    unpriced = client.post("/checkout/place-order", {"speed": "fast"})
    assert unpriced["Location"] == "/checkout/review" and state_hash(snapshot(shop)) == before
    shown = client.get("/checkout/review").content.decode()
    assert "Your delivery choice changed your order total." in shown
    assert 'id="speed-fast" value="fast" checked' in shown
    placed = client.post("/checkout/place-order", {"speed": "fast"})
    with bound_world(shop):
        order = Order.objects.get(public_id=placed["Location"].rsplit("/", 1)[1])
        assert order.speed == "fast" and order.card.public_id == key["card"]


# --- orders -----------------------------------------------------------------------------------------------


def test_tracking_shows_the_events_up_to_the_world_clock(shop, world_client):
    with bound_world(shop):
        key = P.shipped_date(shop)
        order = Order.objects.get(public_id=key["order"])
        delivered = Order.objects.filter(status=Order.Status.DELIVERED, account=order.account).first()
        now = clock.now()
    client = client_as(world_client, shop, order.account)
    page = client.get(f"/your-orders/{key['order']}/track")
    assert b"Shipped: package left the seller" in page.content
    assert b'<li class="done">Shipped</li>' in page.content and b'<li class="done">Delivered</li>' not in page.content
    with bound_world(shop):
        events = selectors.tracking(order, selectors.order_shipments(order)[0])
        assert all(e.at <= now for e in events) and events == sorted(events, key=lambda e: e.at, reverse=True)
        later = selectors.tracking(order, selectors.order_shipments(order)[0], now=now + timedelta(days=30))
        assert "Out for delivery" in {e.status for e in later}
    if delivered is not None:
        assert b'<li class="done">Delivered</li>' in client.get(f"/your-orders/{delivered.public_id}/track").content
    assert client.get(f"/your-orders/{key['order']}/track", {"shipment": "9"}).status_code == 404


def test_invoice_lists_shipments_payments_and_the_tier_discount(shop, world_client):
    with bound_world(shop):
        order = Order.objects.filter(loyalty_discount__gt=0).select_related("account").order_by("public_id").first()
    client = client_as(world_client, shop, order.account)
    invoice = client.get(f"/your-orders/{order.public_id}/invoice")
    assert invoice.status_code == 200 and f"Rewards tier discount ({order.loyalty_pct}%)".encode() in invoice.content
    assert policies.money(order.total).encode() in invoice.content and b"Payment information" in invoice.content


# --- account ----------------------------------------------------------------------------------------------


def test_membership_makes_fast_delivery_free_and_currency_changes_only_the_display(shop, world_client):
    with bound_world(shop):
        key = P.split_shipment(shop)  # a shopper without membership
    account = _shopper(shop, key)
    client = client_as(world_client, shop, account)
    assert _to_review(client, key)["Location"] == "/checkout/review"
    assert b"$8.99" in client.get("/checkout/review").content
    assert client.post("/account/membership", {"action": "join"})["Location"] == "/account/membership"
    assert client.post("/account/membership", {"action": "join"}).status_code == 400
    delivery = client.get("/checkout/review").content.decode()
    assert "FREE Two-Day Shipping" in delivery
    before = state_hash(snapshot(shop))
    bad = client.post("/account/currency", {"currency": "XYZ"})
    assert bad.status_code == 400 and b"Please choose one of the listed currencies." in bad.content
    assert state_hash(snapshot(shop)) == before
    client.post("/account/currency", {"currency": "GBP"})
    cart = client.get("/cart").content.decode()
    assert "in your currency" in cart and "£" in cart
    with bound_world(shop):
        assert Account.objects.get(pk=account.pk).currency == "GBP"


def test_rewards_and_messages_pages_show_the_account_s_own(shop, world_client):
    with bound_world(shop):
        message = SellerMessage.objects.select_related("account").order_by("public_id").first()
        other = SellerMessage.objects.exclude(account=message.account).first()
    client = client_as(world_client, shop, message.account)
    tier = policies.loyalty_tier(message.account.loyalty_points)
    assert f'Your tier: <span class="tier tier-{tier.name}">'.encode() in client.get("/account/rewards").content
    assert message.subject.encode() in client.get("/account/messages").content
    assert message.body.encode() in client.get(f"/account/messages/{message.public_id}").content
    if other is not None:
        assert client.get(f"/account/messages/{other.public_id}").status_code == 404


# --- faults -----------------------------------------------------------------------------------------------


def test_data_conflict_records_a_return_twice_and_the_back_office_settles_it(make_world, world_client):
    probe = make_world(replica="shop", seed=7, variant="small")
    with bound_world(probe):
        key = P.conflicting_return(probe)
    world = make_world(
        replica="shop", seed=7, variant="small", faults=[{"name": "data_conflict", "params": {"record": key["rma"]}}]
    )
    with bound_world(world):
        ret, twin = ReturnRequest.objects.get(public_id=key["rma"]), ReturnRequest.objects.get(public_id=key["twin"])
        assert (ret.status, twin.status, twin.item_id) == ("approved", "rejected", ret.item_id)
        staff = Account.objects.filter(role="staff").order_by("public_id").first()
    client = client_as(world_client, world, staff)
    listing = client.get("/backoffice/returns", {"status": "approved"}).content.decode()
    assert f"Also recorded as {key['twin']}: Rejected" in listing and f"Refund {key['rma']}" in listing
    client.post(f"/backoffice/returns/{key['rma']}", {"decision": "approve"})
    with bound_world(world):
        assert ReturnRequest.objects.get(public_id=key["rma"]).status == "refunded"
        assert Refund.objects.get(return_request__public_id=key["rma"]).amount == Decimal(key["amount"])
        assert OrderItem.objects.get(order__public_id=key["order"], line=key["line"]).status == "returned"


def test_data_conflict_on_a_cart_s_variant_raises_its_price(make_world):
    probe = make_world(replica="shop", seed=7, variant="small")
    with bound_world(probe):
        key = P.price_rise(probe)
        price = Variant.objects.get(sku=key["sku"]).price
    world = make_world(
        replica="shop", seed=7, variant="small", faults=[{"name": "data_conflict", "params": {"record": key["sku"]}}]
    )
    with bound_world(world):
        assert Variant.objects.get(sku=key["sku"]).price == price + PRICE_RISE
        lines = selectors.cart_lines(Account.objects.get(public_id=key["customer"]))
        assert [ln.variant.sku for ln in selectors.price_changes(lines)] == [key["sku"]]
