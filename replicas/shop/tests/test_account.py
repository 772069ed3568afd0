"""The account's address book and saved cards, the product gallery's views, and refunds to the
gift card balance, through Django's test client. Refused input answers with a clear error and
changes nothing."""

from decimal import Decimal

import pytest

from replicas.shop import policies
from replicas.shop.models import Account, Address, Card, OrderItem, Product, Refund, ReturnRequest, Variant
from replicas.shop.tasks import params as P
from replicas.shop.tests.clients import client_as
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db

GOOD = {
    "action": "add",
    "full_name": "Dana Reyes",
    "line1": "12 Harbor Rd",
    "line2": "",
    "city": "Salem",
    "state": "MA",
    "zip_code": "01970",
    "phone": "978-555-0142",
}


def _hash(world):
    return state_hash(snapshot(world))


def test_an_address_is_added_from_the_address_book_only_when_valid(shop, world_client):
    with bound_world(shop):
        account = Account.objects.filter(role="customer").order_by("public_id").first()
        count = account.addresses.count()
        before = _hash(shop)
    client = client_as(world_client, shop, account)
    bad = client.post("/account/addresses", {**GOOD, "state": "ZZ", "zip_code": "1234", "city": " "})
    assert bad.status_code == 400
    for message in (
        b"Zip Code: Please enter a 5-digit ZIP code.",
        b"State: Please select a state.",
        b"City: Please enter this field.",
    ):
        assert message in bad.content
    assert b'value="12 Harbor Rd"' in bad.content  # what was typed stays in the form
    assert client.post("/account/addresses", {"action": "nonsense"}).status_code == 400
    assert _hash(shop) == before
    assert client.post("/account/addresses", GOOD)["Location"] == "/account/addresses"
    with bound_world(shop):
        added = account.addresses.get(line1="12 Harbor Rd")
        assert account.addresses.count() == count + 1 and not added.is_default and added.complete
    assert b"12 Harbor Rd" in client.get("/account/addresses").content


def test_default_address_moves_only_to_a_complete_one_and_removal_passes_it_on(shop, world_client):
    with bound_world(shop):
        legacy = next(a for a in Address.objects.order_by("public_id") if not a.complete)
        account = legacy.account
        default = account.addresses.get(is_default=True)
        before = _hash(shop)
    client = client_as(world_client, shop, account)
    refused = client.post("/account/addresses", {"action": "default", "address": str(legacy.public_id)})
    assert refused.status_code == 400 and b"missing its state or ZIP code" in refused.content
    again = client.post("/account/addresses", {"action": "default", "address": str(default.public_id)})
    assert again.status_code == 400 and b"already your default address" in again.content
    with bound_world(shop):
        stranger = Address.objects.exclude(account=account).order_by("public_id").first()
    foreign = client.post("/account/addresses", {"action": "remove", "address": str(stranger.public_id)})
    assert foreign.status_code == 400 and b"Please choose one of your addresses." in foreign.content
    assert _hash(shop) == before
    session = client.session
    session["shop_checkout"] = {"address": default.public_id, "speed": "standard"}  # a checkout under way ships there
    session.save()
    client.post("/account/addresses", {"action": "remove", "address": str(default.public_id)})
    assert client.session["shop_checkout"] == {"speed": "standard"}
    with bound_world(shop):
        assert not Address.objects.filter(pk=default.pk).exists()
        heirs = [a for a in account.addresses.order_by("public_id") if a.complete]
        assert [a.pk for a in account.addresses.filter(is_default=True)] == [a.pk for a in heirs[:1]]
        assert Address.objects.filter(pk=stranger.pk).exists()
    # a newly added complete address can then be made the default, and only one is
    client.post("/account/addresses", GOOD)
    with bound_world(shop):
        added = account.addresses.get(line1="12 Harbor Rd")
    assert (
        client.post("/account/addresses", {"action": "default", "address": str(added.public_id)})["Location"]
        == "/account/addresses"
    )
    with bound_world(shop):
        assert list(account.addresses.filter(is_default=True).values_list("pk", flat=True)) == [added.pk]


def test_a_card_is_added_from_payments_after_luhn_expiry_and_issuer_checks(shop, world_client):
    with bound_world(shop):
        account = Account.objects.filter(role="customer").order_by("public_id").first()
        count = account.cards.count()
        before = _hash(shop)
    client = client_as(world_client, shop, account)
    year = shop.clock.year
    cases = [
        ("4242 4242 4242 4241", 12, year + 2, b"The card number is not valid."),
        ("4242424242424242", 1, year - 1, b"This card has expired."),
        (next(iter(policies.DECLINED_NUMBERS)), 12, year + 2, b"Your card was declined by the issuing bank."),
    ]
    for number, month, exp_year, message in cases:
        page = client.post(
            "/account/payments", {"number": number, "exp_month": str(month), "exp_year": str(exp_year), "holder": "A B"}
        )
        assert page.status_code == 400 and message in page.content
        assert number.encode() not in page.content
    assert _hash(shop) == before
    assert (
        client.post(
            "/account/payments",
            {"number": "5555 5555 5555 4444", "exp_month": "3", "exp_year": str(year + 3), "holder": account.name},
        )["Location"]
        == "/account/payments"
    )
    with bound_world(shop):
        card = account.cards.get(last4="4444")
        assert (card.brand, card.exp_month, card.exp_year) == ("Mastercard", 3, year + 3)
        assert account.cards.count() == count + 1
    # removing still works beside the new form
    client.post("/account/payments", {"remove": str(card.public_id)})
    with bound_world(shop):
        assert Card.objects.get(pk=card.pk).removed


def test_the_gallery_shows_the_chosen_view(shop, world_client):
    with bound_world(shop):
        product = Product.objects.order_by("asin").first()
        chosen = product.variants.order_by("sku").first()
    client = world_client(shop)
    paint = f"?colour={chosen.colour}" if chosen.colour else ""  # the image in the chosen variant's colour
    page = client.get(f"/dp/{product.asin}", {"view": "2", "sku": chosen.sku}).content.decode()
    main = f'src="/images/{product.asin}-2.svg{paint}" alt="{product.title}, image 3 of 3"'
    assert main in page.replace("&#x27;", "'")
    assert page.count('aria-current="true" class="on"><img') == 1
    first = client.get(f"/dp/{product.asin}", {"view": "9", "sku": chosen.sku}).content.decode()
    assert f'class="dp-main-img" src="/images/{product.asin}.svg{paint}"' in first
    assert client.get(f"/images/{product.asin}-2.svg").content != client.get(f"/images/{product.asin}.svg").content


def test_a_refund_to_the_gift_card_balance_credits_it(shop, world_client):
    with bound_world(shop):
        key = P.refund_damaged(shop)
        staff = Account.objects.filter(role="staff").order_by("public_id").first()
        owner = Account.objects.get(orders__public_id=key["order"])
        balance = owner.gift_card_balance
    client = client_as(world_client, shop, staff)
    page = client.post(
        f"/backoffice/orders/{key['order']}",
        {"line": key["line"], "amount": "1.50", "method": "gift_card", "reason": "Damaged box"},
    )
    assert page.status_code == 302
    with bound_world(shop):
        assert Account.objects.get(pk=owner.pk).gift_card_balance == balance + Decimal("1.50")
        assert Refund.objects.get(order__public_id=key["order"], reason="Damaged box").method == "gift_card"
    # to the card, the balance stays
    client.post(
        f"/backoffice/orders/{key['order']}",
        {"line": key["line"], "amount": "1.00", "method": "card", "reason": "More"},
    )
    with bound_world(shop):
        assert Account.objects.get(pk=owner.pk).gift_card_balance == balance + Decimal("1.50")


def test_a_return_asks_where_the_refund_goes_and_approval_pays_it_there(shop, world_client):
    with bound_world(shop):
        key = P.return_in_window(shop)
        item = OrderItem.objects.select_related("order__account").get(order__public_id=key["order"], line=key["line"])
        customer = item.order.account
        balance = customer.gift_card_balance
        before = _hash(shop)
    client = client_as(world_client, shop, customer)
    url = f"/your-orders/{key['order']}/return/{key['line']}"
    # the flow's third step, after the reason
    form = client.post(url, {"step": "reason", "reason": "damaged"}).content.decode()
    assert 'id="refund-card" value="card" checked' in form and 'id="refund-gift_card" value="gift_card"' in form
    bad = client.post(url, {"step": "resolution", "reason": "damaged", "refund_method": "cash"})
    assert bad.status_code == 400 and b"Please choose where the refund should go." in bad.content
    assert b'<input type="hidden" name="reason" value="damaged">' in bad.content  # the reason chosen stays chosen
    assert b'id="refund-card"' in bad.content  # the same step again
    confirmed = client.post(url, {"reason": "damaged", "refund_method": "cash"})  # the confirmation checks it too
    assert confirmed.status_code == 400 and b"Please choose where the refund should go." in confirmed.content
    assert _hash(shop) == before
    started = client.post(url, {"reason": "damaged", "refund_method": "gift_card"})["Location"]
    with bound_world(shop):
        ret = ReturnRequest.objects.get(item=item, status="requested")
    assert started == f"/your-orders/{key['order']}/returns/{ret.public_id}"
    with bound_world(shop):
        assert ret.refund_method == "gift_card"
    assert b"refund to gift card balance" in client.get(f"/your-orders/{key['order']}").content
    with bound_world(shop):
        staff = Account.objects.filter(role="staff").order_by("public_id").first()
    back_office = client_as(world_client, shop, staff)
    assert b"to gift card balance" in back_office.get("/backoffice/returns").content
    back_office.post(f"/backoffice/returns/{ret.public_id}", {"decision": "approve"})
    with bound_world(shop):
        refund = Refund.objects.get(return_request__public_id=ret.public_id)
        assert refund.method == "gift_card" and refund.amount == item.amount  # damaged: no restocking fee
        assert Account.objects.get(pk=customer.pk).gift_card_balance == balance + item.amount


def test_unicode_digits_get_a_clear_message_never_a_server_error(shop, world_client):
    """ "²" passes str.isdigit() but not int(): quantities, card numbers, expiry dates, stock counts
    and page numbers written with such digits are refused like any other malformed input."""
    with bound_world(shop):
        key = P.new_card(shop)
        account = Account.objects.get(public_id=key["customer"])
        variant = Variant.objects.filter(stock__gt=2).order_by("sku").first()
        staff = Account.objects.filter(role="staff").order_by("public_id").first()
        before = _hash(shop)
    client = client_as(world_client, shop, account)
    added = client.post("/cart/add", {"sku": variant.sku, "quantity": "²"})
    assert added["Location"] == "/cart" and b"Quantity must be between 1 and 10." in client.get("/cart").content
    card = client.post(
        "/account/payments", {"number": "²" * 16, "exp_month": "¹²", "exp_year": "²⁰³⁰", "holder": "A B"}
    )
    assert card.status_code == 400 and b"The card number is not valid." in card.content
    assert b"Please enter the expiration date." in card.content
    assert client.get("/s", {"page": "²"}).status_code == 200
    assert client.post("/account/addresses", {"action": "remove", "address": "²"}).status_code == 400
    stock = client_as(world_client, shop, staff).post("/backoffice/inventory", {"sku": variant.sku, "stock": "²"})
    assert stock.status_code == 400 and b"whole number from 0 to 9999" in stock.content
    assert _hash(shop) == before


def test_product_drawings_follow_the_kind_and_the_variant_colour(shop, world_client):
    from replicas.shop import images

    with bound_world(shop):
        products = list(Product.objects.order_by("asin"))
        # a drawing per kind of product, read from the title without the brand ("Lantern House" publishes books)
        kinds = {images.kind_of(p) for p in products}
        assert "book" in kinds and len(kinds) >= 12
        assert all(images.kind_of(p) == "book" for p in products if p.department == "books")
        shirt = next(p for p in products if p.department == "clothing")
    assert images.kind_of(shirt) in images.D and images.kind_of(shirt) not in ("book", "speaker", "lamp")
    client = world_client(shop)
    plain = client.get(f"/images/{shirt.asin}.svg").content
    navy = client.get(f"/images/{shirt.asin}.svg", {"colour": "Navy"}).content
    assert images.COLOURS["navy"].encode() in navy and navy != plain
    # an unknown colour (or markup) is ignored: the product's own hue
    assert client.get(f"/images/{shirt.asin}.svg", {"colour": "<b>red</b>"}).content == plain
    assert client.get(f"/images/{shirt.asin}.svg").content == plain  # deterministic
