"""The shop's seed generator: deterministic across runs and backends, sized per variant, and
its messy layers really present (or absent in the clean variant)."""

from datetime import timedelta

import pytest

from replicas.shop import policies, selectors
from replicas.shop.apps import ALL_LAYERS
from replicas.shop.models import (
    Account,
    Address,
    Card,
    CartItem,
    Order,
    OrderItem,
    Product,
    Refund,
    ReturnRequest,
    SeasonalSale,
    Seller,
    Variant,
)
from replicas.shop.seed import LAYERS
from replicas.worlds import clock
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_generate
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db

# The state hash of (shop, seed 7, small): the same on SQLite and PostgreSQL (CI runs this module
# on both). It changes, on purpose, whenever the generator or the models change: update it then.
SMALL_SEED_7_HASH = "d758d9b093c2a4aead6d444b980a0f76e4d9784e7515697ddc452b208a39490e"


def test_the_apps_layer_list_is_the_generators():
    assert ALL_LAYERS == list(LAYERS)


def test_same_seed_gives_the_same_state_hash_on_every_backend():
    a = world_generate(replica="shop", seed=7, variant="small")
    b = world_generate(replica="shop", seed=7, variant="small")
    assert a.state_hash == b.state_hash == state_hash(snapshot(a))
    assert a.state_hash == SMALL_SEED_7_HASH
    other = world_generate(replica="shop", seed=8, variant="small")
    assert other.state_hash != a.state_hash


def test_every_messy_layer_shows_in_the_small_variant():
    messy = world_generate(replica="shop", seed=3, variant="small")
    with bound_world(messy):
        now = clock.now()
        assert Variant.objects.filter(stock=0).exists()
        assert Address.objects.filter(zip_code="").exists()
        assert any(c.price_when_added != selectors.variant_price(c.variant) for c in CartItem.objects.all())
        assert Card.objects.filter(exp_year__lt=now.year).exists()
        names = list(Seller.objects.values_list("name", flat=True))
        assert len(names) != len(set(names))  # one storefront name, two policies
        assert Product.objects.filter(title__endswith=" - New").exists()
        assert (
            Product.objects.filter(deal_ends_at__gt=now, deal_ends_at__lt=now + timedelta(hours=1)).exists()
            or Product.objects.filter(deal_ends_at__lt=now).exists()
        )
        tiers = {
            policies.loyalty_tier(p).name
            for p in Account.objects.filter(role="customer").values_list("loyalty_points", flat=True)
        }
        assert tiers == {"Blue", "Silver", "Gold"}
        assert Account.objects.exclude(currency="USD").exists()
        running = SeasonalSale.objects.filter(starts_at__lte=now, ends_at__gt=now)
        assert running.filter(ends_at__lt=now + timedelta(hours=2)).exists()  # a season that ends mid-episode
        assert (
            SeasonalSale.objects.filter(ends_at__lte=now).exists()
            and SeasonalSale.objects.filter(starts_at__gt=now).exists()
        )
    clean = world_generate(replica="shop", seed=3, variant="clean")
    with bound_world(clean):
        assert (
            not Account.objects.exclude(currency="USD").exists()
            and not Account.objects.filter(loyalty_points__gt=0).exists()
        )
        assert not SeasonalSale.objects.exists()


def test_default_size_is_about_five_thousand_rows_and_order_stories_hold():
    world = world_generate(replica="shop", seed=7, variant="default")
    assert 4500 <= world.rows <= 6500
    with bound_world(world):
        now = clock.now()
        for order in Order.objects.prefetch_related("items").order_by("public_id")[:200]:
            items = list(order.items.all())
            assert order.total == order.before_tax + order.tax
            assert order.subtotal == sum(i.amount for i in items)
            if order.status == Order.Status.DELIVERED:
                assert all(i.delivered_at <= now for i in items)
            else:
                assert all(i.delivered_at is None for i in items)
        for refund in Refund.objects.select_related("return_request")[:50]:
            assert refund.return_request.status == ReturnRequest.Status.REFUNDED
            assert refund.amount == selectors.refund_for_return(refund.return_request)
        assert OrderItem.objects.filter(returns__status="requested").exists()
