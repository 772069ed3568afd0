"""The storefront through Django's test client: sign-in, search, product, cart, the checkout's
validation (addresses, Luhn and expiry, promotion stacking, 3-D Secure), orders and the back office.
Refused input answers with a clear error and changes nothing."""

from datetime import timedelta
from decimal import Decimal

import pytest

from replicas.shop import selectors
from replicas.shop.models import Account, Card, CartItem, Order, OrderItem, Product, ReturnRequest
from replicas.shop.tasks import params as P
from replicas.shop.tests.clients import client_as
from replicas.worlds import clock
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def _hash(world):
    return state_hash(snapshot(world))


def test_sign_in_refuses_a_wrong_password_and_pages_need_a_session(shop, world_client):
    client = world_client(shop, signed_in=False)
    assert client.get("/your-orders")["Location"].startswith("/ap/signin?next=/your-orders")
    with bound_world(shop):
        account = Account.objects.filter(role="customer").order_by("public_id").first()
    bad = client.post("/ap/signin", {"email": account.email, "password": "nope"})
    assert bad.status_code == 400 and b"Your email or password is incorrect." in bad.content
    good = client.post(
        "/ap/signin",
        {"email": account.email, "password": get_replica("shop").sign_in(shop).password, "next": "/your-orders"},
    )
    assert good["Location"] == "/your-orders" and client.get("/your-orders").status_code == 200


def test_customers_are_kept_out_of_the_back_office(shop, world_client):
    assert world_client(shop).get("/backoffice/returns").status_code == 403
    staff = world_client(shop, signed_in=False)
    staff.cookies["sessionid"] = get_replica("shop").sign_in(shop, "staff").session_key
    assert b"Returns" in staff.get("/backoffice/returns").content


def test_search_filters_sort_and_sponsored_results(shop, world_client):
    client = world_client(shop)
    page = client.get("/s", {"i": "electronics", "rating": "4", "fast": "1", "s": "price-asc"})
    assert page.status_code == 200
    with bound_world(shop):
        found = selectors.search(
            selectors.SearchQuery(department="electronics", min_rating=4, fast=True, sort="price-asc")
        )
        prices = [p.price_now for p in found.products]
        assert prices == sorted(prices) and all(p.rating >= 4 and p.fast_eligible for p in found.products)
        assert all(p.department == "electronics" for p in found.products)
    assert found.products[0].title.encode() in page.content
    # malformed filters are ignored, never an error page
    assert client.get("/s", {"low": "abc", "rating": "9", "page": "x", "s": "drop table"}).status_code == 200


def test_product_page_shows_variant_price_stock_deal_and_returns_policy(shop, world_client):
    with bound_world(shop):
        key = P.deal_price(shop)
        product = Product.objects.get(asin=key["asin"])
    page = world_client(shop).get(f"/dp/{product.asin}").content.decode()
    assert f"${key['price']}" in page and "Limited time deal" in page
    assert f"{product.seller.return_window_days}-day returns" in page and "Customer reviews" in page


def test_cart_add_refuses_bad_quantities_and_unknown_options(shop, world_client):
    client = world_client(shop)
    with bound_world(shop):
        variant = selectors.search(selectors.SearchQuery()).products[0].variants.filter(stock__gt=2).first()
        before = _hash(shop)
    client.post("/cart/add", {"sku": variant.sku, "quantity": "99"})
    assert client.post("/cart/add", {"sku": "nope", "quantity": "1"}).status_code == 404
    assert _hash(shop) == before
    client.post("/cart/add", {"sku": variant.sku, "quantity": "2"})
    with bound_world(shop):
        signed_in = Account.objects.get(email=get_replica("shop").sign_in(shop).login)
        assert CartItem.objects.get(account=signed_in, variant=variant).quantity == 2


def _checkout(client, key, *, card=None):
    client.post("/checkout/address", {"address": str(key["address"])})
    client.post("/checkout/delivery", {"speed": "standard"})
    return client.post("/checkout/payment", {"card": str(card or key["card"])})


def test_full_checkout_places_the_order_and_empties_the_cart(shop, world_client):
    with bound_world(shop):
        key = P.gift_card_split(shop)
        account = Account.objects.get(public_id=key["customer"])
    client = client_as(world_client, shop, account)
    assert _checkout(client, key)["Location"] == "/checkout/review"
    placed = client.post("/checkout/place-order")
    assert placed["Location"].startswith("/gp/buy/thankyou/ORD-")
    with bound_world(shop):
        order = Order.objects.get(public_id=placed["Location"].rsplit("/", 1)[1])
        assert order.account == account and order.total == order.before_tax + order.tax
        assert not CartItem.objects.filter(account=account, saved_for_later=False).exists()


def test_promotion_codes_expire_and_do_not_stack(shop, world_client):
    with bound_world(shop):
        key = P.best_coupon(shop)
        account = Account.objects.get(public_id=key["customer"])
    client = client_as(world_client, shop, account)
    _checkout(client, key)
    expired = client.post("/checkout/promo", {"code": "SPRING25"})
    assert b"has expired" in expired.content
    client.post("/checkout/promo", {"code": "save10"})
    refused = client.post("/checkout/promo", {"code": "TAKE15"})
    assert b"cannot be combined with SAVE10" in refused.content
    assert client.session["shop_checkout"]["codes"] == ["SAVE10"]


def test_new_cards_need_a_valid_number_and_expiry(shop, world_client):
    with bound_world(shop):
        key = P.new_card(shop)
        account = Account.objects.get(public_id=key["customer"])
        before = _hash(shop)
    client = client_as(world_client, shop, account)
    _checkout(client, key)
    year = shop.clock.year
    luhn = client.post(
        "/checkout/card/new",
        {"number": "4242 4242 4242 4241", "exp_month": "12", "exp_year": str(year + 2), "holder": "A B"},
    )
    assert luhn.status_code == 400 and b"The card number is not valid." in luhn.content
    old = client.post(
        "/checkout/card/new",
        {"number": "4242424242424242", "exp_month": "1", "exp_year": str(year - 1), "holder": "A B"},
    )
    assert b"This card has expired." in old.content
    assert _hash(shop) == before
    client.post(
        "/checkout/card/new",
        {"number": "4242424242424242", "exp_month": "12", "exp_year": str(year + 2), "holder": "A B"},
    )
    with bound_world(shop):
        assert Card.objects.filter(account=account, last4="4242", public_id=key["new_card"]).exists()


def test_a_3ds_card_goes_through_the_challenge_and_a_wrong_code_places_nothing(shop, world_client):
    with bound_world(shop):
        key = P.three_d_secure(shop)
        account = Account.objects.get(public_id=key["customer"])
        address = account.addresses.get(is_default=True)
    client = client_as(world_client, shop, account)
    _checkout(client, {"address": address.public_id, "card": key["card"]})
    assert client.post("/checkout/place-order")["Location"] == "/checkout/3ds"
    wrong = client.post("/checkout/3ds/verify", {"code": "000000"})
    assert wrong.status_code == 400 and b"incorrect" in wrong.content
    with bound_world(shop):
        assert not Order.objects.filter(placed_at=clock.now()).exists()
    assert client.post("/checkout/3ds/verify", {"code": key["code"]})["Location"].startswith("/gp/buy/thankyou/")


def test_new_address_is_validated_before_it_is_saved(shop, world_client):
    with bound_world(shop):
        key = P.new_address(shop)
        account = Account.objects.get(public_id=key["customer"])
        before = _hash(shop)
    client = client_as(world_client, shop, account)
    bad = client.post(
        "/checkout/address/new", {"full_name": "X", "line1": "1 Road", "city": "Town", "state": "ZZ", "zip_code": "12"}
    )
    assert bad.status_code == 400 and b"5-digit ZIP code" in bad.content and b"Please select a state." in bad.content
    assert _hash(shop) == before


def test_a_legacy_address_missing_its_zip_cannot_be_used(shop, world_client):
    with bound_world(shop):
        address = next(
            a
            for a in selectors.Address.objects.order_by("public_id")
            if not a.complete and selectors.cart_lines(a.account)
        )
    client = client_as(world_client, shop, address.account)
    refused = client.post("/checkout/address", {"address": str(address.public_id)})
    assert refused.status_code == 400 and b"missing required fields" in refused.content


def test_cancelling_shipped_orders_and_late_returns_is_refused(shop, world_client):
    with bound_world(shop):
        shipped = Order.objects.filter(status="shipped").order_by("public_id").first()
        key = P.return_outside_window(shop)
        late = OrderItem.objects.get(order__public_id=key["order"], line=key["line"])
        before = _hash(shop)
    client = client_as(world_client, shop, shipped.account)
    refused = client.post(f"/your-orders/{shipped.public_id}/cancel", {"line": "1", "reason": "mistake"})
    assert refused.status_code == 400 and b"already shipped" in refused.content
    client = client_as(world_client, shop, late.order.account)
    page = client.post(f"/your-orders/{key['order']}/return/{key['line']}", {"reason": "damaged"})
    assert page.status_code == 400 and b"return window for this item closed" in page.content
    assert _hash(shop) == before


def test_cancelling_needs_one_of_the_stores_reasons_which_the_order_and_back_office_show(shop, world_client):
    with bound_world(shop):
        key = P.cancel_one_item(shop)
        account = Order.objects.get(public_id=key["order"]).account
        before = _hash(shop)
    client = client_as(world_client, shop, account)
    url = f"/your-orders/{key['order']}/cancel"
    form = client.get(url).content.decode()
    assert 'id="cancel-reason" name="reason" required' in form and "Shipping cost too high" in form
    for reason in ({}, {"reason": ""}, {"reason": "bored"}):
        refused = client.post(url, {"line": str(key["line"]), **reason})
        page = refused.content.decode()
        assert refused.status_code == 400 and "Please choose a reason for cancelling." in page
        assert f'id="line-{key["line"]}" checked' in page  # the checked item stays checked
    assert _hash(shop) == before
    assert client.post(url, {"line": str(key["line"]), "reason": "address"}).status_code == 302
    with bound_world(shop):
        items = {i.line: i for i in OrderItem.objects.filter(order__public_id=key["order"])}
    assert (items[key["line"]].status, items[key["line"]].cancel_reason) == ("cancelled", "address")
    assert all((items[n].status, items[n].cancel_reason) == ("active", "") for n in key["others"])
    assert "Cancelled: Need to change shipping address" in client.get(f"/your-orders/{key['order']}").content.decode()
    staff = world_client(shop, signed_in=False)
    staff.cookies["sessionid"] = get_replica("shop").sign_in(shop, "staff").session_key
    assert "reason: Need to change shipping address" in staff.get(f"/backoffice/orders/{key['order']}").content.decode()


def test_back_office_approves_by_policy_and_refuses_late_approvals(shop, world_client):
    staff = world_client(shop, signed_in=False)
    staff.cookies["sessionid"] = get_replica("shop").sign_in(shop, "staff").session_key
    with bound_world(shop):
        late = P.reject_late_return(shop)["rma"]
        good = P.approve_return(shop)
        before = _hash(shop)
    staff.post(f"/backoffice/returns/{late}", {"decision": "approve"})
    assert b"after the seller&#x27;s return window closed" in staff.get("/backoffice/returns").content
    assert _hash(shop) == before
    staff.post(f"/backoffice/returns/{good['rma']}", {"decision": "approve"})
    with bound_world(shop):
        ret = ReturnRequest.objects.get(public_id=good["rma"])
        assert ret.status == "refunded" and ret.refunds.get().amount == Decimal(good["amount"])
        assert ret.decided_at == clock.now() and ret.requested_at < clock.now() + timedelta(days=1)


def test_refunds_cannot_exceed_what_the_line_cost(shop, world_client):
    staff = world_client(shop, signed_in=False)
    staff.cookies["sessionid"] = get_replica("shop").sign_in(shop, "staff").session_key
    with bound_world(shop):
        key = P.refund_damaged(shop)
        before = _hash(shop)
    too_much = Decimal(key["amount"]) + 1
    page = staff.post(
        f"/backoffice/orders/{key['order']}",
        {"line": key["line"], "amount": str(too_much), "method": "card", "reason": "x"},
    )
    assert page.status_code == 400 and b"can still be refunded" in page.content
    assert (
        staff.post(
            f"/backoffice/orders/{key['order']}",
            {"line": key["line"], "amount": "abc", "method": "card", "reason": "x"},
        ).status_code
        == 400
    )
    assert _hash(shop) == before


def test_an_armed_payment_failure_shows_the_store_error_page_once_and_places_nothing(make_world, world_client):
    faulty = make_world(
        replica="shop",
        seed=7,
        variant="small",
        faults=[{"name": "server_error", "params": {"route": "^/checkout/place-order$", "status": 500, "times": 1}}],
    )
    with bound_world(faulty):
        key = P.ready_cart(faulty)
        account = Account.objects.get(public_id=key["customer"])
    client = client_as(world_client, faulty, account)
    _checkout(client, key)
    failed = client.post("/checkout/place-order")
    assert failed.status_code == 500 and b"Sorry! Something went wrong on our end." in failed.content
    with bound_world(faulty):
        assert not account.orders.filter(status="placed", placed_at=clock.now()).exists()
    assert client.post("/checkout/place-order")["Location"].startswith("/gp/buy/thankyou/")
