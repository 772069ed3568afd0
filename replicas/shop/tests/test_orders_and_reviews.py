"""Your Orders' search and per-item buttons, the order details' pictures and links, and writing a
review of a delivered product, through Django's test client. Refused input says why and changes
nothing."""

from decimal import Decimal

import pytest
from django.utils.html import escape

from replicas.shop.models import Account, Order, OrderItem, Product, Review
from replicas.shop.tests.clients import client_as
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def _delivered(world):
    """A delivered item whose buyer has not reviewed its product, and a product they never received."""
    with bound_world(world):
        for item in (
            OrderItem.objects.filter(delivered_at__isnull=False)
            .select_related("order__account", "variant__product")
            .order_by("id")
        ):
            account, product = item.order.account, item.variant.product
            if account.role == Account.Role.CUSTOMER and not product.reviews.filter(author=account.name).exists():
                bought = OrderItem.objects.filter(order__account=account).values_list("variant__product_id", flat=True)
                never = Product.objects.exclude(pk__in=set(bought)).order_by("asin").first()
                return item, account, product, never
    raise AssertionError("no delivered item to review in the small world")


def test_orders_search_finds_by_item_words_or_order_number_across_every_period(shop, world_client):
    item, account, _, _ = _delivered(shop)
    client = client_as(world_client, shop, account)
    with bound_world(shop):
        word = max(item.title.split(), key=len)
        matching = set(
            Order.objects.filter(account=account, items__title__icontains=word).values_list("public_id", flat=True)
        )
        others = set(Order.objects.filter(account=account).values_list("public_id", flat=True)) - matching
    page = client.get("/your-orders", {"search": f"  {word.upper()} "}).content.decode()
    assert f'{len(matching)} order{"s" if len(matching) != 1 else ""} matching "{word.upper()}"' in page
    assert all(f"View order details {p}" in page for p in matching)
    assert not any(f"View order details {p}" in page for p in others)
    by_number = client.get("/your-orders", {"search": item.order.public_id}).content.decode()
    assert by_number.count("View order details ORD-") == 1
    # a delivered item's buttons, in the list and in the order's details (with its picture and link)
    title = escape(item.title)
    assert f'aria-label="Write a product review: {title}"' in page
    detail = client.get(f"/your-orders/{item.order.public_id}").content.decode()
    link = f'href="/dp/{item.variant.product.asin}?sku={item.variant.sku}"'
    assert f"{link}>{title}</a>" in detail and f'src="/images/{item.variant.product.asin}.svg' in detail
    for label in ("Write a product review", "Buy it again"):
        assert f'aria-label="{label}: {title}"' in detail


def test_a_buyer_reviews_a_delivered_product_once_and_its_ratings_follow(shop, world_client):
    _, account, product, never = _delivered(shop)
    client = client_as(world_client, shop, account)
    assert client.get(f"/review/create/{product.asin}").status_code == 200
    before = state_hash(snapshot(shop))
    for data, message in (
        ({"rating": "6", "title": "Fine", "body": "Works as described, no complaints."}, b"from 1 to 5 stars"),
        ({"rating": "x", "title": "Fine", "body": "Works as described, no complaints."}, b"from 1 to 5 stars"),
        ({"rating": "4", "title": " ", "body": "Works as described, no complaints."}, b"Please add a headline."),
        ({"rating": "4", "title": "Fine", "body": "Short."}, b"Please write between 20 and 5000 characters."),
    ):
        refused = client.post(f"/review/create/{product.asin}", data)
        assert refused.status_code == 400 and message in refused.content
    not_bought = client.post(
        f"/review/create/{never.asin}", {"rating": "5", "title": "Great", "body": "I never had this one, honestly."}
    )
    assert not_bought.status_code == 400 and b"once it has been delivered to you" in not_bought.content
    assert state_hash(snapshot(shop)) == before
    text = {"rating": "4", "title": "  Does  the job ", "body": "Sturdy, arrived on time and works as described."}
    assert client.post(f"/review/create/{product.asin}", text)["Location"] == f"/dp/{product.asin}#reviews"
    with bound_world(shop):
        review = Review.objects.get(product=product, author=account.name)
        assert (review.rating, review.title, review.verified) == (4, "Does the job", True)
        fresh = type(product).objects.get(pk=product.pk)
        assert fresh.review_count == product.review_count + 1
        expected = (product.rating * product.review_count + 4) / (product.review_count + 1)
        assert fresh.rating == expected.quantize(Decimal("0.1"))
    page = client.get(f"/dp/{product.asin}").content.decode()
    assert "Thank you: your review was submitted" in page and "Does the job" in page
    again = client.post(f"/review/create/{product.asin}", text)
    assert again.status_code == 400 and b"You have already reviewed this product." in again.content
