"""Issue 29's "today's store": the "Added to cart" side sheet, headline prices with raised cents,
the brand's own mark, the shop's own 404 page and favicon, and Your Orders' tabs."""

import re

import pytest

from replicas.shop import policies
from replicas.shop.models import Account, Order, Variant
from replicas.shop.signin import account_password
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.django_db


def test_add_to_cart_from_the_product_page_opens_the_added_to_cart_sheet(shop, world_client):
    with bound_world(shop):
        variant = Variant.objects.filter(stock__gt=3).select_related("product").order_by("sku").first()
    client = world_client(shop)
    before = client.get("/cart").context["count"]
    page = client.get(f"/dp/{variant.product.asin}?sku={variant.sku}").content.decode()
    assert 'hx-post="/cart/add"' in page and 'id="added-sheet"' in page
    sheet = client.post("/cart/add", {"sku": variant.sku, "quantity": "2"}, HTTP_HX_REQUEST="true")
    text = sheet.content.decode()
    assert sheet.status_code == 200 and "<html" not in text and "Added to cart" in text
    cart = client.get("/cart")
    assert cart.context["count"] == before + 2
    assert f"({before + 2} items): <strong>{policies.money(cart.context['subtotal'])}</strong>" in text
    assert 'href="/checkout">Proceed to checkout</a>' in text
    assert f'id="nav-cart" hx-swap-oob="true" href="/cart" aria-label="{before + 2} items in cart"' in text
    # a refusal shows in the sheet and adds nothing
    refused = client.post("/cart/add", {"sku": variant.sku, "quantity": "11"}, HTTP_HX_REQUEST="true")
    assert (
        "Quantity must be between 1 and 10." in refused.content.decode()
        and "Added to cart" not in refused.content.decode()
    )
    assert client.get("/cart").context["count"] == before + 2
    # without htmx, the cart page as before
    assert client.post("/cart/add", {"sku": variant.sku, "quantity": "1"})["Location"] == "/cart"


def test_headline_prices_raise_the_cents_and_keep_the_plain_amount_for_readers(shop, world_client):
    with bound_world(shop):
        variant = Variant.objects.filter(price__gte=1000).select_related("product").order_by("sku").first()
        variant = variant or Variant.objects.order_by("-price").select_related("product").first()
    page = world_client(shop).get(f"/dp/{variant.product.asin}?sku={variant.sku}")
    price = page.context["price"]
    plain = policies.money(price)
    whole, cents = plain[1:].split(".")
    drawn = f'<span class="price-sym">$</span>{whole}<span class="price-cents">{cents}</span>'
    html = page.content.decode()
    assert f'<span class="visually-hidden">{plain}</span>' in html and drawn in html
    assert ("," in whole) == (price >= 1000)


def test_the_brand_is_our_own_and_the_shop_has_its_own_404_and_favicon(shop, world_client):
    client = world_client(shop, signed_in=False)
    home = client.get("/").content.decode()
    assert "logo-smile" not in home and 'class="logo-mark"' in home
    assert "or its affiliates" not in home and "1996" not in home
    assert 'rel="icon" href="/static/shop/favicon.svg"' in home
    missing = client.get("/no/such/page")
    assert missing.status_code == 404 and b"This stall is empty" in missing.content
    unknown_product = client.get("/dp/NOSUCHASIN")
    assert unknown_product.status_code == 404 and b"This stall is empty" in unknown_product.content
    assert client.get("/favicon.ico")["Location"] == "/static/shop/favicon.svg"


def test_your_orders_tabs_show_what_each_names(shop, world_client):
    with bound_world(shop):
        account = (
            Account.objects.filter(orders__status="placed")
            .filter(orders__status="delivered")
            .order_by("public_id")
            .first()
        )
        placed = set(account.orders.filter(status="placed").values_list("public_id", flat=True))
        others = set(account.orders.exclude(status="placed").values_list("public_id", flat=True))
        delivered_titles = set(
            account.orders.filter(status="delivered").values_list("items__variant__product__title", flat=True)
        )
    client = world_client(shop, signed_in=False)
    client.post(
        "/ap/signin",
        {"email": account.email, "password": account_password(seed=shop.seed, public_id=account.public_id)},
    )
    page = client.get("/your-orders", {"tab": "not-shipped"}).content.decode()
    shown = set(re.findall(r'<span id="o-([^"]+)">', page))
    assert shown == placed and not shown & others
    assert 'aria-current="page">Not Yet Shipped</a>' in page
    again = client.get("/your-orders", {"tab": "buy-again"})
    titles = [p.title for p in again.context["bought"]]
    assert len(titles) == len(set(titles)) == min(24, len(delivered_titles)) and set(titles) <= delivered_titles
    assert client.get("/your-orders", {"tab": "nonsense"}).context["tab"] == "orders"
    with bound_world(shop):
        cancelled = set(Order.objects.filter(account=account, status="cancelled").values_list("public_id", flat=True))
    listed = set(
        re.findall(r'<span id="o-([^"]+)">', client.get("/your-orders", {"tab": "cancelled"}).content.decode())
    )
    assert listed == cancelled


def test_deliver_to_opens_as_a_popover_whose_choice_comes_back_to_the_page(shop, world_client):
    client = world_client(shop, signed_in=False)
    header = client.get("/s?k=lamp").content.decode()
    assert '<details class="nav-deliver" id="nav-global-location">' in header
    assert 'hx-get="/deliver-to?next=/s%3Fk%3Dlamp"' in header
    panel = client.get("/deliver-to", {"next": "/s?k=lamp"}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in panel and "Choose your location" in panel and 'name="state"' in panel
    assert 'value="/s?k=lamp"' in panel
    chosen = client.post("/deliver-to", {"state": "MT", "next": "/s?k=lamp"})
    assert chosen["Location"] == "/s?k=lamp" and "MT" in client.get("/s?k=lamp").content.decode()
