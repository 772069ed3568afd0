"""Seed generator of the shop: a marketplace storefront with its sellers, catalogue, customers,
carts, order history (split into shipments), questions and answers, and sellers' messages, as of
the world clock.

Everything is drawn from gen.random / gen.faker in a fixed order; timestamps are offsets
from the world clock. Order statuses follow their dates (delivered once the delivery date has
passed), so a return window or a "cancel before shipping" is consistent with what the page
shows. Variant knobs: `products`, `customers`, `orders` set the size, `layers` switches the
messy data on (see LAYERS).
"""

from datetime import datetime, time, timedelta
from decimal import Decimal

from . import policies, selectors
from .models import (
    Account,
    Address,
    Answer,
    Card,
    CartItem,
    Coupon,
    Order,
    OrderItem,
    Product,
    Question,
    Refund,
    ReturnRequest,
    Review,
    SeasonalSale,
    Seller,
    SellerMessage,
    Variant,
)

LAYERS = (
    "expiring_deals",  # deals that end within hours of the world clock, some already over
    "price_changes",  # cart lines whose price changed since they went into the cart
    "out_of_stock",  # variants with nothing left
    "legacy_addresses",  # addresses imported from the old store: no ZIP code or state
    "messy_cards",  # expired cards and the same card saved twice
    "conflicting_policies",  # two marketplace sellers of one name with different return windows
    "near_duplicates",  # the same item listed again by another seller, slightly renamed
    "loyalty_tiers",  # reward points across the tiers, some a few points short of the next one
    "multi_currency",  # shoppers who see prices in euros, pounds, Canadian dollars, yen or Swiss francs
    # department-wide seasonal sales: one ending within the episode, one running, one over, one to come
    "seasonal_pricing",
)

DEPARTMENTS = {
    "electronics": (
        ["Voltra", "Nexa", "Sonique", "Kestrel", "Ampere"],
        [
            "Wireless Earbuds",
            "Bluetooth Speaker",
            "USB-C Charger",
            "Noise Cancelling Headphones",
            "Smart Plug",
            "Webcam",
            "Portable Power Bank",
            "Mechanical Keyboard",
            "Wireless Mouse",
            "HDMI Cable",
        ],
    ),
    "home": (
        ["Hearthly", "Nordwick", "Casa Verde", "Brimwell"],
        [
            "Pour-Over Coffee Maker",
            "Chef's Knife",
            "Nonstick Skillet",
            "Bath Towel Set",
            "Table Lamp",
            "Storage Bins",
            "French Press",
            "Cutting Board",
            "Throw Blanket",
            "Air Purifier",
        ],
    ),
    "clothing": (
        ["Trailpine", "Urbanite", "Marlow & Finch", "Softstep"],
        [
            "Running Shoes",
            "Crew Neck T-Shirt",
            "Rain Jacket",
            "Wool Socks",
            "Hoodie",
            "Chino Pants",
            "Baseball Cap",
            "Fleece Vest",
        ],
    ),
    "sports": (
        ["Summitline", "Aquafit", "Ridgeway", "Pacer"],
        [
            "Yoga Mat",
            "Insulated Water Bottle",
            "Resistance Bands",
            "Camping Lantern",
            "Trekking Poles",
            "Jump Rope",
            "Foam Roller",
            "Daypack",
        ],
    ),
    "books": (
        ["Lantern House", "Quillmark", "Bluefield Press"],
        [
            "Field Guide to Birds",
            "Sourdough Basics",
            "A History of Maps",
            "Beginner's Python",
            "The Quiet Garden",
            "Night Sky Atlas",
        ],
    ),
    "toys": (
        ["Tinker Bay", "Blockwise", "Puddle & Co"],
        ["Building Blocks Set", "Wooden Puzzle", "Remote Control Car", "Plush Bear", "Marble Run", "Card Game"],
    ),
}
ADJECTIVES = ["Pro", "Classic", "Compact", "Ultra", "Essential", "Premium", "Lite", "Max", "Eco", "Plus"]
COLOURS = ["Black", "White", "Navy", "Sage", "Charcoal", "Coral", "Sand"]
SIZES = {"clothing": ["S", "M", "L", "XL"], "sports": ["", "Small", "Large"]}
SELLER_NAMES = [
    "Bazaaro Retail",
    "Northgate Goods",
    "Keystone Outlet",
    "Bright Harbor Co.",
    "Maple & Main",
    "Sunline Traders",
    "Cobalt Supply",
    "Wildflower Market",
    "Ironbridge Direct",
    "Pebble Lane",
    "Orchard Street",
    "Blue Mesa Shop",
    "Harbor Point",
    "Fernway Store",
    "Quarry Hill",
    "Silverleaf Sales",
    "Tallgrass Trading",
    "Copperline",
    "Juniper Depot",
    "Westbrook Deals",
]
REVIEW_TITLES = {
    5: ["Exactly what I needed", "Love it", "Great value"],
    4: ["Very good", "Solid, minor quibbles"],
    3: ["It's okay", "Does the job"],
    2: ["Disappointed", "Not as pictured"],
    1: ["Broke in a week", "Do not buy"],
}
REASONS = [c for c, _ in ReturnRequest.Reason.choices]
WARRANTY_MONTHS = [6, 12, 18, 24, 36]
# Questions shoppers ask and how they get answered: (question, answer, answered by the seller)
QUESTIONS = [
    (
        "How long is the warranty on this?",
        "{brand} covers it with a {months}-month limited warranty from the delivery date.",
        True,
    ),
    ("What are the dimensions?", "It measures {a} x {b} x {c} inches and weighs {oz} ounces.", True),
    (
        "Can this be shipped to a P.O. box?",
        "Standard Shipping can go to a P.O. box; Two-Day and One-Day Shipping cannot.",
        True,
    ),
    (
        "Does the {colour} one look like the photos?",
        "The {colour} is a little darker in person than in the pictures.",
        False,
    ),
    ("Does it come in the original packaging?", "Mine came in the original {brand} box, sealed.", False),
    ("Is it worth the price?", "I have used mine for {used} months and it still works like new.", False),
]
MESSAGES = [
    (
        "Your order {order} has shipped",
        "Hello {name}, your item from {seller} is on its way. Thank you for shopping with us.",
    ),
    (
        "How was your purchase?",
        "Hi {name}, we hope you like your order {order}. If anything is wrong, reply here before opening a return.",
    ),
    (
        "A short delay on {order}",
        "Dear {name}, our warehouse is a day behind. Your order {order} still arrives by the date shown.",
    ),
]
CURRENCY_CODES = ["EUR", "GBP", "CAD", "JPY", "CHF"]
# Seasonal sales (code, name, department, % off, start and end as offsets from the world clock):
# the first ends 90 minutes into an episode, so a cart priced at it notices the change
SEASONAL_SALES = [
    ("winter-warm-up", "Winter Warm-Up", "clothing", 20, timedelta(days=-6), timedelta(minutes=90)),
    ("outdoor-days", "Outdoor Days", "sports", 15, timedelta(days=-2), timedelta(days=9)),
    ("back-to-school", "Back to School", "books", 25, timedelta(days=-40), timedelta(days=-4)),
    ("holiday-toys", "Holiday Toy Sale", "toys", 10, timedelta(days=2), timedelta(days=20)),
]
PRICES = [
    Decimal(p)
    for p in (
        "7.99",
        "9.99",
        "12.49",
        "14.99",
        "18.99",
        "19.99",
        "24.99",
        "29.99",
        "34.99",
        "39.99",
        "44.99",
        "49.99",
        "59.99",
        "64.99",
        "79.99",
        "89.99",
        "99.99",
        "129.99",
        "149.99",
    )
]


class Seeder:
    def __init__(self, gen):
        self.gen = gen
        self.r = gen.random
        self.f = gen.faker
        self.now = gen.now
        self.knobs = gen.knobs
        self.layers = set(gen.knobs.get("layers", ()))
        self.sellers, self.products, self.variants, self.customers = [], [], [], []
        self.addresses, self.cards = {}, {}
        self.order_no, self.return_no, self.refund_no = 4000, 1000, 5000
        self.orders = []  # (order, the seller of its first item)
        self.colours = {}  # ASIN -> the colours of its variants
        self.sales = []  # the seasonal sales (seasonal_pricing layer)

    def layer(self, name: str) -> bool:
        return name in self.layers

    def at(self, days_ago: float) -> datetime:
        return self.now - timedelta(days=days_ago)

    # --- sellers and catalogue ------------------------------------------------------------------

    def sellers_make(self):
        windows = [30, 30, 30, 14, 60, 90, 7]
        for i, name in enumerate(SELLER_NAMES):
            window = 30 if i == 0 else self.r.choice(windows)
            fee = 0 if i == 0 else self.r.choice([0, 0, 10, 15])
            self.sellers.append(
                self.gen.add(
                    Seller(
                        public_id=101 + i,
                        name=name,
                        return_window_days=window,
                        restocking_fee_pct=fee,
                        policy_text=self.policy(window, fee),
                        rating=Decimal(self.r.randint(38, 50)) / 10,
                        ships_from="Bazaaro" if i == 0 else name,
                    )
                )
            )
        if self.layer("conflicting_policies"):
            # the same storefront name registered twice, each with its own window
            twin = self.sellers[3]
            self.sellers.append(
                self.gen.add(
                    Seller(
                        public_id=101 + len(self.sellers),
                        name=twin.name,
                        return_window_days=7 if twin.return_window_days != 7 else 30,
                        restocking_fee_pct=20,
                        policy_text=self.policy(7 if twin.return_window_days != 7 else 30, 20),
                        rating=Decimal("3.9"),
                        ships_from=twin.name,
                    )
                )
            )

    @staticmethod
    def policy(window: int, fee: int) -> str:
        text = f"Returnable within {window} days of delivery for a full refund to the original payment method."
        if fee:
            text += f" Opened items that are not damaged or defective carry a {fee}% restocking fee."
        return text

    def products_make(self):
        count = self.knobs["products"]
        departments = list(DEPARTMENTS)
        for n in range(count):
            dept = departments[n % len(departments)]
            brands, nouns = DEPARTMENTS[dept]
            brand, noun = self.r.choice(brands), self.r.choice(nouns)
            title = f"{brand} {noun} {self.r.choice(ADJECTIVES)}"
            if self.r.random() < 0.5:
                title += f", {self.r.choice(['2-Pack', 'Gen 2', '2026 Model', 'Large', 'Travel Size', 'Set of 4'])}"
            price = self.r.choice(PRICES)
            list_price = price if self.r.random() < 0.6 else policies.cents(price * Decimal("1.25"))
            product = self.add_product(dept, brand, title, price, list_price, n)
            self.variants_make(product, price)
        if self.layer("near_duplicates"):
            for original in self.products[: max(3, count // 40)]:
                copy = self.add_product(
                    original.department,
                    original.brand,
                    original.title.replace(" ", "  ", 1) + " - New",
                    original.list_price - Decimal("1.00"),
                    original.list_price,
                    len(self.products),
                )
                self.variants_make(copy, copy.list_price)
        self.bought_together_make()

    def bought_together_make(self):
        """Two items of the same department per product, as the order history pairs them."""
        by_dept = {}
        for p in self.products:
            by_dept.setdefault(p.department, []).append(p)
        for p in self.products:
            others = [o for o in by_dept[p.department] if o.asin != p.asin]
            p.bought_together = [o.asin for o in self.r.sample(others, min(2, len(others)))]

    def add_product(self, dept, brand, title, price, list_price, n) -> Product:
        rating = Decimal(self.r.choice([28, 33, 36, 39, 41, 42, 43, 44, 45, 46, 47, 48])) / 10
        deal_price = deal_end = None
        roll = self.r.random()
        if roll < 0.15:
            deal_price = policies.cents(price * Decimal(self.r.choice(["0.8", "0.75", "0.85"])))
            deal_end = self.now + timedelta(hours=self.r.randint(20, 96))
        elif roll < 0.2 and self.layer("expiring_deals"):
            deal_price = policies.cents(price * Decimal("0.7"))
            # some end while an episode runs, some ended a little while ago and still sit in caches
            deal_end = self.now + timedelta(minutes=self.r.choice([-90, -30, 20, 45]))
        product = self.gen.add(
            Product(
                asin=f"B0{self.r.getrandbits(40):010X}"[:10],
                title=title,
                brand=brand,
                department=dept,
                seller=self.sellers[0] if self.r.random() < 0.35 else self.r.choice(self.sellers),
                description=self.f.paragraph(nb_sentences=3),
                list_price=list_price,
                rating=rating,
                review_count=self.r.randint(3, 4800),
                deal_price=deal_price,
                deal_ends_at=deal_end,
                sponsored=self.r.random() < 0.06,
                fast_eligible=self.r.random() < 0.7,
                standard_days=self.r.randint(3, 8),
                hue=self.r.randrange(360),
                shape=self.r.randrange(4),
            )
        )
        self.products.append(product)
        return product

    def variants_make(self, product, price):
        sizes = SIZES.get(product.department, [""])
        colours = self.r.sample(COLOURS, self.r.choice([1, 1, 2, 3]))
        size_list = self.r.sample(sizes, min(len(sizes), self.r.choice([1, 2, 3]))) if sizes != [""] else [""]
        if product.department == "clothing":
            size_list = [s for s in sizes if s in size_list]
        k = 0
        for colour in colours:
            for size in size_list:
                k += 1
                stock = self.r.choice([3, 8, 15, 40, 120])
                if self.layer("out_of_stock") and self.r.random() < 0.12:
                    stock = 0
                bump = Decimal("0.00") if size in ("", "S", "M", "Small") else Decimal("2.00")
                v = self.gen.add(
                    Variant(
                        sku=f"{product.asin}-{k}",
                        product=product,
                        colour=colour,
                        size=size,
                        price=price + bump,
                        stock=stock,
                    )
                )
                self.variants.append(v)
        self.colours[product.asin] = colours

    def reviews_make(self):
        per = self.knobs.get("reviews_per_product", 3)
        n = 0
        for product in self.products:
            for _ in range(self.r.randint(max(0, per - 2), per + 2)):
                n += 1
                stars = max(1, min(5, round(float(product.rating) + self.r.choice([-2, -1, 0, 0, 0, 1]))))
                self.gen.add(
                    Review(
                        public_id=n,
                        product=product,
                        author=self.f.name(),
                        rating=stars,
                        title=self.r.choice(REVIEW_TITLES[stars]),
                        body=self.f.sentence(nb_words=18),
                        verified=self.r.random() < 0.85,
                        created_at=self.at(self.r.uniform(2, 400)),
                    )
                )

    def questions_make(self):
        q_no = a_no = 0
        for product in self.products:
            if self.r.random() > 0.25:
                continue
            colour = self.colours[product.asin][0]
            for template, answer, by_seller in self.r.sample(QUESTIONS, self.r.choice([1, 2, 2])):
                q_no += 1
                asked = self.at(self.r.uniform(3, 300))
                question = self.gen.add(
                    Question(
                        public_id=q_no,
                        product=product,
                        author=self.f.first_name(),
                        text=template.format(colour=colour),
                        asked_at=asked,
                    )
                )
                words = {
                    "brand": product.brand,
                    "months": self.r.choice(WARRANTY_MONTHS),
                    "colour": colour,
                    "a": self.r.randint(3, 20),
                    "b": self.r.randint(2, 14),
                    "c": self.r.randint(1, 9),
                    "oz": self.r.randint(4, 90),
                    "used": self.r.randint(2, 18),
                }
                for _ in range(1 if by_seller else self.r.choice([0, 1, 2])):
                    a_no += 1
                    self.gen.add(
                        Answer(
                            public_id=a_no,
                            question=question,
                            by_seller=by_seller,
                            author=product.seller.name if by_seller else self.f.first_name(),
                            text=answer.format(**words),
                            helpful=self.r.randint(0, 60),
                            answered_at=asked + timedelta(hours=self.r.uniform(2, 72)),
                        )
                    )

    def coupons_make(self):
        specs = [
            ("SAVE10", "percent", "10", "0", "", False, 30),
            ("TAKE15", "amount", "15", "75", "", False, 20),
            ("HOME20", "percent", "20", "0", "home", False, 10),
            ("TECH5", "amount", "5", "25", "electronics", True, 25),
            ("FREESHIP", "amount", "5.99", "0", "", True, 40),
            ("SPRING25", "percent", "25", "0", "", False, -3),
            ("BOOKS3", "amount", "3", "0", "books", True, 15),
            ("WELCOME5", "amount", "5", "20", "", True, 60),
        ]
        for code, kind, value, minimum, dept, stack, days in specs:
            self.gen.add(
                Coupon(
                    code=code,
                    kind=kind,
                    value=Decimal(value),
                    min_subtotal=Decimal(minimum),
                    department=dept,
                    stackable=stack,
                    expires_at=self.now + timedelta(days=days),
                )
            )

    def seasonal_make(self):
        """The seasonal sales (no random draws: the other layers come out the same with or without it)."""
        self.sales = []
        if not self.layer("seasonal_pricing"):
            return
        for code, name, dept, pct, start, end in SEASONAL_SALES:
            self.sales.append(
                self.gen.add(
                    SeasonalSale(
                        code=code,
                        name=name,
                        department=dept,
                        percent_off=pct,
                        starts_at=self.now + start,
                        ends_at=self.now + end,
                    )
                )
            )

    def price_at(self, variant, at: datetime) -> Decimal:
        """The variant's price at `at` with its department's seasonal sale (deals aside, as before)."""
        pct = max(
            (
                s.percent_off
                for s in self.sales
                if s.department == variant.product.department and s.starts_at <= at < s.ends_at
            ),
            default=0,
        )
        return policies.seasonal_price(variant.price, pct) if pct else variant.price

    # --- people -----------------------------------------------------------------------------------

    def accounts_make(self):
        for i in range(3):
            name = self.f.name()
            self.gen.add(
                Account(
                    public_id=1 + i,
                    name=name,
                    email=f"{name.split()[0].lower()}.ops{i + 1}@bazaaro-staff.test",
                    role=Account.Role.STAFF,
                    created_at=self.at(900),
                )
            )
        emails = set()
        for i in range(self.knobs["customers"]):
            name = self.f.name()
            domain = self.r.choice(["example.com", "mail.test", "inbox.test"])
            email = f"{name.lower().replace(' ', '.').replace(chr(39), '')}@{domain}"
            if email in emails:
                email = email.replace("@", f"{i}@")
            emails.add(email)
            points = 0
            if self.layer("loyalty_tiers"):
                points = self.r.randint(0, 4000)
                if self.r.random() < 0.1:  # a few points short of the next tier
                    points = self.r.choice(policies.TIERS[:-1]).min_points - self.r.randint(1, 20)
            currency = "USD"
            if self.layer("multi_currency") and self.r.random() < 0.25:
                currency = self.r.choice(CURRENCY_CODES)
            account = self.gen.add(
                Account(
                    public_id=1001 + i,
                    name=name,
                    email=email,
                    member=self.r.random() < 0.4,
                    loyalty_points=points,
                    currency=currency,
                    created_at=self.at(self.r.uniform(30, 1500)),
                    gift_card_balance=self.r.choice(
                        [Decimal(0), Decimal(0), Decimal("10.00"), Decimal("25.00"), Decimal("37.50")]
                    ),
                )
            )
            self.customers.append(account)
            self.addresses_make(account)
            self.cards_make(account)

    def addresses_make(self, account):
        rows = []
        for k in range(self.r.choice([1, 2, 2, 3])):
            state = self.r.choice(policies.STATES)
            legacy = k > 0 and self.layer("legacy_addresses") and self.r.random() < 0.35
            full_name = account.name if k == 0 or self.r.random() < 0.6 else self.f.name()
            rows.append(
                self.gen.add(
                    Address(
                        public_id=account.public_id * 10 + k,
                        account=account,
                        full_name=full_name,
                        line1=self.f.street_address(),
                        line2=self.r.choice(["", "", f"Apt {self.r.randint(1, 40)}"]),
                        city=self.f.city(),
                        state="" if legacy and self.r.random() < 0.5 else state,
                        zip_code="" if legacy else f"{self.r.randint(10000, 99950)}",
                        phone=self.f.numerify("###-###-####"),
                        is_default=k == 0,
                    )
                )
            )
        self.addresses[account.public_id] = rows

    def cards_make(self, account):
        rows = []
        year = self.now.year
        for k in range(self.r.choice([1, 2, 2, 3])):
            brand = self.r.choice(["Visa", "Visa", "Mastercard", "Amex", "Discover"])
            rows.append(
                self.gen.add(
                    Card(
                        public_id=account.public_id * 10 + k,
                        account=account,
                        brand=brand,
                        last4=f"{self.r.randint(0, 9999):04d}",
                        exp_month=self.r.randint(1, 12),
                        exp_year=year + self.r.randint(1, 5),
                        holder=account.name,
                        requires_3ds=self.r.random() < 0.3,
                        is_default=k == 0,
                    )
                )
            )
        if self.layer("messy_cards") and self.r.random() < 0.3:
            first = rows[0]
            # the same card saved twice, and an old one that has expired
            rows.append(
                self.gen.add(
                    Card(
                        public_id=account.public_id * 10 + len(rows),
                        account=account,
                        brand=first.brand,
                        last4=first.last4,
                        exp_month=first.exp_month,
                        exp_year=first.exp_year,
                        holder=account.name,
                    )
                )
            )
            rows.append(
                self.gen.add(
                    Card(
                        public_id=account.public_id * 10 + len(rows),
                        account=account,
                        brand="Visa",
                        last4=f"{self.r.randint(0, 9999):04d}",
                        exp_month=self.r.randint(1, 12),
                        exp_year=year - self.r.randint(1, 3),
                        holder=account.name,
                    )
                )
            )
        self.cards[account.public_id] = rows

    def carts_make(self):
        for account in self.customers:
            taken = set()
            for _ in range(self.r.choice([0, 1, 2, 3, 3])):
                variant = self.r.choice(self.variants)
                if variant.sku in taken:
                    continue
                taken.add(variant.sku)
                price = self.price_at(variant, self.now)  # a seasonal sale's price, while it runs
                if self.layer("price_changes") and self.r.random() < 0.2:
                    price = price + self.r.choice([Decimal("-2.00"), Decimal("3.00"), Decimal("5.00")])
                self.gen.add(
                    CartItem(
                        account=account,
                        variant=variant,
                        quantity=self.r.choice([1, 1, 2]),
                        saved_for_later=self.r.random() < 0.15,
                        price_when_added=price,
                        added_at=self.at(self.r.uniform(0.2, 20)),
                    )
                )

    # --- orders -----------------------------------------------------------------------------------

    def orders_make(self):
        count = self.knobs["orders"]
        for i in range(count):
            account = self.customers[i % len(self.customers)]
            # a share of orders from the last day, not yet shipped (they can still be changed or cancelled)
            recent = self.r.random() < 0.15
            self.order_make(account, self.r.uniform(0.05, 0.95) if recent else self.r.uniform(1, 120))

    def order_make(self, account, days_ago: float):
        address = next((a for a in self.addresses[account.public_id] if a.zip_code and a.state), None)
        if address is None:
            return
        self.order_no += self.r.randint(1, 9)
        placed = self.at(days_ago)
        speed = self.r.choice(["standard", "standard", "fast", "nextday"])
        if not policies.speed_served(speed, address.state):  # a remote zone has no One-Day Shipping
            speed = "fast"
        lines = self.r.sample(self.variants, self.r.choice([1, 1, 2, 2, 3]))
        standard_days = max(v.product.standard_days for v in lines)
        delivery = policies.delivery_date(
            speed=speed, standard_days=standard_days, today=placed.date(), state=address.state
        )
        delivered_at = datetime.combine(delivery, time(15, 30), tzinfo=self.now.tzinfo)
        if delivered_at <= self.now:
            status = Order.Status.DELIVERED
        elif days_ago > 1:
            status = Order.Status.SHIPPED
        else:
            status = Order.Status.PLACED
        if self.r.random() < 0.04:
            status = Order.Status.CANCELLED
        quantities = [self.r.choice([1, 1, 1, 2]) for _ in lines]
        gifts = [self.r.random() < 0.05 for _ in lines]
        unit_prices = [self.price_at(v, placed) for v in lines]
        subtotal = sum((p * q for p, q in zip(unit_prices, quantities, strict=True)), Decimal(0))
        shipping = policies.shipping_fee(speed=speed, subtotal=subtotal, member=account.member)
        wrap = sum((policies.GIFT_WRAP_FEE * q for q, g in zip(quantities, gifts, strict=True) if g), Decimal("0.00"))
        pct = policies.loyalty_tier(account.loyalty_points).discount_pct
        loyalty = policies.loyalty_discount(subtotal, pct)
        tax = policies.tax_for(subtotal - loyalty, address.state)
        total = subtotal + shipping + wrap - loyalty + tax
        gift = min(account.gift_card_balance, total) if self.r.random() < 0.1 else Decimal(0)
        usable = [c for c in self.cards[account.public_id] if (c.exp_year, c.exp_month) >= (placed.year, placed.month)]
        order = self.gen.add(
            Order(
                public_id=f"ORD-{self.order_no}",
                account=account,
                status=status,
                placed_at=placed,
                ship_name=address.full_name,
                ship_line1=address.line1,
                ship_line2=address.line2,
                ship_city=address.city,
                ship_state=address.state,
                ship_zip=address.zip_code,
                speed=speed,
                delivery_date=delivery,
                subtotal=subtotal,
                shipping=shipping,
                gift_wrap=wrap,
                loyalty_pct=pct,
                loyalty_discount=loyalty,
                tax=tax,
                total=total,
                gift_card_amount=gift,
                card=usable[0] if usable and gift < total else None,
            )
        )
        items = []
        reasons = OrderItem.CancelReason.values
        shipment_of = {}  # one shipment per seller: the order's single speed
        for line, (variant, qty, gift, unit_price) in enumerate(
            zip(lines, quantities, gifts, unit_prices, strict=True), start=1
        ):
            seller = variant.product.seller
            items.append(
                self.gen.add(
                    OrderItem(
                        order=order,
                        line=line,
                        variant=variant,
                        title=self.item_title(variant),
                        seller=seller,
                        quantity=qty,
                        unit_price=unit_price,
                        status=OrderItem.Status.CANCELLED
                        if status == Order.Status.CANCELLED
                        else OrderItem.Status.ACTIVE,
                        # a cancelled order's reason by its position, not drawn: the draws of the
                        # rest of the world stay as they were
                        cancel_reason=reasons[len(self.orders) % len(reasons)]
                        if status == Order.Status.CANCELLED
                        else "",
                        delivered_at=delivered_at if status == Order.Status.DELIVERED else None,
                        speed=speed,
                        shipment=shipment_of.setdefault(seller.public_id, len(shipment_of) + 1),
                        delivery_date=delivery,
                        gift=gift,
                        gift_wrap=gift,
                        gift_message=self.f.sentence(nb_words=7) if gift else "",
                    )
                )
            )
        self.orders.append((order, items[0].seller))
        if status == Order.Status.DELIVERED:
            self.returns_make(order, items)

    @staticmethod
    def item_title(variant) -> str:
        label = variant.label()
        return f"{variant.product.title} ({label})" if label else variant.product.title

    def returns_make(self, order, items):
        for item in items:
            roll = self.r.random()
            if roll > 0.12:
                continue
            deadline = policies.return_deadline(
                delivered_at=item.delivered_at, window_days=item.seller.return_window_days
            )
            requested = min(self.now - timedelta(hours=2), item.delivered_at + timedelta(days=self.r.uniform(1, 40)))
            if requested <= item.delivered_at:
                continue
            self.return_no += 1
            reason = self.r.choice(REASONS)
            pending = roll < 0.06
            if pending:
                status = ReturnRequest.Status.REQUESTED
            else:
                status = ReturnRequest.Status.REFUNDED if requested <= deadline else ReturnRequest.Status.REJECTED
            ret = self.gen.add(
                ReturnRequest(
                    public_id=f"RMA-{self.return_no}",
                    item=item,
                    reason=reason,
                    status=status,
                    requested_at=requested,
                    comment=self.f.sentence(nb_words=10),
                    decided_at=None if pending else requested + timedelta(hours=20),
                )
            )
            if status == ReturnRequest.Status.REFUNDED:
                self.refund_no += self.r.randint(1, 5)
                item.status = OrderItem.Status.RETURNED
                self.gen.add(
                    Refund(
                        public_id=f"RF-{self.refund_no}",
                        order=order,
                        item=item,
                        return_request=ret,
                        amount=selectors.refund_for_return(ret),
                        method=Refund.Method.CARD,
                        reason=ret.get_reason_display(),
                        created_at=ret.decided_at,
                    )
                )

    def messages_make(self):
        """Sellers write to a share of customers about one of their orders."""
        by_account = {}
        for order, seller in self.orders:
            by_account.setdefault(order.account.public_id, []).append((order, seller))
        n = 0
        for account in self.customers:
            orders = by_account.get(account.public_id)
            if not orders or self.r.random() > 0.35:
                continue
            order, seller = self.r.choice(orders)
            subject, body = self.r.choice(MESSAGES)
            n += 1
            words = {"order": order.public_id, "name": account.first_name, "seller": seller.name}
            self.gen.add(
                SellerMessage(
                    public_id=n,
                    account=account,
                    seller=seller,
                    order=order,
                    subject=subject.format(**words),
                    body=body.format(**words),
                    sent_at=order.placed_at + timedelta(hours=self.r.uniform(3, 30)),
                )
            )


def generate(gen):
    s = Seeder(gen)
    s.sellers_make()
    s.products_make()
    s.reviews_make()
    s.questions_make()
    s.coupons_make()
    s.seasonal_make()
    s.accounts_make()
    s.carts_make()
    s.orders_make()
    s.messages_make()
