"""The shop's screenshot tour (`manage.py screenshots shop`): home, search, a product and its Q&A, the cart, each
checkout step (without placing the order), the price-change interstitial, an order, tracking, invoice,
rewards, membership, messages and the back office, at 1280x800; a visitor's cart, Your Orders'
tabs, the "Added to cart" sheet, the Deliver to popover, the All drawer, the Account & Lists flyout, Your List,
the return flow's five steps and its drop-off code, help pages, the 404 page and both sign-in steps; home,
search, product and checkout at 1920x1080 too."""

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
    started = services.return_request(item=returned, reason="damaged", comment="", drop_off="counter")
    services.list_add(account=shopper, variant=shopper.cart_items.order_by("added_at").first().variant)
    sessions = {
        who: account_session(world, account)
        for who, account in (
            ("shopper", shopper),
            ("staff", staff),
            ("reader", reader),
            ("repriced", repriced),
            ("returner", to_return.order.account),
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
        pages = {who: camera.page(session_key) for who, session_key in sessions.items()}
        page = pages["shopper"]

        def step(button: str) -> None:
            page.get_by_role("button", name=button, exact=True).click()
            page.wait_for_load_state("networkidle")

        camera.goto(page, f"/dp/{product_asin}")  # a product viewed: home's "Keep shopping for"
        camera.shot(page, "shop-home.png", "/")
        camera.shot(pages["visitor"], "shop-home-visitor.png", "/")
        camera.shot(page, "shop-search-results.png", "/s?k=wireless")
        camera.shot(page, "shop-product.png", f"/dp/{product_asin}")
        camera.shot(page, "shop-cart.png", "/cart")
        camera.shot(page, "shop-checkout-1-address.png", "/checkout/address")
        step("Use this address")
        camera.shot(page, "shop-checkout-2-payment.png")
        page.locator(f"#card-{key['card']}").check()
        step("Use this payment method")
        camera.shot(page, "shop-checkout-3-items-delivery.png")
        if order_path:
            camera.shot(page, "shop-order-detail.png", order_path)
        else:
            camera.shot(pages["staff"], "shop-order-detail.png", f"/backoffice/orders/{order.public_id}")
        camera.shot(pages["staff"], "shop-backoffice-returns.png", "/backoffice/returns")
        camera.shot(pages["shopper"], "shop-product-qa.png", f"/dp/{asked}#questions")
        camera.shot(pages["repriced"], "shop-price-change.png", "/checkout/price-change")
        reader_page = pages["reader"]
        camera.shot(reader_page, "shop-tracking.png", f"/your-orders/{shipped.public_id}/track")
        camera.shot(reader_page, "shop-invoice.png", f"/your-orders/{shipped.public_id}/invoice")
        camera.shot(reader_page, "shop-rewards.png", "/account/rewards")
        camera.shot(reader_page, "shop-membership.png", "/account/membership")
        camera.shot(reader_page, "shop-messages.png", "/account/messages")
        camera.shot(reader_page, "shop-orders.png", "/your-orders?tab=orders&timeFilter=all")
        camera.shot(reader_page, "shop-orders-buy-again.png", "/your-orders?tab=buy-again")
        camera.shot(pages["visitor"], "shop-cart-visitor.png", "/cart")
        camera.shot(pages["visitor"], "shop-404.png", "/no/such/page")
        camera.shot(page, "shop-list.png", "/hz/wishlist/ls")
        camera.shot(pages["visitor"], "shop-help-delivery.png", "/help/delivery")
        camera.shot(pages["staff"], "shop-help-approval.png", "/help/approval")
        returner = pages["returner"]
        # the return flow, a page a step (nothing is started: the tour stops at the review)
        camera.shot(
            returner, "shop-return-1-items.png", f"/your-orders/{to_return.order.public_id}/return/{to_return.line}"
        )
        returner.get_by_role("button", name="Continue").click()
        returner.locator("#return-reason").select_option("damaged")
        camera.shot(returner, "shop-return-2-reason.png")
        for name, pick in (("3-resolution", None), ("4-drop-off", "#drop-counter"), ("5-review", None)):
            returner.get_by_role("button", name="Continue").click()
            returner.wait_for_load_state("networkidle")
            if pick:
                returner.locator(pick).check()
            camera.shot(returner, f"shop-return-{name}.png")
        camera.shot(
            returner, "shop-return-started.png", f"/your-orders/{returned.order.public_id}/returns/{started.public_id}"
        )
        # the All drawer and the Account & Lists flyout, opened
        camera.goto(page, "/s?k=lamp")
        page.locator(".nav-all > summary").click()
        camera.shot(page, "shop-all-drawer.png")
        camera.goto(page, "/s?k=lamp")
        page.locator("#nav-link-accountList > summary").click()
        camera.shot(page, "shop-account-flyout.png")
        # the header's Deliver to popover, opened (its choices arrive by htmx)
        camera.goto(reader_page, "/s?k=lamp")
        reader_page.locator("#nav-global-location > summary").click()
        reader_page.get_by_role("button", name="Done").wait_for()
        camera.shot(reader_page, "shop-deliver-to.png")
        signin = camera.page()
        camera.shot(signin, "shop-signin.png", "/ap/signin")
        signin.locator("#ap_email").fill(shopper.email)
        signin.get_by_role("button", name="Continue").click()
        signin.locator("#ap_password").wait_for()
        camera.shot(signin, "shop-signin-password.png")
        wide = camera.page(sessions["shopper"], width=1920, height=1080)
        for name, path in (
            ("home", "/"),
            ("search-results", "/s?k=wireless"),
            ("product", f"/dp/{product_asin}"),
            ("cart", "/cart"),
            ("checkout-1-address", "/checkout/address"),
            ("checkout-2-payment", "/checkout/payment"),
            ("checkout-3-items-delivery", "/checkout/review"),
            ("list", "/hz/wishlist/ls"),
            ("help-delivery", "/help/delivery"),
        ):
            camera.shot(wide, f"shop-{name}-1920.png", path)
        wide_reader = camera.page(sessions["reader"], width=1920, height=1080)
        camera.shot(wide_reader, "shop-orders-1920.png", "/your-orders?tab=orders&timeFilter=all")
        camera.shot(wide_reader, "shop-tracking-1920.png", f"/your-orders/{shipped.public_id}/track")
        wide_returner = camera.page(sessions["returner"], width=1920, height=1080)
        camera.shot(
            wide_returner,
            "shop-return-started-1920.png",
            f"/your-orders/{returned.order.public_id}/returns/{started.public_id}",
        )
        # last: it adds to the shopper's cart
        camera.goto(page, f"/dp/{product_asin}")
        page.get_by_role("button", name="Add to Cart").click()
        page.get_by_role("link", name="Proceed to checkout").wait_for()
        camera.shot(page, "shop-added-to-cart.png")

    return shoot
