"""Issue 29, round two, the product page: Buy Now (checkout with that item alone, the cart left as
it was), Add to List and Your List, colour swatches apart from the size dropdown, the "About this
item" bullets and description, and "See more reviews"."""

import pytest

from replicas.shop.models import Account, BuyNowItem, CartItem, ListItem, Order, Product, Review, Variant
from replicas.shop.views.product import REVIEWS_PAGE
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.django_db


def _signed_in_customer(world):
    with bound_world(world):
        return Account.objects.filter(role="customer").order_by("public_id").first()


def _in_stock(world, **filters) -> Variant:
    with bound_world(world):
        return (
            Variant.objects.filter(stock__gt=3, **filters)
            .exclude(product__asin__in=CartItem.objects.values("variant__product__asin"))
            .select_related("product")
            .order_by("sku")
            .first()
        )


def test_buy_now_checks_out_that_item_alone_and_leaves_the_cart_as_it_was(shop, world_client):
    account = _signed_in_customer(shop)
    variant = _in_stock(shop)
    client = world_client(shop)
    with bound_world(shop):
        cart_before = sorted(CartItem.objects.filter(account=account).values_list("variant__sku", "quantity"))
    assert cart_before, "the seeded shopper has a cart, so Buy Now must be seen to leave it alone"
    page = client.get(f"/dp/{variant.product.asin}?sku={variant.sku}").content.decode()
    assert 'formaction="/buy-now">Buy Now</button>' in page
    went = client.post("/buy-now", {"sku": variant.sku, "quantity": "2"})
    assert went["Location"] == "/checkout/address"
    lines = client.get("/checkout/address").context["lines"]
    assert [(ln.variant.sku, ln.quantity) for ln in lines] == [(variant.sku, 2)]
    # place it: the order holds only this item, and the cart is untouched
    address = client.get("/checkout/address").context["addresses"][0]
    client.post("/checkout/address", {"address": address.public_id})
    client.post("/checkout/delivery", {"speed": "standard"})
    with bound_world(shop):
        card = account.cards.filter(removed=False, requires_3ds=False).order_by("-exp_year").first()
    client.post("/checkout/payment", {"card": card.public_id})
    placed = client.post("/checkout/place-order")
    assert placed.status_code == 302 and "/gp/buy/thankyou/" in placed["Location"]
    with bound_world(shop):
        order = Order.objects.get(public_id=placed["Location"].rsplit("/", 1)[1])
        assert list(order.items.values_list("variant__sku", "quantity")) == [(variant.sku, 2)]
        assert sorted(CartItem.objects.filter(account=account).values_list("variant__sku", "quantity")) == cart_before
        assert not BuyNowItem.objects.exists()


def test_proceeding_from_the_cart_drops_an_unfinished_buy_now(shop, world_client):
    variant = _in_stock(shop)
    client = world_client(shop)
    client.post("/buy-now", {"sku": variant.sku, "quantity": "1"})
    assert client.get("/checkout")["Location"] == "/checkout/address"
    skus = [ln.variant.sku for ln in client.get("/checkout/address").context["lines"]]
    assert variant.sku not in skus and skus


def test_a_refused_buy_now_says_why_on_the_product_page_and_changes_nothing(shop, world_client):
    variant = _in_stock(shop)
    client = world_client(shop)
    refused = client.post("/buy-now", {"sku": variant.sku, "quantity": "11"})
    assert refused["Location"] == f"/dp/{variant.product.asin}?sku={variant.sku}"
    assert "Quantity must be between 1 and 10." in client.get(refused["Location"]).content.decode()
    with bound_world(shop):
        assert not BuyNowItem.objects.exists()
    assert client.post("/buy-now", {"sku": "NOPE", "quantity": "1"}).status_code == 404


def test_add_to_list_saves_the_variant_once_and_your_list_shows_and_deletes_it(shop, world_client):
    variant = _in_stock(shop)
    client = world_client(shop)
    added = client.post("/hz/wishlist/add", {"sku": variant.sku})
    assert added["Location"] == f"/dp/{variant.product.asin}?sku={variant.sku}"
    assert "1 item added to Your List" in client.get(added["Location"]).content.decode()
    client.post("/hz/wishlist/add", {"sku": variant.sku})
    with bound_world(shop):
        assert list(ListItem.objects.values_list("variant__sku", flat=True)) == [variant.sku]
    page = client.get("/hz/wishlist/ls").content.decode()
    assert variant.product.title in page and f'href="/dp/{variant.product.asin}?sku={variant.sku}"' in page
    client.post("/hz/wishlist/remove", {"sku": variant.sku})
    with bound_world(shop):
        assert not ListItem.objects.exists()
    # a visitor is sent to sign in
    assert (
        "/ap/signin" in world_client(shop, signed_in=False).post("/hz/wishlist/add", {"sku": variant.sku})["Location"]
    )


def test_colour_swatches_keep_the_size_and_the_size_dropdown_lists_the_colours_sizes(shop, world_client):
    with bound_world(shop):
        product = next(
            p
            for p in Product.objects.filter(department="clothing").order_by("asin")
            if len({v.colour for v in p.variants.all()}) > 1 and len({v.size for v in p.variants.all()}) > 1
        )
        variants = list(product.variants.order_by("sku"))
    chosen = variants[0]
    page = world_client(shop).get(f"/dp/{product.asin}?sku={chosen.sku}")
    html = page.content.decode()
    for colour, target, _ in page.context["colours"]:
        assert f'href="?sku={target.sku}"' in html and target.colour == colour
        if any(v.colour == colour and v.size == chosen.size for v in variants):
            assert target.size == chosen.size
    assert [v.sku for v in page.context["sizes"]] == [v.sku for v in variants if v.colour == chosen.colour]
    assert f'<option value="{chosen.sku}" selected>' in html and 'id="dp-size" name="sku"' in html


def test_about_this_item_has_bullets_from_the_products_kind_and_a_description(shop, world_client):
    with bound_world(shop):
        product = Product.objects.filter(title__contains="Wireless Earbuds").select_related("seller").first()
    page = world_client(shop).get(f"/dp/{product.asin}")
    bullets = page.context["copy"].bullets
    assert bullets[0].startswith("Up to 28 hours of playback")
    assert f"{product.seller.return_window_days}-day returns from {product.seller.name}" in bullets
    assert page.context["copy"].description.endswith(product.description)


def test_see_more_reviews_shows_the_next_page_until_there_are_no_more(shop, world_client):
    with bound_world(shop):
        product = max(Product.objects.all(), key=lambda p: p.reviews.count())
        total = Review.objects.filter(product=product).count()
    assert total > REVIEWS_PAGE
    client = world_client(shop)
    first = client.get(f"/dp/{product.asin}")
    assert len(first.context["reviews"]) == REVIEWS_PAGE and first.context["more_reviews"] == 2
    assert "See more reviews" in first.content.decode()
    last = client.get(f"/dp/{product.asin}?reviews=99")
    assert len(last.context["reviews"]) == total and last.context["more_reviews"] is None
    assert len(client.get(f"/dp/{product.asin}?reviews=x").context["reviews"]) == REVIEWS_PAGE
