"""Reads of the shop: prices as of the world clock, search, carts and checkout quotes,
return eligibility. Views and the task pack's params both read through these."""

import hashlib
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db.models import Min, Q

from replicas.worlds import clock

from . import policies
from .models import (
    Account,
    Address,
    BuyNowItem,
    Card,
    CartItem,
    Coupon,
    ListItem,
    Order,
    OrderItem,
    Product,
    Question,
    ReturnRequest,
    SeasonalSale,
    Variant,
    VisitorCartItem,
)

PAGE_SIZE = 16
SORTS = {
    "relevance": "Featured",
    "price-asc": "Price: Low to High",
    "price-desc": "Price: High to Low",
    "rating": "Avg. Customer Review",
    "newest": "Most reviews",
}


def deal_active(product: Product, at: datetime | None = None) -> bool:
    at = at or clock.now()
    return product.deal_price is not None and product.deal_ends_at is not None and product.deal_ends_at > at


def base_price(product: Product) -> Decimal:
    prices = [v.price for v in product.variants.all()]
    return min(prices) if prices else product.list_price


def seasonal_sales(at: datetime | None = None) -> dict[str, SeasonalSale]:
    """The seasonal sales running at `at` (the world clock), by department: one query; where two
    overlap on a department, the larger discount."""
    at = at or clock.now()
    found: dict[str, SeasonalSale] = {}
    for sale in SeasonalSale.objects.filter(starts_at__lte=at, ends_at__gt=at).order_by("-percent_off", "code"):
        found.setdefault(sale.department, sale)
    return found


def variant_price(variant: Variant, at: datetime | None = None, sales: dict | None = None) -> Decimal:
    """What the variant costs now: its price, less the product's deal while the deal runs, or its
    department's seasonal sale while that runs, whichever is lower. `sales`: seasonal_sales(at),
    when the caller prices many variants."""
    product = variant.product
    price = variant.price
    if deal_active(product, at):
        price = max(Decimal("0.01"), variant.price - (base_price(product) - product.deal_price))
    sale = (seasonal_sales(at) if sales is None else sales).get(product.department)
    if sale is not None:
        price = min(price, policies.seasonal_price(variant.price, sale.percent_off))
    return price


def product_price(product: Product, at: datetime | None = None, sales: dict | None = None) -> Decimal:
    price = product.deal_price if deal_active(product, at) else base_price(product)
    sale = (seasonal_sales(at) if sales is None else sales).get(product.department)
    if sale is not None:
        price = min(price, policies.seasonal_price(base_price(product), sale.percent_off))
    return price


def histogram(product: Product) -> list[tuple[int, int]]:
    """Percent of ratings per star (5 to 1): spread around the average rating, summing to 100."""
    avg = float(product.rating)
    weights = {s: max(0.02, 1.0 - abs(s - avg) / 2.2) ** 3 for s in range(1, 6)}
    total = sum(weights.values())
    shares = {s: round(100 * w / total) for s, w in weights.items()}
    shares[round(min(5, max(1, avg)))] += 100 - sum(shares.values())
    return [(s, shares[s]) for s in range(5, 0, -1)]


@dataclass
class SearchQuery:
    text: str = ""
    department: str = ""
    brand: str = ""
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    min_rating: int | None = None
    fast: bool = False
    deals: bool = False
    sort: str = "relevance"
    page: int = 1

    @classmethod
    def from_params(cls, params) -> "SearchQuery":
        """Read the query string; anything malformed is ignored (as the storefront does), never an error page."""

        def decimal_or_none(value):
            try:
                d = Decimal(value)
            except (ArithmeticError, ValueError, TypeError):
                return None
            return d if d.is_finite() and d >= 0 else None

        q = cls(
            text=params.get("k", "").strip()[:200], department=params.get("i", ""), brand=params.get("brand", "")[:60]
        )
        if q.department not in Product.Department.values:
            q.department = ""
        q.min_price, q.max_price = decimal_or_none(params.get("low")), decimal_or_none(params.get("high"))
        rating = params.get("rating", "")
        q.min_rating = int(rating) if rating in {"1", "2", "3", "4"} else None
        q.fast, q.deals = params.get("fast") == "1", params.get("deals") == "1"
        q.sort = params.get("s") if params.get("s") in SORTS else "relevance"
        page = params.get("page", "1")
        q.page = int(page) if page.isascii() and page.isdigit() and 0 < int(page) < 1000 else 1
        return q


@dataclass
class SearchResults:
    products: list = field(default_factory=list)
    sponsored: list = field(default_factory=list)
    total: int = 0
    pages: int = 1
    brands: list = field(default_factory=list)


def _priced(qs) -> list[Product]:
    """The products with their price now set on each (price_now: the lowest variant's, less a live
    deal or its department's seasonal sale, whichever is lower; deal_live; sale), in ASIN order."""
    now = clock.now()
    sales = seasonal_sales(now)
    products = list(qs.annotate(low=Min("variants__price")).select_related("seller").order_by("asin"))
    for p in products:
        live = p.deal_price is not None and p.deal_ends_at is not None and p.deal_ends_at > now
        base = p.low if p.low is not None else p.list_price
        p.price_now = p.deal_price if live else base
        if p.department in sales:
            p.price_now = min(p.price_now, policies.seasonal_price(base, sales[p.department].percent_off))
        p.deal_live = live
        p.sale = sales.get(p.department)
    return products


@dataclass
class HomeRows:
    deals: list
    departments: list  # (code, name, its four most popular products)
    keep_shopping: list
    sales: list


def home_rows(viewed: list[str]) -> HomeRows:
    """The home page's rows from one priced pass over the catalogue: today's deals (largest saving
    first), each department's most popular four, and the products last viewed (`viewed`: ASINs,
    most recent first)."""
    products = _priced(Product.objects.all())
    popular = sorted(products, key=lambda p: (-p.review_count * float(p.rating), p.asin))
    deals = [p for p in products if p.deal_live or p.sale]
    for p in deals:
        p.off_pct = int((p.list_price - p.price_now) * 100 / p.list_price) if p.list_price > p.price_now else 0
    deals.sort(key=lambda p: (-p.off_pct, p.asin))
    by_asin = {p.asin: p for p in products}
    return HomeRows(
        deals=deals[:10],
        departments=[
            (code, name, [p for p in popular if p.department == code][:4]) for code, name in Product.Department.choices
        ],
        keep_shopping=[by_asin[a] for a in viewed if a in by_asin][:6],
        sales=list(seasonal_sales().values()),
    )


def search(q: SearchQuery) -> SearchResults:
    qs = Product.objects.all()
    if q.department:
        qs = qs.filter(department=q.department)
    for word in q.text.split():
        qs = qs.filter(Q(title__icontains=word) | Q(brand__icontains=word))
    brands = sorted(set(qs.values_list("brand", flat=True)))
    if q.brand:
        qs = qs.filter(brand=q.brand)
    if q.min_rating:
        qs = qs.filter(rating__gte=q.min_rating)
    if q.fast:
        qs = qs.filter(fast_eligible=True)
    products = _priced(qs)
    # prices depend on the clock (deals): filter and sort in Python, identically on every backend
    priced = []
    for p in products:
        if q.deals and not p.deal_live:
            continue
        if q.min_price is not None and p.price_now < q.min_price:
            continue
        if q.max_price is not None and p.price_now > q.max_price:
            continue
        priced.append(p)
    key = {
        "price-asc": lambda p: (p.price_now, p.asin),
        "price-desc": lambda p: (-p.price_now, p.asin),
        "rating": lambda p: (-p.rating, -p.review_count, p.asin),
        "newest": lambda p: (-p.review_count, p.asin),
        "relevance": lambda p: (-p.review_count * float(p.rating), p.asin),
    }[q.sort]
    priced.sort(key=key)
    pages = max(1, -(-len(priced) // PAGE_SIZE))
    start = (min(q.page, pages) - 1) * PAGE_SIZE
    sponsored = [p for p in priced if p.sponsored][:2] if q.page == 1 else []
    return SearchResults(
        products=priced[start : start + PAGE_SIZE],
        sponsored=sponsored,
        total=len(priced),
        pages=pages,
        brands=brands[:12],
    )


def suggestions(text: str, limit: int = 8) -> list[str]:
    text = text.strip()
    if len(text) < 2:
        return []
    titles = (
        Product.objects.filter(title__icontains=text).order_by("-review_count", "asin").values_list("title", flat=True)
    )
    seen = []
    for title in titles[:40]:
        short = title.split(",")[0]
        if short not in seen:
            seen.append(short)
    return seen[:limit]


# --- cart and checkout ----------------------------------------------------------------------------


@dataclass
class Line:
    item: CartItem
    variant: Variant
    product: Product
    price: Decimal
    quantity: int

    @property
    def amount(self) -> Decimal:
        return self.price * self.quantity

    @property
    def price_changed(self) -> bool:
        return self.price != self.item.price_when_added

    @property
    def out_of_stock(self) -> bool:
        return self.variant.stock < self.quantity

    @property
    def gift_wrap_fee(self) -> Decimal:
        return policies.GIFT_WRAP_FEE * self.quantity if self.item.gift and self.item.gift_wrap else Decimal("0.00")


def _lines(items) -> list[Line]:
    items = list(items.select_related("variant__product__seller").order_by("added_at", "id"))
    now = clock.now()
    sales = seasonal_sales(now) if items else {}
    return [Line(i, i.variant, i.variant.product, variant_price(i.variant, now, sales), i.quantity) for i in items]


def cart_lines(account: Account, *, saved: bool = False) -> list[Line]:
    return _lines(CartItem.objects.filter(account=account, saved_for_later=saved))


def checkout_lines(account: Account) -> list[Line]:
    """What checkout sells: the Buy Now item alone when there is one, else the cart's active lines."""
    return _lines(BuyNowItem.objects.filter(account=account)) or cart_lines(account)


def list_items(account: Account) -> list[ListItem]:
    return list(account.list_items.select_related("variant__product").order_by("-added_at", "-id"))


def visitor_cart_lines(visitor: str) -> list[Line]:
    return _lines(VisitorCartItem.objects.filter(visitor=visitor)) if visitor else []


def bought_before(account: Account, limit: int = 24) -> list[Product]:
    """Buy Again: the products of the account's delivered items, most recent first, each once."""
    items = (
        OrderItem.objects.filter(order__account=account, order__status=Order.Status.DELIVERED)
        .select_related("variant__product")
        .order_by("-order__placed_at", "line")
    )
    found: dict[str, Product] = {}
    for item in items[: limit * 4]:
        found.setdefault(item.variant.product.asin, item.variant.product)
    return list(found.values())[:limit]


def cart_count(account: Account) -> int:
    return sum(CartItem.objects.filter(account=account, saved_for_later=False).values_list("quantity", flat=True))


def visitor_cart_count(visitor: str) -> int:
    return sum(VisitorCartItem.objects.filter(visitor=visitor).values_list("quantity", flat=True)) if visitor else 0


def usable_addresses(account: Account) -> list[Address]:
    return list(account.addresses.order_by("-is_default", "public_id"))


def usable_cards(account: Account) -> list[Card]:
    return list(account.cards.filter(removed=False).order_by("-is_default", "public_id"))


def card_is_expired(card: Card) -> bool:
    return policies.card_expired(exp_month=card.exp_month, exp_year=card.exp_year, today=clock.now().date())


def promotion_amount(coupon: Coupon, amounts: list[tuple[str, Decimal]]) -> Decimal:
    """What `coupon` takes off items given as (department, amount): its percentage of the items it
    covers, or its fixed amount up to their total (the minimum spend is checked by the callers)."""
    eligible = sum(
        (amount for dept, amount in amounts if not coupon.department or dept == coupon.department), Decimal(0)
    )
    if coupon.kind == Coupon.Kind.PERCENT:
        return policies.cents(eligible * coupon.value / 100)
    return min(coupon.value, eligible)


def coupon_discount(coupon: Coupon, lines: list[Line]) -> Decimal:
    return promotion_amount(coupon, [(ln.product.department, ln.amount) for ln in lines])


@dataclass
class Promotion:
    """One of an order's promotion codes, evaluated by its rules on the items still ordered."""

    code: str
    rule: str  # "10% off", "$25.00 off electronics, minimum spend $100.00"
    amount: Decimal
    dropped: str = ""  # why it no longer applies ("" while it does)


def coupon_rule(coupon: Coupon) -> str:
    off = (
        f"{coupon.value.normalize():f}% off"
        if coupon.kind == Coupon.Kind.PERCENT
        else f"{policies.money(coupon.value)} off"
    )
    if coupon.department:
        off += f" {Product.Department(coupon.department).label.lower()}"
    return off + (f", minimum spend {policies.money(coupon.min_subtotal)}" if coupon.min_subtotal else "")


def order_promotions(order: Order) -> list[Promotion]:
    """The order's promotion codes re-evaluated on its active items, as after a partial cancel: a
    percentage applies to what is left, and a code whose minimum spend is no longer met drops out."""
    if not order.promo_codes:
        return []
    items = list(order.items.filter(status=OrderItem.Status.ACTIVE).select_related("variant__product"))
    amounts = [(i.variant.product.department, i.amount) for i in items]
    subtotal = sum((a for _, a in amounts), Decimal(0))
    found = {c.code: c for c in Coupon.objects.filter(code__in=order.promo_codes)}
    promotions = []
    for code in order.promo_codes:
        coupon = found.get(code)
        if coupon is None:  # a code since withdrawn from the store keeps nothing to evaluate
            continue
        if subtotal < coupon.min_subtotal:
            dropped = f"the items left come to {policies.money(subtotal)}, under its minimum spend"
            promotions.append(Promotion(code, coupon_rule(coupon), Decimal("0.00"), dropped))
        else:
            promotions.append(Promotion(code, coupon_rule(coupon), promotion_amount(coupon, amounts)))
    return promotions


def coupon_check(code: str, lines: list[Line], applied: list[str]) -> Coupon:
    """The coupon `code` if it may be added to `applied` for these lines; else a ValidationError saying why."""
    coupon = Coupon.objects.filter(code=code.strip().upper()).first()
    if coupon is None:
        raise ValidationError("The promotional code you entered is not valid.")
    if coupon.code in applied:
        raise ValidationError(f"{coupon.code} has already been applied.")
    if coupon.expires_at <= clock.now():
        raise ValidationError(f"The promotional code {coupon.code} has expired.")
    subtotal = sum((ln.amount for ln in lines), Decimal(0))
    if subtotal < coupon.min_subtotal:
        raise ValidationError(f"{coupon.code} requires a subtotal of at least {policies.money(coupon.min_subtotal)}.")
    if coupon_discount(coupon, lines) <= 0:
        raise ValidationError(f"{coupon.code} does not apply to any item in your order.")
    others = list(Coupon.objects.filter(code__in=applied))
    if others and (not coupon.stackable or any(not c.stackable for c in others)):
        raise ValidationError(f"{coupon.code} cannot be combined with {', '.join(c.code for c in others)}.")
    return coupon


@dataclass
class Shipment:
    """Items that travel together: one seller's items at one delivery speed."""

    number: int
    speed: str
    seller: object
    lines: list
    delivery: date


def line_speeds(lines: list[Line], speed: str, speeds: dict | None) -> dict[int, str]:
    """Each line's delivery speed (by cart item id): its own choice, else the order's."""
    speeds = speeds or {}
    return {ln.item.id: speeds.get(ln.variant.sku) or speed for ln in lines}


def shipments(
    lines: list[Line], speed: str, speeds: dict | None = None, today: date | None = None, state: str = ""
) -> list[Shipment]:
    """The shipments of these lines and when each arrives in `state` (its delivery zone)."""
    today = today or clock.now().date()
    chosen = line_speeds(lines, speed, speeds)
    groups: dict[tuple, list[Line]] = {}
    for ln in lines:
        groups.setdefault((ln.product.seller_id, chosen[ln.item.id]), []).append(ln)
    return [
        Shipment(
            n,
            sp,
            group[0].product.seller,
            group,
            policies.delivery_date(
                speed=sp, standard_days=max(ln.product.standard_days for ln in group), today=today, state=state
            ),
        )
        for n, ((_, sp), group) in enumerate(groups.items(), start=1)
    ]


def shipping_for(lines: list[Line], chosen: dict[int, str], member: bool) -> Decimal:
    """One fee per delivery speed used, on the items sent at that speed (so free standard
    shipping over the threshold counts only the items that ship standard)."""
    by_speed: dict[str, Decimal] = {}
    for ln in lines:
        by_speed[chosen[ln.item.id]] = by_speed.get(chosen[ln.item.id], Decimal(0)) + ln.amount
    return sum(
        (policies.shipping_fee(speed=sp, subtotal=amount, member=member) for sp, amount in by_speed.items()),
        Decimal("0.00"),
    )


@dataclass
class Quote:
    lines: list
    subtotal: Decimal
    shipping: Decimal
    gift_wrap: Decimal
    discount: Decimal
    loyalty_pct: int
    loyalty_discount: Decimal
    tax: Decimal
    total: Decimal
    gift_card: Decimal
    delivery: date | None
    shipments: list

    @property
    def card_amount(self) -> Decimal:
        return self.total - self.gift_card


def quote(
    *,
    account: Account,
    lines: list[Line],
    state: str,
    speed: str,
    codes: list[str],
    use_gift: bool,
    speeds: dict | None = None,
) -> Quote:
    """What checkout charges: items, shipping per speed, gift wrap, promotion codes, the loyalty
    tier's discount, tax on the discounted items, and the gift card balance used first."""
    subtotal = sum((ln.amount for ln in lines), Decimal(0))
    chosen = line_speeds(lines, speed, speeds)
    shipping = shipping_for(lines, chosen, account.member)
    wrap = sum((ln.gift_wrap_fee for ln in lines), Decimal("0.00"))
    coupons = list(Coupon.objects.filter(code__in=codes))
    discount = min(subtotal, sum((coupon_discount(c, lines) for c in coupons), Decimal(0)))
    pct = policies.loyalty_tier(account.loyalty_points).discount_pct
    loyalty = policies.loyalty_discount(subtotal - discount, pct)
    tax = policies.tax_for(subtotal - discount - loyalty, state)
    total = subtotal + shipping + wrap - discount - loyalty + tax
    gift = min(account.gift_card_balance, total) if use_gift else Decimal("0.00")
    sent = shipments(lines, speed, speeds, state=state)
    delivery = max((s.delivery for s in sent), default=None)
    return Quote(lines, subtotal, shipping, wrap, discount, pct, loyalty, tax, total, gift, delivery, sent)


def speed_allowed(speed: str, lines: list[Line], state: str = "") -> bool:
    """Whether every line can ship at `speed` to `state`: fast speeds need eligible items, and a
    zone the carrier does not serve at that speed (policies.ZONES) rules it out."""
    if not policies.speed_served(speed, state):
        return False
    return speed == "standard" or all(ln.product.fast_eligible for ln in lines)


def delivery_options(product: Product, state: str = "", today: date | None = None) -> dict[str, date]:
    """The product page's promise: the arrival date per speed this product ships at to `state`."""
    today = today or clock.now().date()
    return {
        code: policies.delivery_date(speed=code, standard_days=product.standard_days, today=today, state=state)
        for code in policies.SPEEDS
        if policies.speed_served(code, state) and (code == "standard" or product.fast_eligible)
    }


def price_changes(lines: list[Line]) -> list[Line]:
    """Lines whose price moved since they went into the cart: checkout stops on an interstitial
    until the shopper accepts the new prices."""
    return [ln for ln in lines if ln.price_changed]


# --- orders ---------------------------------------------------------------------------------------

FACILITIES = ["Reno, NV", "Memphis, TN", "Allentown, PA", "Ontario, CA", "Joliet, IL", "Dallas, TX", "Lakeland, FL"]


@dataclass
class TrackingEvent:
    at: datetime
    status: str
    place: str


def repromised_dates(order: Order, state: str) -> dict[int, date]:
    """The delivery date of each active item (by line) if the order went to `state` instead: its
    date less its current zone's extra days plus the new zone's. A ValidationError names a speed
    the carrier does not serve in the new zone."""
    old_zone, new_zone = policies.zone_for(order.ship_state), policies.zone_for(state)
    dates = {}
    for item in order.items.filter(status=OrderItem.Status.ACTIVE).order_by("line"):
        if item.speed not in new_zone.extra_days:
            raise ValidationError(
                f"{policies.speed_label(item.speed)} is not available to {state} ({new_zone.name} "
                f"delivery zone). Choose another address, or cancel the items sent at that speed first."
            )
        shift = new_zone.extra_days[item.speed] - old_zone.extra_days.get(item.speed, 0)
        dates[item.line] = item.delivery_date + timedelta(days=shift)
    return dates


def order_shipments(order: Order) -> list[dict]:
    """The order's shipments: their number, speed, delivery date and items (by line)."""
    groups: dict[int, dict] = {}
    for item in order.items.select_related("seller").order_by("line"):
        g = groups.setdefault(
            item.shipment,
            {
                "number": item.shipment,
                "speed": item.speed,
                "delivery": item.delivery_date,
                "seller": item.seller,
                "items": [],
            },
        )
        g["items"].append(item)
    return list(groups.values())


def tracking(order: Order, shipment: dict, now: datetime | None = None) -> list[TrackingEvent]:
    """A shipment's carrier events up to the world clock, newest first. The route follows from the
    order (its id picks the sorting facility), the times from when it was placed and is due:
    it leaves the warehouse a day after the order, passes a facility, goes out for delivery on the
    morning of its delivery date and arrives at 15:30 (the hour the seed delivers orders at)."""
    now = now or clock.now()
    tz = order.placed_at.tzinfo
    digest = int(hashlib.sha256(f"{order.public_id}/{shipment['number']}".encode()).hexdigest()[:8], 16)
    facility = FACILITIES[digest % len(FACILITIES)]
    due = shipment["delivery"]
    delivered = datetime.combine(due, time(15, 30), tzinfo=tz)
    out = datetime.combine(due, time(7, 40), tzinfo=tz)
    shipped = min(order.placed_at + timedelta(days=1), out - timedelta(hours=14))
    events = [TrackingEvent(order.placed_at, "Ordered", "")]
    if order.status == Order.Status.CANCELLED or all(i.status == OrderItem.Status.CANCELLED for i in shipment["items"]):
        return events
    if order.status != Order.Status.PLACED:
        events += [
            TrackingEvent(shipped, "Shipped: package left the seller's warehouse", shipment["seller"].ships_from),
            TrackingEvent(shipped + (out - shipped) / 2, "Arrived at a Bazaaro sorting facility", facility),
            TrackingEvent(out, "Out for delivery", f"{order.ship_city}, {order.ship_state}"),
        ]
        if order.status == Order.Status.DELIVERED:
            events.append(TrackingEvent(delivered, "Delivered", f"{order.ship_city}, {order.ship_state}"))
    return sorted((e for e in events if e.at <= now), key=lambda e: e.at, reverse=True)


def questions(product: Product, text: str = "") -> list[Question]:
    """The product's questions with their answers, most answered first; `text` keeps those whose
    question or an answer contains every word."""
    qs = product.questions.prefetch_related("answers").order_by("-asked_at", "public_id")
    found = []
    words = text.lower().split()
    for question in qs:
        answers = sorted(question.answers.all(), key=lambda a: (-a.helpful, a.public_id))
        haystack = " ".join([question.text, *(a.text for a in answers)]).lower()
        if all(w in haystack for w in words):
            question.sorted_answers = answers
            found.append(question)
    return sorted(found, key=lambda q: -len(q.sorted_answers))


# --- returns ------------------------------------------------------------------------------------------


def return_deadline(item: OrderItem):
    if item.delivered_at is None:
        return None
    return policies.return_deadline(delivered_at=item.delivered_at, window_days=item.seller.return_window_days)


def return_blocker(item: OrderItem) -> str:
    """Why `item` cannot be returned now ("" when it can)."""
    if item.status != OrderItem.Status.ACTIVE:
        return "This item has already been cancelled or returned."
    if item.delivered_at is None:
        return "This item has not been delivered yet."
    if item.returns.exclude(status=ReturnRequest.Status.REJECTED).exists():
        return "A return for this item is already in progress."
    deadline = return_deadline(item)
    if clock.now() > deadline:
        return f"The return window for this item closed on {deadline:%B} {deadline.day}, {deadline.year}."
    return ""


FULL_REFUND_REASONS = ("damaged", "defective", "wrong_item")  # refunded in full; others less the restocking fee


def refund_for_return(ret: ReturnRequest) -> Decimal:
    """Full price of the units returned for damaged, defective or wrong items; less the seller's
    restocking fee otherwise."""
    item = ret.item
    fee = 0 if ret.reason in FULL_REFUND_REASONS else item.seller.restocking_fee_pct
    return policies.cents(item.unit_price * ret.units * (100 - Decimal(fee)) / 100)


def replacement_blocker(item: OrderItem, reason: str, units: int) -> str:
    """Why a return of `units` of `item` for `reason` cannot be a replacement ("" when it can)."""
    if reason not in FULL_REFUND_REASONS:
        return "A replacement is for an item that arrived damaged, defective or wrong; choose a refund."
    if item.variant.stock < units:
        return "A replacement is not available: this item is out of stock. Choose a refund."
    return ""


def refunded_total(item: OrderItem) -> Decimal:
    return sum(item.refunds.values_list("amount", flat=True), Decimal(0))


# --- back office -----------------------------------------------------------------------------------

INVENTORY_PAGE = 50
LOW_STOCK = 5  # below this the product page says "Only N left in stock"
STOCK_FILTERS = {"all": "All variants", "low": f"Low stock (under {LOW_STOCK})", "out": "Out of stock"}


@dataclass
class InventoryPage:
    variants: list
    total: int
    page: int
    pages: int


def inventory(*, text: str = "", stock: str = "all", page: int = 1) -> InventoryPage:
    """Variants for the stock screen: an exact SKU, or every word in the product's title or brand;
    "low" keeps those under LOW_STOCK but not sold out, "out" the sold-out ones; fewest units first."""
    qs = Variant.objects.select_related("product__seller")
    text = text.strip()
    if text:
        exact = qs.filter(sku=text.upper())
        if exact.exists():
            qs = exact
        else:
            for word in text.split():
                qs = qs.filter(Q(product__title__icontains=word) | Q(product__brand__icontains=word))
    if stock == "low":
        qs = qs.filter(stock__gt=0, stock__lt=LOW_STOCK)
    elif stock == "out":
        qs = qs.filter(stock=0)
    total = qs.count()
    pages = max(1, -(-total // INVENTORY_PAGE))
    page = min(max(page, 1), pages)
    start = (page - 1) * INVENTORY_PAGE
    return InventoryPage(list(qs.order_by("stock", "sku")[start : start + INVENTORY_PAGE]), total, page, pages)


BO_ORDERS_SHOWN = 50  # rows of the back office's order search; the count says how many matched


def backoffice_order_search(
    *, text: str = "", status: str = "", since: date | None = None, until: date | None = None
) -> tuple[list[Order], int]:
    """Orders for the back office's search, newest first, with how many matched: every word in the
    customer's name or email or the order number; one status; placed from `since` to `until`."""
    qs = Order.objects.select_related("account")
    for word in text.split():
        qs = qs.filter(
            Q(public_id__icontains=word) | Q(account__name__icontains=word) | Q(account__email__icontains=word)
        )
    if status:
        qs = qs.filter(status=status)
    if since:
        qs = qs.filter(placed_at__date__gte=since)
    if until:
        qs = qs.filter(placed_at__date__lte=until)
    return list(qs.order_by("-placed_at", "public_id")[:BO_ORDERS_SHOWN]), qs.count()


@dataclass
class OrderException:
    order: Order
    kind: str
    detail: str


def order_exceptions(now: datetime | None = None) -> list[OrderException]:
    """Orders that need a person: a shipment past its delivery date and not delivered, a return
    recorded both approved and rejected, an approved return that was never refunded."""
    now = now or clock.now()
    today = now.date()
    found: list[OrderException] = []
    late = (
        OrderItem.objects.filter(
            status=OrderItem.Status.ACTIVE,
            delivery_date__lt=today,
            order__status__in=[Order.Status.PLACED, Order.Status.SHIPPED],
        )
        .select_related("order__account")
        .order_by("order__public_id", "line")
    )
    seen = set()
    for item in late:
        if item.order_id in seen:
            continue
        seen.add(item.order_id)
        days = (today - item.delivery_date).days
        found.append(
            OrderException(
                item.order,
                "Late delivery",
                f"Due {item.delivery_date:%b} {item.delivery_date.day}, {days} day{'s' if days != 1 else ''} ago; "
                f"still {item.order.get_status_display().lower()}.",
            )
        )
    decided = {}
    for ret in (
        ReturnRequest.objects.exclude(status=ReturnRequest.Status.REQUESTED)
        .select_related("item__order__account")
        .order_by("public_id")
    ):
        decided.setdefault(ret.item_id, []).append(ret)
    yes = (ReturnRequest.Status.APPROVED, ReturnRequest.Status.REFUNDED)
    for rets in decided.values():
        approved = [r for r in rets if r.status in yes]
        rejected = [r for r in rets if r.status == ReturnRequest.Status.REJECTED]
        order = rets[0].item.order
        if approved and rejected:
            found.append(
                OrderException(
                    order,
                    "Conflicting return decisions",
                    f"Line {rets[0].item.line}: {', '.join(r.public_id for r in approved)} approved, "
                    f"{', '.join(r.public_id for r in rejected)} rejected.",
                )
            )
        for r in approved:
            if r.status == ReturnRequest.Status.APPROVED and not rejected:
                found.append(
                    OrderException(
                        order,
                        "Approved return not refunded",
                        f"{r.public_id} (line {r.item.line}) was approved without a refund.",
                    )
                )
    return sorted(found, key=lambda e: (e.kind, e.order.public_id))


def shopper_pages() -> list[str]:
    """The pages the platform's benchmarks fetch, signed in as the first customer: a search (its
    box first), the most reviewed products, the cart and the first checkout step."""
    asins = list(Product.objects.order_by("-review_count", "asin").values_list("asin", flat=True)[:3])
    return ["/s?k=wireless", "/s?i=home&s=price-asc", *[f"/dp/{a}" for a in asins], "/cart", "/checkout/address"]
