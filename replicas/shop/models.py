"""Shop state: sellers and their return policies, the catalogue (products, variants, reviews),
customers with addresses, saved cards, gift-card balances and carts, promotion codes, and the
orders, returns and refunds that flow from checkout.

Money is a Decimal with two places in US dollars (an account's currency only changes how prices
are shown, see policies.convert). Public ids look like the product's
(ASIN-like B0…, ORD-4419, RMA-…); foreign keys nothing looks up by carry no index, because
every index is paid for on each world clone.
"""

from django.db import models

from replicas.worlds.models import WorldForeignKey, WorldModel, world_unique

from .policies import SPEEDS

# Speeds as choices, so a spec's speed is checked when it is validated and the mutation audit
# tries every other speed an order could have been placed at.
SPEED_CHOICES = [(code, speed.label) for code, speed in SPEEDS.items()]


def money_field(**kwargs):
    return models.DecimalField(max_digits=10, decimal_places=2, **kwargs)


class Seller(WorldModel):
    public_id = models.PositiveIntegerField()
    name = models.CharField(max_length=120)
    return_window_days = models.PositiveSmallIntegerField(help_text="Days after delivery a return is accepted.")
    restocking_fee_pct = models.PositiveSmallIntegerField(default=0)
    policy_text = models.TextField()
    rating = models.DecimalField(max_digits=3, decimal_places=1)
    ships_from = models.CharField(max_length=120)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_seller_pid", "public_id")]

    def __str__(self):
        return self.name


class Account(WorldModel):
    """A shopper, or a member of the store's staff (back office)."""

    class Role(models.TextChoices):
        CUSTOMER = "customer", "Customer"
        STAFF = "staff", "Staff"

    public_id = models.PositiveIntegerField()
    name = models.CharField(max_length=120)
    email = models.EmailField()
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.CUSTOMER)
    member = models.BooleanField(default=False, help_text="Paid membership: free fast delivery.")
    loyalty_points = models.PositiveIntegerField(
        default=0, help_text="Reward points; their tier (policies.TIERS) gives a discount."
    )
    currency = models.CharField(
        max_length=3, default="USD", help_text="Prices are shown converted to it; charges stay in USD."
    )
    gift_card_balance = money_field(default=0)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_account_pid", "public_id"), world_unique("shop_account_email", "email")]

    def __str__(self):
        return self.name

    @property
    def first_name(self):
        return self.name.split(" ", 1)[0]


class Address(WorldModel):
    public_id = models.PositiveIntegerField()
    account = WorldForeignKey(Account, on_delete=models.CASCADE, related_name="addresses")
    full_name = models.CharField(max_length=120)
    line1 = models.CharField(max_length=200)
    line2 = models.CharField(max_length=200, blank=True)
    city = models.CharField(max_length=100)
    state = models.CharField(max_length=2, blank=True)
    zip_code = models.CharField(max_length=10, blank=True, help_text="Blank on legacy imported addresses.")
    phone = models.CharField(max_length=30, blank=True)
    is_default = models.BooleanField(default=False)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_address_pid", "public_id")]

    @property
    def complete(self) -> bool:
        return bool(self.line1 and self.city and self.state and self.zip_code)

    def one_line(self) -> str:
        return ", ".join(p for p in (self.line1, self.line2, self.city, f"{self.state} {self.zip_code}".strip()) if p)


class Card(WorldModel):
    public_id = models.PositiveIntegerField()
    account = WorldForeignKey(Account, on_delete=models.CASCADE, related_name="cards")
    brand = models.CharField(max_length=20)
    last4 = models.CharField(max_length=4)
    exp_month = models.PositiveSmallIntegerField()
    exp_year = models.PositiveSmallIntegerField()
    holder = models.CharField(max_length=120)
    requires_3ds = models.BooleanField(default=False)
    is_default = models.BooleanField(default=False)
    removed = models.BooleanField(default=False)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_card_pid", "public_id")]

    def label(self) -> str:
        return f"{self.brand} ending in {self.last4}"


class Product(WorldModel):
    class Department(models.TextChoices):
        ELECTRONICS = "electronics", "Electronics"
        HOME = "home", "Home & Kitchen"
        CLOTHING = "clothing", "Clothing & Shoes"
        SPORTS = "sports", "Sports & Outdoors"
        BOOKS = "books", "Books"
        TOYS = "toys", "Toys & Games"

    asin = models.CharField(max_length=10)
    title = models.CharField(max_length=200)
    brand = models.CharField(max_length=60)
    department = models.CharField(max_length=20, choices=Department.choices)
    seller = WorldForeignKey(Seller, on_delete=models.CASCADE, related_name="products", db_index=False)
    description = models.TextField()
    list_price = money_field()
    rating = models.DecimalField(max_digits=2, decimal_places=1)
    review_count = models.PositiveIntegerField()
    deal_price = money_field(null=True, blank=True)
    deal_ends_at = models.DateTimeField(null=True, blank=True)
    sponsored = models.BooleanField(default=False)
    fast_eligible = models.BooleanField(default=True, help_text="Eligible for fast (2-day) delivery.")
    standard_days = models.PositiveSmallIntegerField(help_text="Days standard delivery takes.")
    hue = models.PositiveSmallIntegerField(help_text="Colour of the generated product image.")
    shape = models.PositiveSmallIntegerField()
    # ASINs of the items bought with this one, as the seed's order history has them; a list on the
    # product rather than a table of pairs, because every table row is paid for on each world clone
    bought_together = models.JSONField(default=list, blank=True)

    public_key = ("asin",)

    class Meta:
        constraints = [world_unique("shop_product_asin", "asin")]

    def __str__(self):
        return self.title


class Variant(WorldModel):
    sku = models.CharField(max_length=24)
    product = WorldForeignKey(Product, on_delete=models.CASCADE, related_name="variants")
    colour = models.CharField(max_length=30, blank=True)
    size = models.CharField(max_length=20, blank=True)
    price = money_field()
    stock = models.PositiveIntegerField()

    public_key = ("sku",)

    class Meta:
        constraints = [world_unique("shop_variant_sku", "sku")]

    def label(self) -> str:
        return " / ".join(p for p in (self.colour, self.size) if p)


class Review(WorldModel):
    public_id = models.PositiveIntegerField()
    product = WorldForeignKey(Product, on_delete=models.CASCADE, related_name="reviews")
    author = models.CharField(max_length=120)
    rating = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=200)
    body = models.TextField()
    verified = models.BooleanField(default=True)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_review_pid", "public_id")]


class Question(WorldModel):
    """A shopper's question on a product page; answered by other buyers or the seller."""

    public_id = models.PositiveIntegerField()
    product = WorldForeignKey(Product, on_delete=models.CASCADE, related_name="questions")
    author = models.CharField(max_length=120)
    text = models.CharField(max_length=300)
    asked_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_question_pid", "public_id")]


class Answer(WorldModel):
    public_id = models.PositiveIntegerField()
    question = WorldForeignKey(Question, on_delete=models.CASCADE, related_name="answers")
    author = models.CharField(max_length=120)
    by_seller = models.BooleanField(default=False)
    text = models.TextField()
    helpful = models.PositiveIntegerField(default=0)
    answered_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_answer_pid", "public_id")]


class Coupon(WorldModel):
    class Kind(models.TextChoices):
        PERCENT = "percent", "Percent off"
        AMOUNT = "amount", "Amount off"

    code = models.CharField(max_length=20)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    value = money_field()
    min_subtotal = money_field(default=0)
    department = models.CharField(max_length=20, blank=True, help_text="Only items of this department; blank: all.")
    stackable = models.BooleanField(default=False, help_text="May be combined with other codes.")
    expires_at = models.DateTimeField()

    public_key = ("code",)

    class Meta:
        constraints = [world_unique("shop_coupon_code", "code")]


class SeasonalSale(WorldModel):
    """A store-wide seasonal price rule: a percentage off every item of one department between two
    instants of the world clock (a deal on the product, if it runs too and is lower, wins)."""

    code = models.SlugField(max_length=40)
    name = models.CharField(max_length=80)
    department = models.CharField(max_length=20, choices=Product.Department.choices)
    percent_off = models.PositiveSmallIntegerField()
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()

    public_key = ("code",)

    class Meta:
        constraints = [world_unique("shop_seasonal_code", "code")]

    def __str__(self):
        return self.name


class CartItem(WorldModel):
    account = WorldForeignKey(Account, on_delete=models.CASCADE, related_name="cart_items")
    variant = WorldForeignKey(Variant, on_delete=models.CASCADE, related_name="+", db_index=False)
    quantity = models.PositiveSmallIntegerField(default=1)
    saved_for_later = models.BooleanField(default=False)
    gift = models.BooleanField(default=False)
    gift_wrap = models.BooleanField(default=False)
    gift_message = models.CharField(max_length=240, blank=True)
    price_when_added = money_field()
    added_at = models.DateTimeField()

    public_key = ("account", "variant")

    class Meta:
        constraints = [world_unique("shop_cart_line", "account", "variant")]


class VisitorCartItem(WorldModel):
    """A line of a signed-out shopper's cart, keyed by a random token kept in their session
    (views.common.VISITOR); it moves into the account's cart at sign-in (services.visitor_cart_merge)."""

    visitor = models.CharField(max_length=32)
    variant = WorldForeignKey(Variant, on_delete=models.CASCADE, related_name="+", db_index=False)
    quantity = models.PositiveSmallIntegerField(default=1)
    price_when_added = money_field()
    added_at = models.DateTimeField()

    public_key = ("visitor", "variant")

    class Meta:
        constraints = [world_unique("shop_visitor_cart_line", "visitor", "variant")]


class BuyNowItem(WorldModel):
    """The one item Buy Now took straight to checkout: checkout then sells it alone and leaves the
    cart as it was (selectors.checkout_lines); going to checkout from the cart drops it."""

    account = WorldForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    variant = WorldForeignKey(Variant, on_delete=models.CASCADE, related_name="+", db_index=False)
    quantity = models.PositiveSmallIntegerField(default=1)
    price_when_added = money_field()
    added_at = models.DateTimeField()

    # gift options are set on a cart line; a Buy Now line is never a gift (checkout reads these)
    gift = False
    gift_wrap = False
    gift_message = ""

    public_key = ("account",)

    class Meta:
        constraints = [world_unique("shop_buy_now", "account")]


class ListItem(WorldModel):
    """A product on the shopper's list ("Add to List"), in the colour and size it was saved in."""

    account = WorldForeignKey(Account, on_delete=models.CASCADE, related_name="list_items")
    variant = WorldForeignKey(Variant, on_delete=models.CASCADE, related_name="+", db_index=False)
    added_at = models.DateTimeField()

    public_key = ("account", "variant")

    class Meta:
        constraints = [world_unique("shop_list_item", "account", "variant")]


class Order(WorldModel):
    class Status(models.TextChoices):
        PLACED = "placed", "Ordered"
        SHIPPED = "shipped", "Shipped"
        DELIVERED = "delivered", "Delivered"
        CANCELLED = "cancelled", "Cancelled"

    public_id = models.CharField(max_length=16)
    account = WorldForeignKey(Account, on_delete=models.CASCADE, related_name="orders")
    status = models.CharField(max_length=10, choices=Status.choices)
    placed_at = models.DateTimeField()
    ship_name = models.CharField(max_length=120)
    ship_line1 = models.CharField(max_length=200)
    ship_line2 = models.CharField(max_length=200, blank=True)
    ship_city = models.CharField(max_length=100)
    ship_state = models.CharField(max_length=2)
    ship_zip = models.CharField(max_length=10)
    speed = models.CharField(
        max_length=10,
        choices=[*SPEED_CHOICES, ("mixed", "Several delivery speeds")],
        help_text="The speed every item ships at, or 'mixed' (each item has its own).",
    )
    delivery_date = models.DateField(help_text="When the last shipment arrives.")
    subtotal = money_field()
    shipping = money_field()
    gift_wrap = money_field(default=0)
    discount = money_field(default=0, help_text="Promotion codes.")
    loyalty_pct = models.PositiveSmallIntegerField(
        default=0, help_text="The loyalty tier's discount when the order was placed."
    )
    loyalty_discount = money_field(default=0)
    tax = money_field()
    total = money_field()
    gift_card_amount = money_field(default=0)
    card = WorldForeignKey(Card, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False)
    promo_codes = models.JSONField(default=list, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_order_pid", "public_id")]

    @property
    def card_amount(self):
        return self.total - self.gift_card_amount

    @property
    def before_tax(self):
        return self.subtotal + self.shipping + self.gift_wrap - self.discount - self.loyalty_discount

    def address_line(self) -> str:
        return ", ".join(
            p for p in (self.ship_line1, self.ship_line2, self.ship_city, f"{self.ship_state} {self.ship_zip}") if p
        )


class OrderItem(WorldModel):
    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        CANCELLED = "cancelled", "Cancelled"
        RETURNED = "returned", "Returned"

    class CancelReason(models.TextChoices):
        # the store's own fixed list on its cancel page; the shopper must pick one
        MISTAKE = "mistake", "Order created by mistake"
        LATE = "late", "Item(s) would not arrive on time"
        SHIPPING_COST = "shipping_cost", "Shipping cost too high"
        CHEAPER = "cheaper", "Found cheaper somewhere else"
        ADDRESS = "address", "Need to change shipping address"
        OTHER = "other", "Other"

    order = WorldForeignKey(Order, on_delete=models.CASCADE, related_name="items")
    line = models.PositiveSmallIntegerField()
    variant = WorldForeignKey(Variant, on_delete=models.CASCADE, related_name="+", db_index=False)
    title = models.CharField(max_length=240)
    seller = WorldForeignKey(Seller, on_delete=models.CASCADE, related_name="+", db_index=False)
    quantity = models.PositiveSmallIntegerField()
    unit_price = money_field()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    cancel_reason = models.CharField(
        max_length=16,
        choices=CancelReason.choices,
        blank=True,
        help_text="Why the shopper cancelled the item (blank unless cancelled from the cancel page).",
    )
    delivered_at = models.DateTimeField(null=True, blank=True)
    speed = models.CharField(max_length=10, choices=SPEED_CHOICES)
    shipment = models.PositiveSmallIntegerField(default=1, help_text="Items of one seller at one speed ship together.")
    delivery_date = models.DateField()
    gift = models.BooleanField(default=False)
    gift_wrap = models.BooleanField(default=False)
    gift_message = models.CharField(max_length=240, blank=True)

    public_key = ("order", "line")

    class Meta:
        constraints = [world_unique("shop_order_line", "order", "line")]

    @property
    def amount(self):
        return self.unit_price * self.quantity


class SellerMessage(WorldModel):
    """A message a marketplace seller sent a customer (about an order, or a general notice)."""

    public_id = models.PositiveIntegerField()
    account = WorldForeignKey(Account, on_delete=models.CASCADE, related_name="messages")
    seller = WorldForeignKey(Seller, on_delete=models.CASCADE, related_name="+", db_index=False)
    order = WorldForeignKey(Order, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False)
    subject = models.CharField(max_length=200)
    body = models.TextField()
    sent_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_message_pid", "public_id")]


class RefundMethod(models.TextChoices):
    CARD = "card", "Original payment method"
    GIFT_CARD = "gift_card", "Gift card balance"


class ReturnRequest(WorldModel):
    class Reason(models.TextChoices):
        DAMAGED = "damaged", "Item arrived damaged"
        DEFECTIVE = "defective", "Item defective or doesn't work"
        WRONG_ITEM = "wrong_item", "Wrong item was sent"
        NOT_NEEDED = "not_needed", "No longer needed"
        NOT_AS_DESCRIBED = "not_as_described", "Not as described"

    class Status(models.TextChoices):
        REQUESTED = "requested", "Awaiting approval"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        REFUNDED = "refunded", "Refunded"
        REPLACED = "replaced", "Replacement sent"

    class Resolution(models.TextChoices):
        REFUND = "refund", "Refund"
        REPLACEMENT = "replacement", "Replacement"

    class DropOff(models.TextChoices):
        COUNTER = "counter", "Bazaaro Return Counter (no box, no label)"
        LOCKER = "locker", "Bazaaro Locker (box needed, no label)"
        CARRIER = "carrier", "Carrier drop-off (box and printed label)"

    public_id = models.CharField(max_length=16)
    item = WorldForeignKey(OrderItem, on_delete=models.CASCADE, related_name="returns")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    comment = models.CharField(max_length=500, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.REQUESTED)
    refund_method = models.CharField(
        max_length=10,
        choices=RefundMethod.choices,
        default=RefundMethod.CARD,
        help_text="Where the customer asked the refund to go once the return is approved.",
    )
    resolution = models.CharField(max_length=12, choices=Resolution.choices, default=Resolution.REFUND)
    quantity = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Units returned; blank: the whole line."
    )
    drop_off = models.CharField(max_length=10, choices=DropOff.choices, blank=True)
    requested_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_return_pid", "public_id")]

    @property
    def units(self) -> int:
        return self.quantity or self.item.quantity


class Refund(WorldModel):
    Method = RefundMethod

    public_id = models.CharField(max_length=16)
    order = WorldForeignKey(Order, on_delete=models.CASCADE, related_name="refunds")
    item = WorldForeignKey(
        OrderItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="refunds", db_index=False
    )
    return_request = WorldForeignKey(
        ReturnRequest, null=True, blank=True, on_delete=models.SET_NULL, related_name="refunds", db_index=False
    )
    amount = money_field()
    method = models.CharField(max_length=10, choices=Method.choices)
    reason = models.CharField(max_length=200)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("shop_refund_pid", "public_id")]


class Replacement(WorldModel):
    """A damaged, defective or wrong line sent again: the back office's replacement order, at no
    charge, linked to the line it replaces (a line is replaced once)."""

    class Reason(models.TextChoices):
        DAMAGED = "damaged", "Item arrived damaged"
        DEFECTIVE = "defective", "Item defective or doesn't work"
        WRONG_ITEM = "wrong_item", "Wrong item was sent"

    item = WorldForeignKey(OrderItem, on_delete=models.CASCADE, related_name="replacements")
    order = WorldForeignKey(Order, on_delete=models.CASCADE, related_name="replaces")
    quantity = models.PositiveSmallIntegerField()
    reason = models.CharField(max_length=12, choices=Reason.choices)
    created_at = models.DateTimeField()

    public_key = ("item",)

    class Meta:
        constraints = [world_unique("shop_replacement_item", "item")]
