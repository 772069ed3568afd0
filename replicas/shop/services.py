"""Writes of the shop, as keyword-only `<entity>_<action>` functions. Each validates its input
and raises ValidationError (changing nothing) when the storefront would refuse."""

import re
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from replicas.worlds import clock

from . import policies, selectors
from .models import (
    Account,
    Address,
    BuyNowItem,
    Card,
    CartItem,
    ListItem,
    Order,
    OrderItem,
    Product,
    Question,
    Refund,
    Replacement,
    ReturnRequest,
    Review,
    Variant,
    VisitorCartItem,
)

MAX_QUANTITY = 10
ZIP_RE = re.compile(r"\d{5}(-\d{4})?")


def next_number(model, field: str, prefix: str, start: int) -> str:
    top = 0
    for value in model.objects.filter(**{f"{field}__startswith": prefix}).values_list(field, flat=True):
        top = max(top, int(value[len(prefix) :]))
    return f"{prefix}{max(top + 1, start)}"


# --- cart -------------------------------------------------------------------------------------------


def _addable(variant: Variant, quantity: int):
    """Add to Cart's rules, the same for an account's cart and a visitor's."""
    if not 1 <= quantity <= MAX_QUANTITY:
        raise ValidationError(f"Quantity must be between 1 and {MAX_QUANTITY}.")
    if variant.stock < 1:
        raise ValidationError("This option is currently unavailable.")


def cart_add(*, account: Account, variant: Variant, quantity: int) -> CartItem:
    _addable(variant, quantity)
    price = selectors.variant_price(variant)
    item = CartItem.objects.filter(account=account, variant=variant).first()
    if item is None:
        return CartItem.objects.create(
            account=account,
            variant=variant,
            quantity=min(quantity, variant.stock),
            price_when_added=price,
            added_at=clock.now(),
        )
    item.quantity = min(MAX_QUANTITY, item.quantity + quantity, variant.stock)
    item.saved_for_later = False
    item.price_when_added = price
    item.save(update_fields=["quantity", "saved_for_later", "price_when_added"])
    return item


def visitor_cart_add(*, visitor: str, variant: Variant, quantity: int) -> VisitorCartItem:
    """Add to a signed-out shopper's cart (kept in the world under their session's token)."""
    _addable(variant, quantity)
    item = VisitorCartItem.objects.filter(visitor=visitor, variant=variant).first()
    if item is None:
        item = VisitorCartItem(visitor=visitor, variant=variant, quantity=0, added_at=clock.now())
    item.quantity = min(MAX_QUANTITY, item.quantity + quantity, variant.stock)
    item.price_when_added = selectors.variant_price(variant)
    item.save()
    return item


@transaction.atomic
def visitor_cart_merge(*, visitor: str, account: Account) -> int:
    """At sign-in, the visitor's lines join the account's cart (a line already there adds up, to the
    most one may order) and the visitor's cart is emptied; returns how many lines moved. The price
    each line was added at stays, so a price that moved since shows as a change in the cart."""
    moved = list(VisitorCartItem.objects.filter(visitor=visitor).select_related("variant"))
    for line in moved:
        item = CartItem.objects.filter(account=account, variant=line.variant).first()
        if item is None:
            CartItem.objects.create(
                account=account,
                variant=line.variant,
                quantity=line.quantity,
                price_when_added=line.price_when_added,
                added_at=line.added_at,
            )
        else:
            item.quantity = min(MAX_QUANTITY, item.quantity + line.quantity)
            item.saved_for_later = False
            item.save(update_fields=["quantity", "saved_for_later"])
        line.delete()
    return len(moved)


def cart_update(*, item: CartItem | VisitorCartItem, quantity: int) -> CartItem | VisitorCartItem | None:
    """Set a line's quantity (an account's or a visitor's); 0 deletes the line."""
    if not 0 <= quantity <= MAX_QUANTITY:
        raise ValidationError(f"Quantity must be between 0 and {MAX_QUANTITY}.")
    if quantity == 0:
        item.delete()
        return None
    item.quantity = quantity
    # seeing the current price in the cart acknowledges it
    item.price_when_added = selectors.variant_price(item.variant)
    item.save(update_fields=["quantity", "price_when_added"])
    return item


def cart_save_for_later(*, item: CartItem, saved: bool) -> CartItem:
    item.saved_for_later = saved
    item.save(update_fields=["saved_for_later"])
    return item


@transaction.atomic
def cart_add_bundle(*, account: Account, variants: list[Variant]) -> list[CartItem]:
    """ "Add all to Cart" of frequently bought together: one of each; nothing is added when one is unavailable."""
    if not variants:
        raise ValidationError("Choose the items to add.")
    gone = [v.product.title for v in variants if v.stock < 1]
    if gone:
        raise ValidationError(f"Currently unavailable: {', '.join(gone)}.")
    return [cart_add(account=account, variant=v, quantity=1) for v in variants]


def cart_gift(*, item: CartItem, gift: bool, wrap: bool, message: str) -> CartItem:
    """Mark a line as a gift, with gift wrap (a fee per unit) and a message on the packing slip."""
    message = " ".join((message or "").split())
    if not gift and (wrap or message):
        raise ValidationError('Tick "This is a gift" to add gift wrap or a message.')
    if len(message) > policies.GIFT_MESSAGE_MAX:
        raise ValidationError(f"The gift message can be at most {policies.GIFT_MESSAGE_MAX} characters.")
    item.gift, item.gift_wrap, item.gift_message = gift, gift and wrap, message if gift else ""
    item.save(update_fields=["gift", "gift_wrap", "gift_message"])
    return item


def cart_accept_prices(*, account: Account) -> int:
    """The shopper accepts the current prices of the lines whose price changed; returns how many."""
    changed = selectors.price_changes(selectors.checkout_lines(account))
    for ln in changed:
        ln.item.price_when_added = ln.price
        ln.item.save(update_fields=["price_when_added"])
    return len(changed)


def buy_now(*, account: Account, variant: Variant, quantity: int) -> BuyNowItem:
    """Buy Now: this item alone goes to checkout (replacing an earlier Buy Now); the cart is untouched."""
    _addable(variant, quantity)
    if quantity > variant.stock:
        raise ValidationError(f"Only {variant.stock} left in stock.")
    BuyNowItem.objects.filter(account=account).delete()
    return BuyNowItem.objects.create(
        account=account,
        variant=variant,
        quantity=quantity,
        price_when_added=selectors.variant_price(variant),
        added_at=clock.now(),
    )


def buy_now_drop(*, account: Account) -> None:
    """Checkout from the cart: an unfinished Buy Now is forgotten."""
    BuyNowItem.objects.filter(account=account).delete()


def list_add(*, account: Account, variant: Variant) -> ListItem:
    """Add to List (a product already there in this colour and size stays once)."""
    item, _ = ListItem.objects.get_or_create(account=account, variant=variant, defaults={"added_at": clock.now()})
    return item


def list_remove(*, account: Account, variant: Variant) -> None:
    ListItem.objects.filter(account=account, variant=variant).delete()


# --- product page -----------------------------------------------------------------------------------


def question_ask(*, account: Account, product: Product, text: str) -> Question:
    text = " ".join((text or "").split())
    if len(text) < 10:
        raise ValidationError("Please write a question of at least 10 characters.")
    if len(text) > 300:
        raise ValidationError("Questions can be at most 300 characters.")
    if not text.endswith("?"):
        text += "?"
    top = Question.objects.order_by("-public_id").values_list("public_id", flat=True).first() or 0
    return Question.objects.create(
        public_id=top + 1, product=product, author=account.name, text=text, asked_at=clock.now()
    )


REVIEW_BODY_MIN, REVIEW_BODY_MAX, REVIEW_TITLE_MAX = 20, 5000, 120


def review_write(*, account: Account, product: Product, rating: int, title: str, body: str) -> Review:
    """A buyer's review from Your Orders: only of a product delivered to them, once per product, counted
    in the product's ratings and its average (to one decimal, as the page shows it)."""
    title, body = " ".join((title or "").split()), (body or "").strip()
    if not OrderItem.objects.filter(
        order__account=account, variant__product=product, delivered_at__isnull=False
    ).exists():
        raise ValidationError("You can review a product once it has been delivered to you.")
    if product.reviews.filter(author=account.name).exists():
        raise ValidationError("You have already reviewed this product.")
    errors = {}
    if rating not in range(1, 6):
        errors["rating"] = "Please choose an overall rating from 1 to 5 stars."
    if not title:
        errors["title"] = "Please add a headline."
    elif len(title) > REVIEW_TITLE_MAX:
        errors["title"] = f"Headlines can be at most {REVIEW_TITLE_MAX} characters."
    if not REVIEW_BODY_MIN <= len(body) <= REVIEW_BODY_MAX:
        errors["body"] = f"Please write between {REVIEW_BODY_MIN} and {REVIEW_BODY_MAX} characters."
    if errors:
        raise ValidationError(errors)
    top = Review.objects.order_by("-public_id").values_list("public_id", flat=True).first() or 0
    review = Review.objects.create(
        public_id=top + 1,
        product=product,
        author=account.name,
        rating=rating,
        title=title,
        body=body,
        verified=True,
        created_at=clock.now(),
    )
    count = product.review_count + 1
    product.rating = ((product.rating * product.review_count + rating) / count).quantize(Decimal("0.1"))
    product.review_count = count
    product.save(update_fields=["rating", "review_count"])
    return review


# --- account ----------------------------------------------------------------------------------------


def address_add(
    *, account: Account, full_name: str, line1: str, line2: str, city: str, state: str, zip_code: str, phone: str
) -> Address:
    errors = {}
    full_name, line1, line2, city = full_name.strip(), line1.strip(), line2.strip(), city.strip()
    state, zip_code, phone = state.strip().upper(), zip_code.strip(), phone.strip()
    for name, value in (("full_name", full_name), ("line1", line1), ("city", city)):
        if not value:
            errors[name] = "Please enter this field."
        elif len(value) > 120:
            errors[name] = "Too long."
    if state not in policies.STATES:
        errors["state"] = "Please select a state."
    if not ZIP_RE.fullmatch(zip_code):
        errors["zip_code"] = "Please enter a 5-digit ZIP code."
    if phone and not re.fullmatch(r"[\d\s()+.-]{7,20}", phone):
        errors["phone"] = "Please enter a valid phone number."
    if errors:
        raise ValidationError(errors)
    return Address.objects.create(
        public_id=account.public_id * 10 + _next_slot(account.addresses.all()),
        account=account,
        full_name=full_name,
        line1=line1,
        line2=line2[:120],
        city=city,
        state=state,
        zip_code=zip_code,
        phone=phone,
        is_default=not account.addresses.exists(),
    )


def address_set_default(*, address: Address) -> Address:
    """The address "Deliver to" and checkout start from; only a complete one can ship."""
    if address.is_default:
        raise ValidationError("This is already your default address.")
    if not address.complete:
        raise ValidationError("This address is missing its state or ZIP code; add it again as a new address first.")
    with transaction.atomic():
        address.account.addresses.filter(is_default=True).update(is_default=False)
        address.is_default = True
        address.save(update_fields=["is_default"])
    return address


@transaction.atomic
def address_remove(*, address: Address) -> None:
    """Orders keep their own copy of the address; removing the default passes it to the first
    complete address left, so "Deliver to" still has one."""
    account, was_default = address.account, address.is_default
    address.delete()
    if was_default:
        heir = next((a for a in account.addresses.order_by("public_id") if a.complete), None)
        if heir is not None:
            heir.is_default = True
            heir.save(update_fields=["is_default"])


def _whole(value) -> bool:
    """A short run of ASCII digits: "²" and other Unicode digits pass isdigit() but int() refuses them."""
    text = str(value)
    return text.isascii() and text.isdigit() and len(text) < 12


def _next_slot(rows) -> int:
    slots = [r.public_id % 10 for r in rows]
    free = [n for n in range(10) if n not in slots]
    if not free:
        raise ValidationError("You have reached the maximum number of saved entries; remove one first.")
    return free[0]


def card_add(*, account: Account, number: str, exp_month: str, exp_year: str, holder: str) -> Card:
    errors = {}
    digits = re.sub(r"[\s-]", "", number or "")
    # isascii: "²" and other Unicode digits pass isdigit() but not int()
    if not (digits.isascii() and digits.isdigit()) or not 13 <= len(digits) <= 19 or not policies.luhn_ok(digits):
        errors["number"] = "The card number is not valid."
    elif not policies.card_brand(digits):
        errors["number"] = "We accept Visa, Mastercard, Amex and Discover."
    elif digits in policies.DECLINED_NUMBERS:
        # the issuer refuses the verification charge made when a card is added
        errors["number"] = "Your card was declined by the issuing bank. Please use another card."
    month = int(exp_month) if _whole(exp_month) else 0
    year = int(exp_year) if _whole(exp_year) else 0
    if not 1 <= month <= 12 or not 2000 <= year <= 2100:
        errors["expiry"] = "Please enter the expiration date."
    elif policies.card_expired(exp_month=month, exp_year=year, today=clock.now().date()):
        errors["expiry"] = "This card has expired."
    holder = (holder or "").strip()
    if not holder or len(holder) > 120:
        errors["holder"] = "Please enter the name on the card."
    if errors:
        raise ValidationError(errors)
    return Card.objects.create(
        public_id=account.public_id * 10 + _next_slot(account.cards.all()),
        account=account,
        brand=policies.card_brand(digits),
        last4=digits[-4:],
        exp_month=month,
        exp_year=year,
        holder=holder,
        requires_3ds=digits in policies.THREE_DS_NUMBERS,
        is_default=not account.cards.filter(removed=False).exists(),
    )


def membership_set(*, account: Account, member: bool) -> Account:
    if account.member == member:
        raise ValidationError(
            "You are already a Bazaaro Plus member." if member else "You are not a Bazaaro Plus member."
        )
    account.member = member
    account.save(update_fields=["member"])
    return account


def currency_set(*, account: Account, currency: str) -> Account:
    if currency not in policies.CURRENCIES:
        raise ValidationError("Please choose one of the listed currencies.")
    account.currency = currency
    account.save(update_fields=["currency"])
    return account


def card_remove(*, card: Card) -> Card:
    card.removed = True
    card.is_default = False
    card.save(update_fields=["removed", "is_default"])
    return card


# --- checkout -----------------------------------------------------------------------------------------


@transaction.atomic
def order_place(
    *,
    account: Account,
    address: Address,
    speed: str,
    card: Card | None,
    codes: list[str],
    use_gift: bool,
    speeds: dict | None = None,
) -> Order:
    """Turn the cart (or the Buy Now item) into an order: checks address, stock, prices, speeds,
    promotions and payment, charges the gift card balance first, empties the lines it ordered. `speeds` (SKU -> speed)
    sends single items at another speed than `speed`: they ship separately."""
    lines = selectors.checkout_lines(account)
    if not lines:
        raise ValidationError("Your cart is empty.")
    if address.account_id != account.id or not address.complete:
        raise ValidationError("Please choose a complete shipping address.")
    chosen = selectors.line_speeds(lines, speed, speeds)
    if speed not in policies.SPEEDS or any(chosen[ln.item.id] not in policies.SPEEDS for ln in lines):
        raise ValidationError("Please choose a delivery option.")
    for code in sorted(set(chosen.values())):
        if not policies.speed_served(code, address.state):
            raise ValidationError(
                f"{policies.speed_label(code)} is not available to {address.state} "
                f"({policies.zone_for(address.state).name} delivery zone). Please choose another delivery option."
            )
    if any(not selectors.speed_allowed(chosen[ln.item.id], [ln], address.state) for ln in lines):
        raise ValidationError("Please choose a delivery option.")
    for line in lines:
        if line.out_of_stock:
            raise ValidationError(f"{line.product.title} is out of stock in the quantity you asked for.")
    if selectors.price_changes(lines):
        raise ValidationError("The price of an item in your cart has changed. Please review the new prices.")
    applied = []
    for code in codes:
        selectors.coupon_check(code, lines, applied)
        applied.append(code)
    q = selectors.quote(
        account=account, lines=lines, state=address.state, speed=speed, codes=applied, use_gift=use_gift, speeds=speeds
    )
    if q.card_amount > 0:
        if card is None or card.account_id != account.id or card.removed:
            raise ValidationError("Please choose a payment method.")
        if selectors.card_is_expired(card):
            raise ValidationError(f"Your {card.label()} has expired. Please choose another payment method.")
    else:
        card = None
    now = clock.now()
    order = Order.objects.create(
        public_id=next_number(Order, "public_id", "ORD-", 4001),
        account=account,
        status=Order.Status.PLACED,
        placed_at=now,
        ship_name=address.full_name,
        ship_line1=address.line1,
        ship_line2=address.line2,
        ship_city=address.city,
        ship_state=address.state,
        ship_zip=address.zip_code,
        speed=speed if len(set(chosen.values())) == 1 else "mixed",
        delivery_date=q.delivery,
        subtotal=q.subtotal,
        shipping=q.shipping,
        gift_wrap=q.gift_wrap,
        discount=q.discount,
        loyalty_pct=q.loyalty_pct,
        loyalty_discount=q.loyalty_discount,
        tax=q.tax,
        total=q.total,
        gift_card_amount=q.gift_card,
        card=card,
        promo_codes=applied,
    )
    shipment_of = {ln.item.id: s for s in q.shipments for ln in s.lines}
    for n, line in enumerate(lines, start=1):
        sent = shipment_of[line.item.id]
        OrderItem.objects.create(
            order=order,
            line=n,
            variant=line.variant,
            title=_item_title(line.variant),
            seller=line.product.seller,
            quantity=line.quantity,
            unit_price=line.price,
            speed=sent.speed,
            shipment=sent.number,
            delivery_date=sent.delivery,
            gift=line.item.gift,
            gift_wrap=line.item.gift_wrap,
            gift_message=line.item.gift_message,
        )
        line.variant.stock -= line.quantity
        line.variant.save(update_fields=["stock"])
        line.item.delete()
    if q.gift_card:
        account.gift_card_balance -= q.gift_card
        account.save(update_fields=["gift_card_balance"])
    return order


def _item_title(variant: Variant) -> str:
    label = variant.label()
    return f"{variant.product.title} ({label})" if label else variant.product.title


# --- after the order ----------------------------------------------------------------------------------


RECOMPUTED = [
    "subtotal",
    "gift_wrap",
    "discount",
    "loyalty_discount",
    "tax",
    "total",
    "status",
    "shipping",
    "gift_card_amount",
]


def _recompute(order: Order):
    """Totals after items were cancelled or the destination changed: promotion codes re-evaluated by
    their rules on the items left (a percentage of what is left, none under a minimum spend), the
    tier's discount as placed."""
    active = list(order.items.filter(status=OrderItem.Status.ACTIVE))
    order.subtotal = sum((i.amount for i in active), Decimal(0))
    order.gift_wrap = sum((policies.GIFT_WRAP_FEE * i.quantity for i in active if i.gift_wrap), Decimal("0.00"))
    if order.promo_codes:
        promotions = sum((p.amount for p in selectors.order_promotions(order)), Decimal(0))
        order.discount = min(order.discount, promotions, order.subtotal)
    else:
        order.discount = min(order.discount, order.subtotal)
    order.loyalty_discount = policies.loyalty_discount(order.subtotal - order.discount, order.loyalty_pct)
    order.tax = policies.tax_for(order.subtotal - order.discount - order.loyalty_discount, order.ship_state)
    if not active:
        order.status = Order.Status.CANCELLED
        order.shipping = Decimal("0.00")
    order.total = order.before_tax + order.tax
    order.gift_card_amount = min(order.gift_card_amount, order.total)


@transaction.atomic
def order_cancel_items(*, order: Order, lines: list[int], reason: str) -> Order:
    """Cancel items before the order ships, for one of the store's fixed reasons (kept on each item):
    nothing was charged for them, the totals shrink, stock returns."""
    if order.status != Order.Status.PLACED:
        raise ValidationError("This order has already shipped and can no longer be cancelled; return it instead.")
    items = {i.line: i for i in order.items.filter(status=OrderItem.Status.ACTIVE)}
    if not lines or any(n not in items for n in lines):
        raise ValidationError("Please select the items to cancel.")
    if reason not in OrderItem.CancelReason.values:
        raise ValidationError("Please choose a reason for cancelling.")
    for n in lines:
        item = items[n]
        item.status = OrderItem.Status.CANCELLED
        item.cancel_reason = reason
        item.save(update_fields=["status", "cancel_reason"])
        item.variant.stock += item.quantity
        item.variant.save(update_fields=["stock"])
    _recompute(order)
    order.save(update_fields=RECOMPUTED)
    return order


def order_change_address(*, order: Order, address: Address) -> Order:
    if order.status != Order.Status.PLACED:
        raise ValidationError("The shipping address can no longer be changed: the order has shipped.")
    if address.account_id != order.account_id or not address.complete:
        raise ValidationError("Please choose a complete address from your address book.")
    dates = selectors.repromised_dates(order, address.state)  # the new delivery zone's dates (or why not)
    order.ship_name, order.ship_line1, order.ship_line2 = address.full_name, address.line1, address.line2
    order.ship_city, order.ship_state, order.ship_zip = address.city, address.state, address.zip_code
    _recompute(order)  # tax follows the destination
    fields = ["ship_name", "ship_line1", "ship_line2", "ship_city", "ship_state", "ship_zip", *RECOMPUTED]
    moved = [i for i in order.items.filter(line__in=list(dates)) if i.delivery_date != dates[i.line]]
    for item in moved:
        item.delivery_date = dates[item.line]
        item.save(update_fields=["delivery_date"])
    if moved:  # the last shipment's date, in the new zone
        order.delivery_date = max(dates.values())
        fields.append("delivery_date")
    order.save(update_fields=fields)
    return order


def return_request(
    *,
    item: OrderItem,
    reason: str,
    comment: str,
    refund_method: str = Refund.Method.CARD,
    resolution: str = ReturnRequest.Resolution.REFUND,
    quantity: int | None = None,
    drop_off: str = ReturnRequest.DropOff.COUNTER,
) -> ReturnRequest:
    """Start a return of `quantity` units of `item` (None: all of them), for a refund or a
    replacement, dropped off at `drop_off`. A replacement is for an item that arrived damaged,
    defective or wrong, while the store has the units to send."""
    if reason not in ReturnRequest.Reason.values:
        raise ValidationError("Please choose a reason for the return.")
    if refund_method not in Refund.Method.values:
        raise ValidationError("Please choose where the refund should go.")
    if resolution not in ReturnRequest.Resolution.values:
        raise ValidationError("Please choose a refund or a replacement.")
    if drop_off not in ReturnRequest.DropOff.values:
        raise ValidationError("Please choose how you will send the item back.")
    if quantity is not None and not 1 <= quantity <= item.quantity:
        raise ValidationError(f"You can return from 1 to {item.quantity} of this item.")
    blocker = selectors.return_blocker(item)
    if blocker:
        raise ValidationError(blocker)
    if resolution == ReturnRequest.Resolution.REPLACEMENT:
        why_not = selectors.replacement_blocker(item, reason, quantity or item.quantity)
        if why_not:
            raise ValidationError(why_not)
    return ReturnRequest.objects.create(
        public_id=next_number(ReturnRequest, "public_id", "RMA-", 1001),
        item=item,
        reason=reason,
        comment=comment.strip()[:500],
        refund_method=refund_method,
        resolution=resolution,
        quantity=None if quantity in (None, item.quantity) else quantity,
        drop_off=drop_off,
        requested_at=clock.now(),
    )


# --- back office ---------------------------------------------------------------------------------------


@transaction.atomic
def return_decide(*, ret: ReturnRequest, approve: bool) -> ReturnRequest:
    """Approve (refund per the seller's policy, where the customer asked: the original payment
    method or the gift card balance) or reject a return that is requested, or approved and not
    refunded yet."""
    if ret.status not in (ReturnRequest.Status.REQUESTED, ReturnRequest.Status.APPROVED):
        raise ValidationError(f"{ret.public_id} has already been {ret.get_status_display().lower()}.")
    now = clock.now()
    ret.decided_at = now
    if not approve:
        ret.status = ReturnRequest.Status.REJECTED
        ret.save(update_fields=["status", "decided_at"])
        return ret
    deadline = selectors.return_deadline(ret.item)
    if deadline is None or ret.requested_at > deadline:
        raise ValidationError(f"{ret.public_id} was requested after the seller's return window closed; reject it.")
    item = ret.item
    if ret.resolution == ReturnRequest.Resolution.REPLACEMENT:
        # the same variant goes out again, from stock; nothing is refunded
        variant = item.variant
        if variant.stock < ret.units:
            raise ValidationError(f"{ret.public_id}: the replacement is out of stock; reject it or refund instead.")
        variant.stock -= ret.units
        variant.save(update_fields=["stock"])
        ret.status = ReturnRequest.Status.REPLACED
        ret.save(update_fields=["status", "decided_at"])
        return ret
    ret.status = ReturnRequest.Status.REFUNDED
    ret.save(update_fields=["status", "decided_at"])
    if ret.units == item.quantity:
        item.status = OrderItem.Status.RETURNED
        item.save(update_fields=["status"])
    refund_issue(
        order=item.order,
        item=item,
        amount=selectors.refund_for_return(ret),
        reason=ret.get_reason_display(),
        method=ret.refund_method,
        return_request=ret,
    )
    return ret


MAX_STOCK = 9999


def variant_stock_set(*, variant: Variant, stock: str | int) -> Variant:
    """The units on hand after a count or a delivery from the seller: a whole number from 0 to MAX_STOCK."""
    text = str(stock).strip()
    if not _whole(text) or int(text) > MAX_STOCK:
        raise ValidationError(f"Enter the units on hand as a whole number from 0 to {MAX_STOCK}.")
    if int(text) == variant.stock:
        raise ValidationError(f"{variant.sku} already has {variant.stock} on hand.")
    variant.stock = int(text)
    variant.save(update_fields=["stock"])
    return variant


@transaction.atomic
def refund_issue(
    *,
    order: Order,
    item: OrderItem | None,
    amount: Decimal,
    reason: str,
    method: str,
    return_request: ReturnRequest | None = None,
) -> Refund:
    """Refund part or all of what a line (or the order) cost; to the gift card balance, the amount
    is credited to the customer's balance at once."""
    if method not in Refund.Method.values:
        raise ValidationError("Please choose a refund method.")
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("Please give a reason for the refund.")
    if amount is None or amount <= 0 or amount != policies.cents(amount):
        raise ValidationError("The amount must be a positive amount in dollars and cents.")
    paid = item.amount if item is not None else order.total
    already = (
        selectors.refunded_total(item)
        if item is not None
        else sum(order.refunds.values_list("amount", flat=True), Decimal(0))
    )
    if already + amount > paid:
        raise ValidationError(f"At most {policies.money(paid - already)} can still be refunded.")
    if method == Refund.Method.GIFT_CARD:
        account = order.account
        account.gift_card_balance += amount
        account.save(update_fields=["gift_card_balance"])
    return Refund.objects.create(
        public_id=next_number(Refund, "public_id", "RF-", 5001),
        order=order,
        item=item,
        return_request=return_request,
        amount=amount,
        method=method,
        reason=reason[:200],
        created_at=clock.now(),
    )


@transaction.atomic
def replacement_create(*, order: Order, quantities: dict[int, int], reason: str) -> Order:
    """Send damaged, defective or wrong lines again: a new order of the same variants (`quantities`: line ->
    units, at most the units bought), free of charge, at standard speed to the original's address, linked to
    each line it replaces. Only delivered, active lines, each once, while the store has the units."""
    if reason not in Replacement.Reason.values:
        raise ValidationError("Please choose why the items are replaced.")
    items = {i.line: i for i in order.items.select_related("variant__product", "seller")}
    if not quantities or any(n not in items for n in quantities):
        raise ValidationError("Please select the items to replace.")
    chosen = [items[n] for n in sorted(quantities)]
    for item in chosen:
        units = quantities[item.line]
        if item.status != OrderItem.Status.ACTIVE or item.delivered_at is None:
            raise ValidationError(f"Line {item.line} has not been delivered: only delivered items can be replaced.")
        done = item.replacements.select_related("order").first()
        if done is not None:
            raise ValidationError(f"Line {item.line} has already been replaced by order {done.order.public_id}.")
        if not 1 <= units <= item.quantity:
            raise ValidationError(f"Line {item.line}: you can replace from 1 to {item.quantity} of this item.")
    for variant in {item.variant for item in chosen}:
        units = sum(quantities[i.line] for i in chosen if i.variant == variant)
        if variant.stock < units:
            raise ValidationError(f"{variant.sku} has only {variant.stock} on hand: the replacement cannot ship.")
    now = clock.now()
    dates = {
        item.line: policies.delivery_date(
            speed="standard", standard_days=item.variant.product.standard_days, today=now.date(), state=order.ship_state
        )
        for item in chosen
    }
    zero = Decimal("0.00")
    new = Order.objects.create(
        public_id=next_number(Order, "public_id", "ORD-", 4001),
        account=order.account,
        status=Order.Status.PLACED,
        placed_at=now,
        ship_name=order.ship_name,
        ship_line1=order.ship_line1,
        ship_line2=order.ship_line2,
        ship_city=order.ship_city,
        ship_state=order.ship_state,
        ship_zip=order.ship_zip,
        speed="standard",
        delivery_date=max(dates.values()),
        subtotal=zero,
        shipping=zero,
        tax=zero,
        total=zero,
    )
    for n, item in enumerate(chosen, start=1):
        units = quantities[item.line]
        OrderItem.objects.create(
            order=new,
            line=n,
            variant=item.variant,
            title=item.title,
            seller=item.seller,
            quantity=units,
            unit_price=zero,
            speed="standard",
            delivery_date=dates[item.line],
        )
        Variant.objects.filter(pk=item.variant.pk).update(stock=F("stock") - units)
        Replacement.objects.create(item=item, order=new, quantity=units, reason=reason, created_at=now)
    return new
