# imported as a module so that apps.py defines exactly one AppConfig, which Django then picks
import hashlib
import inspect
import json
from functools import cached_property

from replicas.worlds import registry

# The messy layers of seed.LAYERS (listed here so apps.py stays import-light).
ALL_LAYERS = [
    "expiring_deals",
    "price_changes",
    "out_of_stock",
    "legacy_addresses",
    "messy_cards",
    "conflicting_policies",
    "near_duplicates",
    "loyalty_tiers",
    "multi_currency",
    "seasonal_pricing",
]


class ShopConfig(registry.ReplicaConfig):
    """A marketplace storefront in the manner of the large one with the dark header, under our brand (Bazaaro)."""

    name = "replicas.shop"
    label = "shop"
    verbose_name = "Shop"
    default_auto_field = "django.db.models.BigAutoField"

    # Knobs read by seed.generate: sizes, and `layers` (messy data) switched on.
    variants = {
        "default": {"products": 450, "customers": 120, "orders": 640, "reviews_per_product": 3, "layers": ALL_LAYERS},
        "small": {"products": 90, "customers": 24, "orders": 110, "reviews_per_product": 2, "layers": ALL_LAYERS},
        "clean": {"products": 450, "customers": 120, "orders": 640, "reviews_per_product": 3, "layers": []},
        "10k": {"products": 900, "customers": 240, "orders": 1280, "reviews_per_product": 3, "layers": ALL_LAYERS},
        "100k": {"products": 9000, "customers": 2400, "orders": 12800, "reviews_per_product": 3, "layers": ALL_LAYERS},
    }
    start_pages = {"home": "/", "cart": "/cart", "orders": "/your-orders", "backoffice": "/backoffice/returns"}
    login_path = "/ap/signin"
    roles = ("customer", "staff")
    # htmx for the search box's suggestions; build_frontend copies it next to the store's own files
    npm_packages = {"htmx.org": "2.0.8"}
    frontend_assets = [
        ("htmx.org/dist/htmx.min.js", "shop/vendor/htmx.min.js"),
        ("htmx.org/LICENSE", "shop/vendor/LICENSE-htmx"),
    ]
    # For the mutation audit (verifiers.audit). `derived`: what checkout, a cancellation, a
    # refund or the address change computes from the shopper's choices (money, dates, the
    # shipment a line falls in, stock, balances) and the numbers rows are given; the choices
    # themselves (speed, card, address, quantity, status, gift options) are not listed.
    audit = {
        "derived": {
            "shop.order": [
                "delivery_date",
                "subtotal",
                "shipping",
                "gift_wrap",
                "discount",
                "loyalty_pct",
                "loyalty_discount",
                "tax",
                "total",
                "gift_card_amount",
            ],
            "shop.orderitem": ["line", "title", "seller", "unit_price", "shipment", "delivery_date"],
            "shop.variant": ["stock"],
            "shop.account": ["gift_card_balance", "loyalty_points"],
            "shop.cartitem": ["price_when_added"],
            "shop.card": ["public_id", "brand"],
            "shop.address": ["public_id"],
            "shop.question": ["public_id"],
        },
        # "You shop on Bazaaro as {name}": the account signed in with, not a constraint
        "credential_params": ["email", "password", "name"],
        "false_claims": [
            "I have issued a full refund to your original payment method.",
            "Your order has been cancelled and nothing will be charged.",
            "The return has been approved and the item is marked as returned.",
        ],
    }

    @cached_property
    def generator_version(self) -> str:
        """Also changes with the whole seed module (the base version reads only `generate`, not the
        Seeder it drives), the variants' knobs and the store's rules the seed computes totals with."""
        from . import policies, seed

        digest = hashlib.sha256(registry.ReplicaConfig.generator_version.func(self).encode())
        digest.update(inspect.getsource(seed).encode())
        digest.update(inspect.getsource(policies).encode())
        digest.update(json.dumps(self.variants, sort_keys=True).encode())
        return digest.hexdigest()[:16]

    # Models and views load after the app configs: the hooks import them when called.
    def sign_in(self, world, role=None):
        """The first account of `role` in public-id order, with its password and a session."""
        from .signin import account_sign_in

        return account_sign_in(world, self.check_role(role))

    def bench_pages(self, world):
        """A shopper's path: a search (its box first), a product, the cart and checkout."""
        from .selectors import shopper_pages

        return shopper_pages()
