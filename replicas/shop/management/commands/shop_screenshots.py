"""Regenerates the shop's screenshots, docs/screenshots/shop-*.png, from a fresh default world.

Serves the project over WSGI in a thread, signs shoppers and a staff member in with session
cookies, walks the checkout in Chromium (without placing the order) and captures the main pages
(and the product's Q&A, the price-change interstitial, tracking, invoice, rewards, membership and
messages) at 1280x800 with Debian Chromium and the Liberation fonts, so every machine gets the
same pixels.
"""

import threading
from pathlib import Path
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings
from django.core.management.base import BaseCommand
from django.core.wsgi import get_wsgi_application

from replicas.worlds.routing import world_origin
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete

from ...models import Account, Order, Question, SellerMessage
from ...signin import account_session
from ...tasks.params import price_changed_in_cart, ready_cart

OUT = Path(settings.BASE_DIR) / "docs" / "screenshots"


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class Command(BaseCommand):
    help = (
        "Regenerate docs/screenshots/shop-*.png (search, product and its Q&A, cart, each checkout step, the price-change "
        "interstitial, order detail, tracking, invoice, rewards, membership, messages, back office)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--variant", default="default")
        parser.add_argument("--out", default=str(OUT))

    def handle(self, *args, seed, variant, out, **options):
        from playwright.sync_api import sync_playwright

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        world = world_create(replica="shop", seed=seed, variant=variant)
        server = make_server("127.0.0.1", 0, get_wsgi_application(), server_class=_Server, handler_class=_QuietHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with bound_world(world):
                key = ready_cart(world)
                shopper = Account.objects.get(public_id=key["customer"])
                staff = Account.objects.filter(role=Account.Role.STAFF).order_by("public_id").first()
                order = (
                    Order.objects.filter(account=shopper, status=Order.Status.DELIVERED).order_by("-placed_at").first()
                    or Order.objects.filter(status=Order.Status.DELIVERED).order_by("public_id").first()
                )
                # an order of the shopper's own, or the staff view of another customer's
                order_path = f"/your-orders/{order.public_id}" if order.account_id == shopper.id else None
                product_asin = shopper.cart_items.order_by("added_at").first().variant.product.asin
                # a shopper with a message from a seller and a shipped order, for the account pages
                reader = (
                    SellerMessage.objects.filter(account__orders__status="shipped")
                    .select_related("account")
                    .order_by("public_id")
                    .first()
                    .account
                )
                shipped = reader.orders.filter(status="shipped").order_by("-placed_at").first()
                repriced = Account.objects.get(email=price_changed_in_cart(world)["email"])
                asked = Question.objects.filter(answers__isnull=False).order_by("public_id").first().product.asin
                sessions = {
                    "shopper": account_session(world, shopper),
                    "staff": account_session(world, staff),
                    "reader": account_session(world, reader),
                    "repriced": account_session(world, repriced),
                }
            origin = world_origin(world, server.server_address[1])
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=settings.CHROMIUM_PATH, headless=True)
                pages = {}
                for who, session_key in sessions.items():
                    context = browser.new_context(viewport={"width": 1280, "height": 800}, device_scale_factor=1)
                    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session_key, "url": origin}])
                    pages[who] = context.new_page()
                page = pages["shopper"]

                def shot(name, path=None):
                    if path:
                        page.goto(origin + path, wait_until="networkidle")
                    page.screenshot(path=str(out / f"shop-{name}.png"))
                    self.stdout.write(f"shop-{name}.png  {page.url[len(origin) :]}")

                shot("search-results", "/s?k=wireless")
                shot("product", f"/dp/{product_asin}")
                shot("cart", "/cart")
                shot("checkout-1-address", "/checkout/address")
                page.get_by_role("button", name="Use this address", exact=True).click()
                page.wait_for_load_state("networkidle")
                shot("checkout-2-delivery")
                page.get_by_role("button", name="Continue").click()
                page.wait_for_load_state("networkidle")
                shot("checkout-3-payment")
                page.locator(f"#card-{key['card']}").check()
                page.get_by_role("button", name="Use this payment method").click()
                page.wait_for_load_state("networkidle")
                shot("checkout-4-review")
                if order_path:
                    shot("order-detail", order_path)
                page = pages["staff"]
                if not order_path:
                    shot("order-detail", f"/backoffice/orders/{order.public_id}")
                shot("backoffice-returns", "/backoffice/returns")
                page = pages["shopper"]
                shot("product-qa", f"/dp/{asked}#questions")
                page = pages["repriced"]
                shot("price-change", "/checkout/price-change")
                page = pages["reader"]
                shot("tracking", f"/your-orders/{shipped.public_id}/track")
                shot("invoice", f"/your-orders/{shipped.public_id}/invoice")
                shot("rewards", "/account/rewards")
                shot("membership", "/account/membership")
                shot("messages", "/account/messages")
                browser.close()
        finally:
            server.shutdown()
            world_delete(world=world)
