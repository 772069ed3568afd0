"""The shop's screenshot tour (`manage.py screenshots shop`): home, search, a product and its Q&A, the cart, each
checkout step (without placing the order), the price-change interstitial, an order, tracking, invoice, rewards,
membership, messages, Create Review, cancelling an order (its reason picker) and the back office (returns, order
search, an order, inventory); a visitor's cart, Your Orders' tabs, the "Added to cart" sheet, the Deliver to popover,
the All drawer, the Account & Lists flyout, Your List, the return flow's five steps and its drop-off code, help
pages, the 404 page and both sign-in steps: every page at 1280x800 (shop-NAME.png) and at 1920x1080
(shop-NAME-1920.png)."""

import secrets
from importlib import import_module

from django.conf import settings

from . import selectors, services
from .models import Account, Order, OrderItem, Question, SellerMessage, Variant
from .signin import account_session
from .tasks.params import price_changed_in_cart, ready_cart
from .views.common import VISITOR


def tour(world):
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
    # a delivered item still inside its return window: one return form, and one return started
    returnable = [
        i
        for i in OrderItem.objects.filter(delivered_at__isnull=False).select_related("order__account").order_by("id")
        if not selectors.return_blocker(i)
    ]
    to_return, returned = (
        returnable[0],
        next(i for i in returnable[1:] if i.order.account_id == returnable[0].order.account_id),
    )
    # read now: the tour's pages run inside Playwright's event loop, where the ORM may not query
    review_asin, customer_word = to_return.variant.product.asin, shipped.account.name.split()[0]
    started = services.return_request(item=returned, reason="damaged", comment="", drop_off="counter")
    # an order not yet shipped, to cancel (the tour stops on its page: nothing is cancelled)
    placed = Order.objects.filter(status=Order.Status.PLACED).order_by("public_id").first()
    services.list_add(account=shopper, variant=shopper.cart_items.order_by("added_at").first().variant)
    sessions = {
        who: account_session(world, account)
        for who, account in (
            ("shopper", shopper),
            ("staff", staff),
            ("reader", reader),
            ("repriced", repriced),
            ("returner", to_return.order.account),
            ("canceller", placed.account),
        )
    }
    # a signed-out visitor with two items in their cart
    visitor = secrets.token_hex(16)
    for variant in Variant.objects.filter(stock__gt=3).order_by("sku")[:2]:
        services.visitor_cart_add(visitor=visitor, variant=variant, quantity=1)
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store[VISITOR] = visitor
    store.save()
    sessions["visitor"] = store.session_key

    def shoot(camera):
        # every page at both sizes the docs show, each pass in its own browser contexts
        sizes = ((1280, 800, ""), (1920, 1080, "-1920"))
        for width, height, suffix in sizes:
            _pass(camera, width, height, suffix)
        # last, after both passes: it adds to the shopper's cart, which the passes show
        for width, height, suffix in sizes:
            page = camera.page(sessions["shopper"], width=width, height=height)
            camera.goto(page, f"/dp/{product_asin}")
            page.get_by_role("button", name="Add to Cart").click()
            page.get_by_role("link", name="Proceed to checkout").wait_for()
            camera.shot(page, f"shop-added-to-cart{suffix}.png")

    def _pass(camera, width: int, height: int, suffix: str) -> None:
        pages = {who: camera.page(session_key, width=width, height=height) for who, session_key in sessions.items()}
        page = pages["shopper"]

        def shot(on, name: str, path: str | None = None) -> None:
            camera.shot(on, f"shop-{name}{suffix}.png", path)

        def step(button: str) -> None:
            page.get_by_role("button", name=button, exact=True).click()
            page.wait_for_load_state("networkidle")

        camera.goto(page, f"/dp/{product_asin}")  # a product viewed: home's "Keep shopping for"
        shot(page, "home", "/")
        shot(pages["visitor"], "home-visitor", "/")
        shot(page, "search-results", "/s?k=wireless")
        shot(page, "product", f"/dp/{product_asin}")
        shot(page, "cart", "/cart")
        # checkout's sections in the store's order: address, payment, then items and delivery
        shot(page, "checkout-1-address", "/checkout/address")
        step("Use this address")
        shot(page, "checkout-2-payment")
        page.locator(f"#card-{key['card']}").check()
        step("Use this payment method")
        shot(page, "checkout-3-items-delivery")
        if order_path:
            shot(page, "order-detail", order_path)
        else:
            shot(pages["staff"], "order-detail", f"/backoffice/orders/{order.public_id}")
        shot(pages["staff"], "backoffice-returns", "/backoffice/returns")
        shot(pages["staff"], "backoffice-orders", f"/backoffice/orders?q={customer_word}")
        shot(pages["staff"], "backoffice-order", f"/backoffice/orders/{shipped.public_id}")
        shot(pages["staff"], "backoffice-inventory", "/backoffice/inventory?stock=low")
        shot(pages["shopper"], "product-qa", f"/dp/{asked}#questions")
        shot(pages["repriced"], "price-change", "/checkout/price-change")
        reader_page = pages["reader"]
        shot(reader_page, "tracking", f"/your-orders/{shipped.public_id}/track")
        shot(reader_page, "invoice", f"/your-orders/{shipped.public_id}/invoice")
        shot(reader_page, "rewards", "/account/rewards")
        shot(reader_page, "membership", "/account/membership")
        shot(reader_page, "messages", "/account/messages")
        shot(reader_page, "orders", "/your-orders?tab=orders&timeFilter=all")
        shot(reader_page, "orders-buy-again", "/your-orders?tab=buy-again")
        shot(pages["returner"], "review-create", f"/review/create/{review_asin}")
        shot(pages["canceller"], "order-cancel", f"/your-orders/{placed.public_id}/cancel")
        shot(pages["visitor"], "cart-visitor", "/cart")
        shot(pages["visitor"], "404", "/no/such/page")
        shot(page, "list", "/hz/wishlist/ls")
        shot(pages["visitor"], "help-delivery", "/help/delivery")
        shot(pages["staff"], "help-approval", "/help/approval")
        returner = pages["returner"]
        # the return flow, a page a step (nothing is started: the tour stops at the review)
        shot(returner, "return-1-items", f"/your-orders/{to_return.order.public_id}/return/{to_return.line}")
        returner.get_by_role("button", name="Continue").click()
        returner.locator("#return-reason").select_option("damaged")
        shot(returner, "return-2-reason")
        for name, pick in (("3-resolution", None), ("4-drop-off", "#drop-counter"), ("5-review", None)):
            returner.get_by_role("button", name="Continue").click()
            returner.wait_for_load_state("networkidle")
            if pick:
                returner.locator(pick).check()
            shot(returner, f"return-{name}")
        shot(returner, "return-started", f"/your-orders/{returned.order.public_id}/returns/{started.public_id}")
        # the All drawer and the Account & Lists flyout, opened
        camera.goto(page, "/s?k=lamp")
        page.locator(".nav-all > summary").click()
        shot(page, "all-drawer")
        camera.goto(page, "/s?k=lamp")
        page.locator("#nav-link-accountList > summary").click()
        shot(page, "account-flyout")
        # the header's Deliver to popover, opened (its choices arrive by htmx)
        camera.goto(reader_page, "/s?k=lamp")
        reader_page.locator("#nav-global-location > summary").click()
        reader_page.get_by_role("button", name="Done").wait_for()
        shot(reader_page, "deliver-to")
        signin = camera.page(width=width, height=height)
        shot(signin, "signin", "/ap/signin")
        signin.locator("#ap_email").fill(shopper.email)
        signin.get_by_role("button", name="Continue").click()
        signin.locator("#ap_password").wait_for()
        shot(signin, "signin-password")

    return shoot
