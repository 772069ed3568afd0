"""Params functions of the shop task pack: each picks its task's records from the seeded world and
computes the answer key (which product, which order, amounts and dates), so no task hard-codes
world data.

Called by the catalogue as `fn(world)` with the (template) world bound. A function picks the
first suitable record in public-id order (or, given an episode's `rng`, a random suitable one:
replicas.worlds.seeding.candidates) and raises NoCandidate when the world has none, so a task on
another seed either finds its own records or fails loudly at load time.
"""

import re
from datetime import timedelta
from decimal import Decimal

from replicas.worlds import clock
from replicas.worlds.seeding import candidates

from .. import policies, selectors
from ..faults import PRICE_RISE
from ..models import Account, Coupon, Order, OrderItem, Product, Question, Refund, ReturnRequest
from ..signin import account_password

# World time an episode may take (30 s a step, at most 40 steps): answers that depend on the clock
# (a return window, a deal) must hold over this span.
EPISODE_SPAN = timedelta(hours=1)
NEW_CARD = {"number": "4242 4242 4242 4242", "last4": "4242", "exp_month": "12", "exp_year": "2031"}
NEW_ADDRESS = {
    "line1": "1200 Harbor View Road",
    "line2": "Suite 5",
    "city": "Portland",
    "state": "OR",
    "zip_code": "97205",
    "phone": "503-555-0142",
}


class NoCandidate(LookupError):
    """The world holds no record this task can be about."""


def _money(amount: Decimal) -> str:
    return str(policies.cents(amount))


def _date(value) -> str:
    return value.date().isoformat() if hasattr(value, "date") else value.isoformat()


def _signin(account: Account) -> dict:
    from replicas.worlds.scoping import current_world

    return {
        "email": account.email,
        "name": account.name,
        "password": account_password(seed=current_world().seed, public_id=account.public_id),
    }


def _customers():
    return Account.objects.filter(role=Account.Role.CUSTOMER).order_by("public_id")


def _staff() -> Account:
    return Account.objects.filter(role=Account.Role.STAFF).order_by("public_id").first()


def _default_address(account):
    address = account.addresses.filter(is_default=True).first()
    return address if address is not None and address.complete else None


def _plain_card(account):
    """The account's default card when checkout can charge it without a challenge: unexpired, no 3-D Secure."""
    card = account.cards.filter(is_default=True, removed=False).first()
    if card is None or selectors.card_is_expired(card) or card.requires_3ds:
        return None
    return card


def _ready_shopper(*, cart: bool, exclude=(), rng=None):
    """A customer who can check out with the defaults: a complete default address and a plain card,
    and a cart that is empty (cart=False) or holds only in-stock lines at the prices they went in
    at (cart=True: no price-change interstitial on the way)."""
    for account in candidates(_customers(), rng):
        if account.public_id in exclude or _default_address(account) is None or _plain_card(account) is None:
            continue
        lines = selectors.cart_lines(account)
        if bool(lines) != cart or any(ln.out_of_stock or ln.price_changed for ln in lines):
            continue
        return account
    raise NoCandidate("no customer ready to check out")


def _checkout_keys(account) -> dict:
    return {
        **_signin(account),
        "customer": account.public_id,
        "card": _plain_card(account).public_id,
        "card_last4": _plain_card(account).last4,
        "address": _default_address(account).public_id,
    }


def _shown(text: str) -> str:
    """A title as its accessible name reads it (runs of spaces collapsed): near-duplicate listings
    carry a doubled space."""
    return " ".join(text.split())


def _item_keys(item: OrderItem) -> dict:
    return {
        "order": item.order.public_id,
        "line": item.line,
        "item": _shown(item.variant.product.title),
        "item_title": _shown(item.title),
        "sku": item.variant.sku,
    }


# --- buying -------------------------------------------------------------------------------------------


def cheapest_rated_fast(world, rng=None) -> dict:
    """The cheapest product of a department rated 4+ with two-day delivery, when it is unique and in stock."""
    account = _ready_shopper(cart=False, rng=rng)
    for dept in candidates(Product.Department.values, rng):
        found = selectors.search(
            selectors.SearchQuery(department=dept, min_rating=4, fast=True, sort="price-asc")
        ).products
        if len(found) < 3:
            continue
        best, second = found[0], found[1]
        if best.price_now == second.price_now or not best.variants.filter(stock__gt=0).exists() or best.deal_price:
            continue
        cheaper_low_rated = selectors.search(
            selectors.SearchQuery(department=dept, fast=True, sort="price-asc")
        ).products[0]
        return {
            **_checkout_keys(account),
            "department": dept,
            "department_name": Product.Department(dept).label,
            "asin": best.asin,
            "title": best.title,
            "price": _money(best.price_now),
            "second_asin": second.asin,
            "low_rated_asin": cheaper_low_rated.asin if cheaper_low_rated.asin != best.asin else second.asin,
        }
    raise NoCandidate("no department with a unique cheapest 4-star two-day item")


def specific_variant(world, rng=None) -> dict:
    """A product with a colour and a size of its own price, in stock for two, among several variants."""
    account = _ready_shopper(cart=False, rng=rng)
    for product in candidates(Product.objects.filter(department="clothing").order_by("asin"), rng):
        variants = list(product.variants.order_by("sku"))
        wanted = [v for v in variants if v.stock >= 2 and v.size in ("L", "XL")]
        if len(variants) < 3 or not wanted or product.deal_price or product.title.endswith(" - New"):
            continue
        v = wanted[0]
        other = next((o for o in variants if o != v and o.stock >= 2), None)
        if other is None:
            continue
        return {
            **_checkout_keys(account),
            "asin": product.asin,
            "title": product.title,
            "sku": v.sku,
            "colour": v.colour,
            "size": v.size,
            "variant_label": v.label(),
            "other_sku": other.sku,
            "other_label": other.label(),
        }
    raise NoCandidate("no clothing product with several variants in stock")


def best_coupon(world, rng=None) -> dict:
    """A shopper whose cart one of three codes saves the most on; one of the codes has expired."""
    now = clock.now()
    codes = ["SAVE10", "TAKE15", "SPRING25"]
    coupons = {c.code: c for c in Coupon.objects.filter(code__in=codes)}
    if len(coupons) != 3 or coupons["SPRING25"].expires_at > now:
        raise NoCandidate("the seeded promotion codes are missing")
    skip = []
    while True:
        account = _ready_shopper(cart=True, exclude=skip, rng=rng)
        skip.append(account.public_id)
        lines = selectors.cart_lines(account)
        savings = {}
        for code in ("SAVE10", "TAKE15"):
            try:
                selectors.coupon_check(code, lines, [])
            except Exception:  # noqa: BLE001 - a code that does not apply simply saves nothing
                continue
            savings[code] = selectors.coupon_discount(coupons[code], lines)
        if len(savings) == 2 and savings["SAVE10"] != savings["TAKE15"]:
            best = max(savings, key=savings.get)
            worse = min(savings, key=savings.get)
            return {
                **_checkout_keys(account),
                "codes": ", ".join(codes),
                "best": best,
                "worse": worse,
                "saving": _money(savings[best]),
            }


def gift_card_split(world, rng=None) -> dict:
    """A shopper with a gift card balance below their cart's total: the rest goes on the card."""
    skip = []
    while True:
        account = _ready_shopper(cart=True, exclude=skip, rng=rng)
        skip.append(account.public_id)
        if account.gift_card_balance <= 0:
            continue
        lines = selectors.cart_lines(account)
        q = selectors.quote(
            account=account,
            lines=lines,
            state=_default_address(account).state,
            speed="standard",
            codes=[],
            use_gift=True,
        )
        if q.card_amount > 0:
            return {
                **_checkout_keys(account),
                "balance": _money(account.gift_card_balance),
                "card_amount": _money(q.card_amount),
                "total": _money(q.total),
            }


def new_card(world, rng=None) -> dict:
    """A shopper who pays with a card they add at checkout (the card's id is the account's next free slot)."""
    account = _ready_shopper(cart=True, rng=rng)
    slots = {c.public_id % 10 for c in account.cards.all()}
    return {**_checkout_keys(account), **NEW_CARD, "new_card": account.public_id * 10 + min(set(range(10)) - slots)}


def three_d_secure(world, rng=None) -> dict:
    """A shopper with a saved card that asks for 3-D Secure, and a cart ready to order."""
    for account in candidates(_customers(), rng):
        card = next(
            (
                c
                for c in account.cards.filter(removed=False, requires_3ds=True).order_by("public_id")
                if not selectors.card_is_expired(c)
            ),
            None,
        )
        if card is None or _default_address(account) is None:
            continue
        lines = selectors.cart_lines(account)
        if lines and not any(ln.out_of_stock or ln.price_changed for ln in lines):
            return {
                **_signin(account),
                "customer": account.public_id,
                "card": card.public_id,
                "card_last4": card.last4,
                "code": policies.THREE_DS_CODE,
            }
    raise NoCandidate("no shopper with a 3-D Secure card and a cart")


def new_address(world, rng=None) -> dict:
    account = _ready_shopper(cart=True, rng=rng)
    return {**_checkout_keys(account), **NEW_ADDRESS, "full_name": account.name}


def out_of_stock_in_cart(world, rng=None) -> dict:
    """A shopper whose cart holds an out-of-stock line next to lines in stock, one of them repriced."""
    for account in candidates(_customers(), rng):
        if _default_address(account) is None or _plain_card(account) is None:
            continue
        lines = selectors.cart_lines(account)
        gone = [ln for ln in lines if ln.variant.stock == 0]
        fine = [ln for ln in lines if not ln.out_of_stock]
        # one kept line's price moved since it went into the cart: the order passes the
        # price-change interstitial on the way (its reference accepts the new price)
        if len(gone) == 1 and fine and any(ln.price_changed for ln in fine):
            return {
                **_checkout_keys(account),
                "gone_sku": gone[0].variant.sku,
                "gone_title": _shown(gone[0].product.title),
                "kept_skus": [ln.variant.sku for ln in fine],
            }
    raise NoCandidate("no cart with one out-of-stock line among lines in stock")


def price_changed_in_cart(world, rng=None) -> dict:
    for account in candidates(_customers(), rng):
        changed = [ln for ln in selectors.cart_lines(account) if ln.price_changed]
        if len(changed) == 1 and changed[0].product.deal_ends_at is None:
            ln = changed[0]
            return {
                **_signin(account),
                "title": ln.product.title,
                "new_price": _money(ln.price),
                "old_price": _money(ln.item.price_when_added),
            }
    raise NoCandidate("no cart with exactly one line whose price changed")


# --- orders ------------------------------------------------------------------------------------------------


def _placed_orders():
    return Order.objects.filter(status=Order.Status.PLACED).order_by("public_id")


def change_address(world, rng=None) -> dict:
    for order in candidates(_placed_orders(), rng):
        # an address the order's speeds can reach (a remote zone has no One-Day Shipping)
        others = [
            a
            for a in order.account.addresses.order_by("public_id")
            if a.complete
            and a.line1 != order.ship_line1
            and all(policies.speed_served(i.speed, a.state) for i in order.items.filter(status=OrderItem.Status.ACTIVE))
        ]
        wrong = [a for a in order.account.addresses.order_by("public_id") if a.complete and a.line1 == order.ship_line1]
        if others and wrong:
            target = others[0]
            tax = policies.tax_for(order.subtotal - order.discount - order.loyalty_discount, target.state)
            dates = selectors.repromised_dates(order, target.state)
            # the order's date moves with its items' (by the zones' difference) only when one moves
            moved = any(i.delivery_date != dates[i.line] for i in order.items.filter(line__in=list(dates)))
            delivery = max(dates.values()) if moved else order.delivery_date
            return {
                **_signin(order.account),
                "order": order.public_id,
                "line1": target.line1,
                "city": target.city,
                "address": target.public_id,
                "zip": target.zip_code,
                "state": target.state,
                "tax": _money(tax),
                "total": _money(order.before_tax + tax),
                "current": wrong[0].public_id,
                "delivery": delivery.isoformat(),
            }
    raise NoCandidate("no unshipped order whose customer has another complete address")


def cancel_one_item(world, rng=None) -> dict:
    for order in candidates(_placed_orders(), rng):
        items = list(order.items.filter(status=OrderItem.Status.ACTIVE).order_by("line"))
        if len(items) >= 2:
            target = items[-1]
            # the reason the shopper gives (the fixed pick without an rng), and another one a wrong answer picks
            reasons = OrderItem.CancelReason.choices
            at = rng.randrange(len(reasons)) if rng else 3
            (reason, label), other_label = reasons[at], reasons[(at + 1) % len(reasons)][1]
            return {
                **_signin(order.account),
                **_item_keys(target),
                "others": [i.line for i in items if i != target],
                "other_line": items[0].line,
                "reason": reason,
                "reason_label": label,
                "other_reason_label": other_label,
            }
    raise NoCandidate("no unshipped order of two items or more")


def _delivered_items(**filters):
    return (
        OrderItem.objects.filter(status=OrderItem.Status.ACTIVE, order__status=Order.Status.DELIVERED, **filters)
        .select_related("order__account", "seller", "variant__product")
        .order_by("order__public_id", "line")
    )


def return_in_window(world, rng=None) -> dict:
    now = clock.now()
    for item in candidates(_delivered_items(), rng):
        deadline = selectors.return_deadline(item)
        if deadline > now + timedelta(days=1) and not item.returns.exists() and not selectors.return_blocker(item):
            return {**_signin(item.order.account), **_item_keys(item), "deadline": _date(deadline)}
    raise NoCandidate("no delivered item inside its return window")


def return_part_for_replacement(world, rng=None) -> dict:
    """A delivered line of two units or more inside its return window, whose variant is in stock
    for a replacement of all but one of them (the task returns that many: fewer than the line)."""
    now = clock.now()
    for item in candidates(_delivered_items(quantity__gte=2), rng):
        deadline = selectors.return_deadline(item)
        damaged = item.quantity - 1
        if deadline > now + EPISODE_SPAN and not selectors.return_blocker(item) and item.variant.stock >= damaged:
            return {**_signin(item.order.account), **_item_keys(item), "quantity": item.quantity, "damaged": damaged}
    raise NoCandidate("no delivered line of two units or more inside its return window, in stock")


def return_outside_window(world, rng=None) -> dict:
    now = clock.now()
    for item in candidates(_delivered_items(), rng):
        deadline = selectors.return_deadline(item)
        if deadline < now - timedelta(days=2) and not item.returns.exists():
            title = item.variant.product.title
            same = OrderItem.objects.filter(order=item.order, variant__product__title=title).count()
            if same == 1:
                return {
                    **_signin(item.order.account),
                    **_item_keys(item),
                    "deadline": _date(deadline),
                    "delivered": _date(item.delivered_at),
                    "window": item.seller.return_window_days,
                }
    raise NoCandidate("no delivered item past its return window")


def order_total(world, rng=None) -> dict:
    for order in candidates(
        Order.objects.filter(
            status=Order.Status.DELIVERED, tax__gt=0, discount=0, loyalty_discount=0, gift_wrap=0
        ).order_by("public_id"),
        rng,
    ):
        if order.shipping > 0:
            return {
                **_signin(order.account),
                "order": order.public_id,
                "total": _money(order.total),
                "subtotal": _money(order.subtotal),
                "total_display": policies.money(order.total),
            }
    raise NoCandidate("no delivered order with tax and shipping")


def delivery_date(world, rng=None) -> dict:
    for order in candidates(Order.objects.filter(status=Order.Status.SHIPPED).order_by("public_id"), rng):
        if order.delivery_date != order.placed_at.date():
            return {
                **_signin(order.account),
                "order": order.public_id,
                "date": order.delivery_date.isoformat(),
                "placed": order.placed_at.date().isoformat(),
            }
    raise NoCandidate("no shipped order")


def refund_amount(world, rng=None) -> dict:
    """A refunded return in an order of several items (so the order's total is a wrong answer)."""
    for refund in candidates(
        Refund.objects.filter(return_request__isnull=False)
        .select_related("item__order__account")
        .order_by("public_id"),
        rng,
    ):
        item, order = refund.item, refund.item.order
        if (
            order.total != refund.amount
            and order.items.filter(variant__product__title=item.variant.product.title).count() == 1
        ):
            return {
                **_signin(order.account),
                **_item_keys(item),
                "amount": _money(refund.amount),
                "order_total": _money(order.total),
            }
    raise NoCandidate("no refunded return")


def return_deadline(world, rng=None) -> dict:
    now = clock.now()
    for item in candidates(_delivered_items(), rng):
        deadline = selectors.return_deadline(item)
        if (
            deadline > now + timedelta(days=2)
            and item.order.items.count() >= 2
            and deadline.date() != item.delivered_at.date()
        ):
            return {
                **_signin(item.order.account),
                **_item_keys(item),
                "deadline": _date(deadline),
                "delivered": _date(item.delivered_at),
            }
    raise NoCandidate("no delivered item in a multi-item order inside its window")


def deal_price(world, rng=None) -> dict:
    now = clock.now()
    for product in candidates(Product.objects.filter(deal_ends_at__gt=now + EPISODE_SPAN).order_by("asin"), rng):
        if product.variants.count() == 1:
            return {
                "asin": product.asin,
                "title": product.title,
                "price": _money(product.deal_price),
                "regular": _money(selectors.base_price(product)),
            }
    raise NoCandidate("no running deal on a single-variant product")


# --- account ----------------------------------------------------------------------------------------------


def expired_card(world, rng=None) -> dict:
    for account in candidates(_customers(), rng):
        cards = list(account.cards.filter(removed=False).order_by("public_id"))
        expired = [c for c in cards if selectors.card_is_expired(c)]
        if len(expired) == 1 and len(cards) >= 2:
            keep = [c for c in cards if c not in expired]
            return {
                **_signin(account),
                "card": expired[0].public_id,
                "last4": expired[0].last4,
                "keep": [c.public_id for c in keep],
                "other": keep[0].public_id,
            }
    raise NoCandidate("no account with exactly one expired card among others")


def duplicate_card(world, rng=None) -> dict:
    for account in candidates(_customers(), rng):
        cards = list(account.cards.filter(removed=False).order_by("public_id"))
        for i, a in enumerate(cards):
            twins = [
                b for b in cards[i + 1 :] if (b.last4, b.exp_month, b.exp_year) == (a.last4, a.exp_month, a.exp_year)
            ]
            if twins and a.is_default:
                return {
                    **_signin(account),
                    "last4": a.last4,
                    "keep": a.public_id,
                    "duplicate": twins[0].public_id,
                    "exp": f"{a.exp_month:02d}/{a.exp_year}",
                }
    raise NoCandidate("no default card saved twice")


# --- back office ----------------------------------------------------------------------------------------------


def _pending_returns():
    return (
        ReturnRequest.objects.filter(status=ReturnRequest.Status.REQUESTED)
        .select_related("item__seller", "item__order")
        .order_by("public_id")
    )


def approve_return(world, rng=None) -> dict:
    for ret in candidates(_pending_returns(), rng):
        if ret.requested_at <= selectors.return_deadline(ret.item):
            return {
                **_signin(_staff()),
                "rma": ret.public_id,
                "order": ret.item.order.public_id,
                "line": ret.item.line,
                "amount": _money(selectors.refund_for_return(ret)),
            }
    raise NoCandidate("no pending return inside its window")


def reject_late_return(world, rng=None) -> dict:
    for ret in candidates(_pending_returns(), rng):
        if ret.requested_at > selectors.return_deadline(ret.item):
            return {**_signin(_staff()), "rma": ret.public_id, "order": ret.item.order.public_id}
    raise NoCandidate("no pending return requested after its window")


def refund_damaged(world, rng=None) -> dict:
    for item in candidates(_delivered_items(quantity__gte=2), rng):
        if not item.refunds.exists() and not item.returns.exists():
            return {
                **_signin(_staff()),
                **_item_keys(item),
                "amount": _money(item.amount),
                "unit": _money(item.unit_price),
                "customer": item.order.account.name,
                "quantity": item.quantity,
            }
    raise NoCandidate("no delivered item of quantity two or more without refunds")


def buy_now_beside_cart(world, rng=None) -> dict:
    """A shopper with a cart who buys one in-stock product (not in the cart, no deal that could end
    mid-episode) with Buy Now: the cart must stay as it was."""
    account = _ready_shopper(cart=True, rng=rng)
    held = {ln.product.asin for ln in selectors.cart_lines(account, saved=False)}
    held |= {ln.product.asin for ln in selectors.cart_lines(account, saved=True)}
    for product in candidates(Product.objects.filter(deal_price__isnull=True).order_by("asin"), rng):
        variants = [v for v in product.variants.order_by("sku") if v.stock >= 1]
        # one variant only: the product page opens on it, so "the" product names one SKU
        if product.asin in held or len(variants) != 1 or product.variants.count() != 1:
            continue
        return {
            **_checkout_keys(account),
            "asin": product.asin,
            "title": _shown(product.title),
            "sku": variants[0].sku,
        }
    raise NoCandidate("no single-variant product in stock outside the shopper's cart")


def visitor_cart_merge(world, rng=None) -> dict:
    """A shopper with a cart, and an in-stock single-variant product not in it, which they add to
    the cart as a visitor before signing in."""
    params = buy_now_beside_cart(world, rng)
    return {key: params[key] for key in ("email", "name", "password", "customer", "asin", "title", "sku")}


def ready_cart(world, rng=None) -> dict:
    """A shopper whose cart can be ordered with the defaults (a complete address, a plain card)."""
    return _checkout_keys(_ready_shopper(cart=True, rng=rng))


def sells_out_at_checkout(world, rng=None) -> dict:
    """A shopper with two lines or more in the cart; the fault sells the last line out during checkout."""
    skip = []
    while True:
        account = _ready_shopper(cart=True, exclude=skip, rng=rng)
        skip.append(account.public_id)
        lines = selectors.cart_lines(account)
        if len(lines) >= 2:
            gone = lines[-1]
            return {**_checkout_keys(account), "sold_sku": gone.variant.sku, "sold_title": _shown(gone.product.title)}


# --- gift options, questions, delivery speeds, rewards, tracking, currencies, conflicts -----------------


def gift_order(world, rng=None) -> dict:
    """A shopper who orders their cart with one line sent as a wrapped gift with a message."""
    account = _ready_shopper(cart=True, rng=rng)
    lines = selectors.cart_lines(account)
    gift = lines[0]
    return {
        **_checkout_keys(account),
        "sku": gift.variant.sku,
        "title": _shown(gift.product.title),
        "message": f"Happy birthday! Love, {account.first_name}",
        "others": [ln.variant.sku for ln in lines[1:]],
    }


def _warranty(question) -> int | None:
    answer = question.answers.filter(by_seller=True).order_by("public_id").first()
    found = re.search(r"(\d+)-month", answer.text) if answer is not None else None
    return int(found.group(1)) if found else None


def warranty_from_qa(world, rng=None) -> dict:
    """A product whose Q&A answers the warranty question among other questions, and another product
    with a different warranty (a wrong answer an agent reading the wrong page would give)."""
    asked = list(
        Question.objects.filter(text__startswith="How long is the warranty")
        .select_related("product")
        .order_by("product__asin")
    )
    for q in candidates(asked, rng):
        months = _warranty(q)
        if months is None or q.product.questions.count() < 2 or q.product.title.endswith(" - New"):
            continue
        other = next((o for o in asked if o.product_id != q.product_id and _warranty(o) not in (None, months)), None)
        if other is not None:
            return {
                "asin": q.product.asin,
                "title": _shown(q.product.title),
                "brand": q.product.brand,
                "months": months,
                "wrong": _warranty(other),
            }
    raise NoCandidate("no product whose Q&A gives its warranty next to other questions")


def ask_question(world, rng=None) -> dict:
    """A product without a question about shipping abroad, and a shopper to ask it."""
    account = _customers().first()
    for product in candidates(Product.objects.order_by("asin"), rng):
        if not product.questions.filter(text__icontains="Canada").exists() and not product.title.endswith(" - New"):
            return {
                **_signin(account),
                "customer": account.public_id,
                "asin": product.asin,
                "title": _shown(product.title),
            }
    raise NoCandidate("no product to ask about")


def split_shipment(world, rng=None) -> dict:
    """A shopper without membership whose cart holds a two-day-eligible item that standard shipping
    brings too late, next to items that may come standard: the cheapest way ships it separately."""
    today = clock.now().date()
    skip = []
    while True:
        account = _ready_shopper(cart=True, exclude=skip, rng=rng)
        skip.append(account.public_id)
        if account.member:
            continue
        lines = selectors.cart_lines(account)
        if len(lines) < 2:
            continue
        state = _default_address(account).state  # the delivery zone of the address checkout ships to
        for ln in lines:
            standard = policies.delivery_date(
                speed="standard", standard_days=ln.product.standard_days, today=today, state=state
            )
            fast = policies.delivery_date(
                speed="fast", standard_days=ln.product.standard_days, today=today, state=state
            )
            if ln.product.fast_eligible and fast < standard:
                q = selectors.quote(
                    account=account,
                    lines=lines,
                    state=_default_address(account).state,
                    speed="standard",
                    codes=[],
                    use_gift=False,
                    speeds={ln.variant.sku: "fast"},
                )
                rest = [o.variant.sku for o in lines if o is not ln]
                return {
                    **_checkout_keys(account),
                    "sku": ln.variant.sku,
                    "title": _shown(ln.product.title),
                    "by": fast.isoformat(),
                    "by_text": f"{fast:%A}, {fast:%B} {fast.day}",
                    "rest": rest,
                    "shipping": _money(q.shipping),
                    "shipments": len(q.shipments),
                }


def loyalty_discount(world, rng=None) -> dict:
    """A Silver or Gold shopper's tier discount on their cart at checkout (standard, default address)."""
    skip = []
    while True:
        account = _ready_shopper(cart=True, exclude=skip, rng=rng)
        skip.append(account.public_id)
        tier = policies.loyalty_tier(account.loyalty_points)
        if not tier.discount_pct:
            continue
        lines = selectors.cart_lines(account)
        q = selectors.quote(
            account=account,
            lines=lines,
            state=_default_address(account).state,
            speed="standard",
            codes=[],
            use_gift=False,
        )
        other = next(t for t in policies.TIERS if t.discount_pct and t != tier)
        return {
            **_signin(account),
            "customer": account.public_id,
            "tier": tier.name,
            "pct": tier.discount_pct,
            "discount": _money(q.loyalty_discount),
            "total": _money(q.total),
            "wrong": _money(policies.loyalty_discount(q.subtotal, other.discount_pct)),
        }


def shipped_date(world, rng=None) -> dict:
    """A shipped order whose package left the warehouse on another day than it was ordered or arrives."""
    for order in candidates(Order.objects.filter(status=Order.Status.SHIPPED).order_by("public_id"), rng):
        shipment = selectors.order_shipments(order)[0]
        left = next((e for e in selectors.tracking(order, shipment) if e.status.startswith("Shipped")), None)
        if left is None:
            continue
        day = left.at.date()
        if day not in (order.placed_at.date(), shipment["delivery"]) and len(selectors.order_shipments(order)) == 1:
            return {
                **_signin(order.account),
                "order": order.public_id,
                "date": day.isoformat(),
                "placed": order.placed_at.date().isoformat(),
                "arrives": shipment["delivery"].isoformat(),
            }
    raise NoCandidate("no shipped order that left on a day of its own")


def total_in_currency(world, rng=None) -> dict:
    """A shopper who sees prices in another currency, and the total of one of their delivered orders."""
    for account in candidates(_customers().exclude(currency="USD"), rng):
        order = account.orders.filter(status=Order.Status.DELIVERED).order_by("public_id").first()
        if order is None or order.refunds.exists():
            continue
        c = policies.CURRENCIES[account.currency]
        return {
            **_signin(account),
            "order": order.public_id,
            "currency": account.currency,
            "symbol": c.symbol.strip(),
            "amount": str(policies.convert(order.total, account.currency)),
            "usd": _money(order.total),
        }
    raise NoCandidate("no shopper with another currency and a delivered order")


def price_rise(world, rng=None) -> dict:
    """A shopper with two lines or more in the cart; the fault raises the last line's price above
    the limit the instruction sets (the price it went in at plus a dollar)."""
    skip = []
    while True:
        account = _ready_shopper(cart=True, exclude=skip, rng=rng)
        skip.append(account.public_id)
        lines = selectors.cart_lines(account)
        # a running deal prices from the cheapest variant, so raising that one would not show; a
        # seasonal sale takes its percentage off the raised price too
        if (
            len(lines) >= 2
            and not selectors.deal_active(lines[-1].product)
            and lines[-1].product.department not in selectors.seasonal_sales()
        ):
            risen = lines[-1]
            return {
                **_checkout_keys(account),
                "sku": risen.variant.sku,
                "title": _shown(risen.product.title),
                "limit": _money(risen.price + 1),
                "new_price": _money(risen.price + PRICE_RISE),
            }


def conflicting_return(world, rng=None) -> dict:
    """The pending return inside its window that data_conflict records twice; the number its
    rejected twin gets; the refund that settles it by policy."""
    for ret in candidates(_pending_returns(), rng):
        if ret.requested_at <= selectors.return_deadline(ret.item):
            top = max(int(p[len("RMA-") :]) for p in ReturnRequest.objects.values_list("public_id", flat=True))
            return {
                **_signin(_staff()),
                "rma": ret.public_id,
                "twin": f"RMA-{max(top + 1, 1001)}",
                "order": ret.item.order.public_id,
                "line": ret.item.line,
                "amount": _money(selectors.refund_for_return(ret)),
            }
    raise NoCandidate("no pending return inside its window")
