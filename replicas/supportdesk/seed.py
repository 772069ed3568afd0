"""Seed generator of the support desk: an online electronics shop's help desk in a busy week.

Everything is drawn from gen.random / gen.faker in a fixed order; timestamps are
offsets back from the world clock. Tickets tell stories the data backs up: a
"charged twice" ticket's order really has two charges, a solved refund ticket has
its refund. Variant knobs switch on messy layers (see LAYERS).
"""

import re
from datetime import timedelta
from decimal import Decimal

from . import policies
from .models import (
    AccountEvent,
    Article,
    Automation,
    Comment,
    Group,
    Identity,
    IdentityVerification,
    Macro,
    Membership,
    Order,
    OrderItem,
    Organization,
    Payment,
    Refund,
    SlaPolicy,
    Subscription,
    Ticket,
    TicketEvent,
    TicketFollower,
    Trigger,
    User,
    View,
)

LAYERS = (
    "duplicate_charges",  # extra duplicate captures nobody reported, some already refunded
    "cancelled_fulfilled",  # orders marked cancelled that were shipped anyway
    "legacy_dates",  # tickets imported from the old desk with a text date "03/02/26 09:15 AM"
    "stale_customers",  # profiles with an outdated email/phone; the new one only in a ticket
    "conflicting_policies",  # an old refund policy article still published, contradicting the current one
    "near_duplicate_customers",  # the same person twice: same name, another email
)

GROUPS = [
    ("Support", "Front line: every new ticket lands here"),
    ("Tier 2 Billing", "Refunds above policy, chargebacks, invoices"),
    ("Tier 2 Technical", "Bugs, outages and integrations"),
    ("Accounts & Security", "Password resets, 2FA, account unlocks"),
]
SUPPORT, BILLING, TECHNICAL, SECURITY = range(4)

# sku, product, name, price in USD
CATALOGUE = [
    ("AUR-100", "aurora_lamp", "Aurora Desk Lamp", Decimal("49.00")),
    ("AUR-200", "aurora_lamp", "Aurora Floor Lamp", Decimal("129.00")),
    ("NIM-300", "nimbus_headphones", "Nimbus Headphones", Decimal("199.00")),
    ("NIM-310", "nimbus_headphones", "Nimbus Earbuds", Decimal("89.00")),
    ("TER-050", "terra_bottle", "Terra Water Bottle", Decimal("24.00")),
    ("VLT-065", "volt_charger", "Volt 65W Charger", Decimal("39.00")),
    ("VLT-140", "volt_charger", "Volt 140W Charger", Decimal("79.00")),
    ("ORB-K75", "orbit_keyboard", "Orbit Keyboard", Decimal("149.00")),
    ("PLS-W02", "pulse_watch", "Pulse Watch", Decimal("329.00")),
    ("PLS-B01", "pulse_watch", "Pulse Watch Band", Decimal("29.00")),
]
RATES = {"USD": Decimal("1"), "EUR": Decimal("0.92"), "GBP": Decimal("0.79"), "CAD": Decimal("1.36")}
CURRENCY_WEIGHTS = [("USD", 50), ("EUR", 20), ("GBP", 15), ("CAD", 15)]
SHIPPING = {"USD": Decimal("7.95"), "EUR": Decimal("6.95"), "GBP": Decimal("5.95"), "CAD": Decimal("9.95")}
PLANS = {  # plan -> monthly price in USD
    "starter": Decimal("12.00"),
    "pro": Decimal("29.00"),
    "business": Decimal("79.00"),
}
TIER_WEIGHTS = [("", 50), ("bronze", 20), ("silver", 15), ("gold", 10), ("platinum", 5)]
CARD_BRANDS = [("Visa", 55), ("Mastercard", 35), ("Amex", 10)]
ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

# kind: (subject, opening message, type, tags, group the work belongs to)
TOPICS = {
    "duplicate": (
        "Charged twice for order {order}",
        "Hi, I was charged twice for my order {order}. My bank shows two payments of {amount}. Can you refund "
        "the duplicate?",
        "incident",
        ["billing", "duplicate_charge"],
        BILLING,
    ),
    "refund_damaged": (
        "Refund request for {order}",
        "Hello, I would like a refund for order {order}. The {item} arrived damaged: the casing is cracked.",
        "question",
        ["billing", "refund"],
        SUPPORT,
    ),
    "missing_item": (
        "Partial refund for missing item",
        "One of the items in order {order} was missing from the box: the {item}. I'd like a refund for that item only.",
        "incident",
        ["billing", "refund", "missing_item"],
        SUPPORT,
    ),
    "wismo": (
        "Where is my order {order}?",
        "My order {order} was supposed to arrive three days ago. Tracking hasn't updated since Monday.",
        "question",
        ["shipping", "wismo"],
        SUPPORT,
    ),
    "wrong_item": (
        "Wrong item received",
        "I ordered the {item} but received something else (order {order}). How do I exchange it?",
        "incident",
        ["shipping", "exchange"],
        SUPPORT,
    ),
    "cancel_sub": (
        "Cancel my subscription",
        "Please cancel my {plan} subscription and refund the unused part of this period. I don't want to be "
        "charged again.",
        "task",
        ["billing", "cancellation", "subscription"],
        BILLING,
    ),
    "invoice": (
        "Invoice needs our VAT number",
        "Our finance team needs the VAT number on the invoice for {order}. Can you reissue it?",
        "task",
        ["billing", "invoice"],
        BILLING,
    ),
    "login": (
        "Can't log in to my account",
        "I keep getting 'invalid password' and the reset email never arrives. Please help.",
        "incident",
        ["account", "login", "password"],
        SECURITY,
    ),
    "twofactor": (
        "Please reset my two-factor authentication",
        "I lost my phone and can't get the 2FA codes anymore. How do I get back in?",
        "task",
        ["account", "2fa"],
        SECURITY,
    ),
    "locked": (
        "Account locked after too many attempts",
        "My account says it's locked. I need access today for a client demo.",
        "incident",
        ["account", "locked"],
        SECURITY,
    ),
    "bug": (
        "App crashes when exporting reports",
        "Every time I export a report to CSV the page goes blank. This started after the last update.",
        "problem",
        ["bug", "export"],
        TECHNICAL,
    ),
    "plans": (
        "Question about the Pro plan",
        "What is the difference between the Pro and the Business plan? Do both include SSO?",
        "question",
        ["sales", "plans"],
        SUPPORT,
    ),
}
TOPIC_WEIGHTS = [
    ("duplicate", 10),
    ("refund_damaged", 12),
    ("missing_item", 7),
    ("wismo", 14),
    ("wrong_item", 6),
    ("cancel_sub", 9),
    ("invoice", 5),
    ("login", 9),
    ("twofactor", 6),
    ("locked", 6),
    ("bug", 9),
    ("plans", 7),
]
ORDER_TOPICS = {"duplicate", "refund_damaged", "missing_item", "wismo", "wrong_item", "invoice"}
ACCOUNT_TOPICS = {"login", "twofactor", "locked"}

FIRST_REPLIES = {
    "duplicate": "Thanks for reaching out, {first}. I can see the payments on order {order} and I'm checking "
    "them with our billing records now.",
    "refund_damaged": "I'm so sorry the {item} arrived damaged, {first}. Could you send a photo of the damage "
    "so we can process this?",
    "missing_item": "Sorry about the missing {item}, {first}. I've checked the packing record for {order} and "
    "I'm looking into it.",
    "wismo": "Hi {first}, I've checked order {order}: the carrier shows it in transit. I've asked them for an update.",
    "wrong_item": "Apologies for the mix-up, {first}. I'll arrange an exchange for order {order}.",
    "cancel_sub": "Hi {first}, I can help with that. Before I cancel, could you confirm the email on the account?",
    "invoice": "Thanks {first}, please send me the VAT number and I'll reissue the invoice for {order}.",
    "login": "Hi {first}, to protect your account I need to verify your identity first. Could you give me the "
    "last 4 digits of the card on file or the number of a recent order?",
    "twofactor": "Hi {first}, I can reset two-factor authentication once I've verified your identity. Please "
    "reply with the last 4 digits of the card on file or a recent order number.",
    "locked": "Hi {first}, I can unlock the account after verifying your identity. What are the last 4 digits "
    "of the card on file?",
    "bug": "Thanks for the report, {first}. Could you send a screenshot of the error and tell me which browser "
    "you use?",
    "plans": "Hi {first}, both plans include SSO; Business adds audit logs and priority support. Happy to help "
    "you pick.",
}
FOLLOW_UPS = [
    "Any update on this? It's been a few days.",
    "Yes, that's the email on my account.",
    "Attached is what I see. Thanks for looking into it.",
    "I still haven't heard back. This is getting frustrating.",
    "Thanks for the quick reply!",
]
VERIFY_REPLY = "The last 4 digits are {last4}."
VAGUE_SUBJECT = "Refund request: item arrived damaged"
VAGUE_FIRST_REPLY = (
    "I'm so sorry it arrived damaged, {first}. Could you send a photo of the damage so we can process this?"
)
VAGUE_OPENING = "Hello, something I ordered from you arrived damaged: the casing is cracked. I'd like a refund please."
LATER_REPLIES = [
    "Thanks for your patience. This has been escalated to the right team.",
    "I've checked with our billing team and can see the payment on our side.",
    "Thanks for confirming. I'm on it and will update you shortly.",
    "Just checking in: is there anything else you need on this?",
]
SOLVED_REPLIES = {
    "duplicate": "I've refunded the duplicate charge of {amount}. It will show on your statement within 5-10 "
    "business days.",
    "refund_damaged": "Your refund of {amount} has been issued. Sorry again for the trouble.",
    "missing_item": "I've refunded {amount} for the missing {item}.",
    "cancel_sub": "Your subscription is cancelled and the unused part of the period ({amount}) has been refunded.",
    "login": "Done: I've sent you a password reset link. It is valid for one hour.",
    "twofactor": "Two-factor authentication has been reset. You can set it up again after signing in.",
    "locked": "Your account is unlocked. You can sign in again now.",
}
NOTES = {
    "duplicate": "Checked the processor: two captures minutes apart, same card. Genuine duplicate.",
    "refund_damaged": "Photo received, damage confirmed. Within the refund window.",
    "missing_item": "Warehouse confirms the item was not scanned into the box.",
    "login": "Customer verified via last four digits of card on file.",
    "twofactor": "Customer verified via last four digits of card on file.",
    "locked": "Customer verified via order number.",
    "bug": "Known issue, linked to the export bug tracked by Tier 2 Technical.",
    "cancel_sub": "Prorated per KB: unused days of the current period.",
}

STATUS_WEIGHTS = [("new", 12), ("open", 30), ("pending", 15), ("hold", 5), ("solved", 25), ("closed", 13)]
PRIORITY_WEIGHTS = [("", 20), ("low", 15), ("normal", 45), ("high", 15), ("urgent", 5)]
# What a generated name may carry besides the person's own names ("Dr. Holly Clark", "Tom Ray MD"):
# kept in the name, never in the address (it made "dr..holly.clark@…", which no form accepts).
NAME_TITLES = frozenset("mr mrs ms miss dr md dds dvm phd jr sr i ii iii iv v".split())


def email_handle(name: str) -> str:
    """The local part of a customer's address: their names in lower case, joined by dots."""
    return ".".join(w for w in re.findall(r"[a-z0-9]+", name.lower().replace("'", "")) if w not in NAME_TITLES)


CHANNEL_WEIGHTS = [("email", 50), ("web", 20), ("chat", 15), ("phone", 10), ("social", 5)]
VIA_OF_CHANNEL = {"email": "mail", "web": "web", "chat": "web", "phone": "web", "social": "api"}


def _pick(rng, weighted):
    values, weights = zip(*weighted, strict=True)
    return rng.choices(values, weights=weights)[0]


def _price(usd: Decimal, currency: str) -> Decimal:
    if currency == "USD":
        return usd
    # local list prices end in .99 like real storefronts do
    return (usd * RATES[currency]).quantize(Decimal("1")) - Decimal("0.01")


class Seeder:
    """One run of the generator; holds the counters that make public ids."""

    def __init__(self, gen):
        self.gen = gen
        self.rng, self.fake, self.now = gen.random, gen.faker, gen.now
        self.knobs = gen.knobs
        self.layers = set(gen.knobs.get("layers", ()))
        unknown = self.layers - set(LAYERS)
        if unknown:
            raise ValueError(f"unknown messy layers: {', '.join(sorted(unknown))}")
        self.n_tickets = gen.knobs["tickets"]
        self.counters = {}
        self.orders_of = {}  # customer id -> [order]
        self.payments_of = {}  # order id -> [payment]
        self.cards_of = {}  # customer id -> [(brand, last4)]
        self.subs_of = {}  # customer id -> [subscription]
        self.sub_payments = {}  # subscription id -> [payment]
        self.tickets_of = {}  # customer id -> [ticket]
        self.unsaid = []  # (ticket, opening comment, order) of new damaged-item tickets: see vague_openings

    def next(self, name: str, start: int, step: tuple[int, int] = (1, 1)) -> int:
        value = self.counters.get(name, start) + self.rng.randint(*step)
        self.counters[name] = value
        return value

    def token(self, prefix: str) -> str:
        return prefix + "".join(self.rng.choices(ID_ALPHABET, k=24))

    def ago(self, *, minutes_min: int, minutes_max: int):
        return self.now - timedelta(minutes=self.rng.randint(minutes_min, minutes_max))

    # --- people -------------------------------------------------------------------

    def people(self):
        gen, rng, fake, now = self.gen, self.rng, self.fake, self.now
        self.groups = [
            gen.add(Group(public_id=360000100 + i, name=n, description=d)) for i, (n, d) in enumerate(GROUPS)
        ]
        self.orgs = []
        for i in range(max(4, self.n_tickets // 25)):
            self.orgs.append(
                gen.add(
                    Organization(
                        public_id=360001000 + i,
                        name=fake.unique.company(),
                        domain=fake.unique.domain_name(),
                        tags=rng.sample(["enterprise", "smb", "vip", "trial", "partner"], k=rng.randint(0, 2)),
                        created_at=now - timedelta(days=rng.randint(60, 1500)),
                    )
                )
            )
        self.agents = []
        self.agents_in = {i: [] for i in range(len(GROUPS))}
        for i in range(max(8, self.n_tickets // 40)):
            name = fake.unique.name()
            first, last = name.split(" ", 1)[0].lower(), name.split(" ")[-1].lower()
            group = i % len(GROUPS)
            agent = gen.add(
                User(
                    public_id=self.next("user", 361000000),
                    name=name,
                    email=f"{first}.{last}@helpdesk.example",
                    role=User.Role.ADMIN if i == 0 else User.Role.AGENT,
                    default_group=self.groups[group],
                    created_at=now - timedelta(days=rng.randint(100, 900)),
                    last_login_at=self.ago(minutes_min=5, minutes_max=60 * 24 * 3),
                )
            )
            self.agents.append(agent)
            gen.add(Membership(user=agent, group=self.groups[group]))
            self.agents_in[group].append(agent)
            if i % 3 == 0 and i:
                other = (group + 1) % len(GROUPS)
                gen.add(Membership(user=agent, group=self.groups[other]))
                self.agents_in[other].append(agent)

        self.customers = []
        for _ in range(max(20, self.n_tickets // 2)):
            self.customers.append(self.customer(fake.unique.name()))
        if "near_duplicate_customers" in self.layers:
            # the same person signed up twice (work and personal address); the twin
            # has its own orders, so the one who writes in is not the one who paid
            for original in rng.sample(self.customers, k=max(2, len(self.customers) // 20)):
                twin = self.customer(original.name, twin_of=original)
                self.customers.append(twin)

    def customer(self, name: str, twin_of=None) -> User:
        gen, rng, fake, now = self.gen, self.rng, self.fake, self.now
        org = rng.choice(self.orgs) if rng.random() < 0.4 else None
        domain = org.domain if org else rng.choice(["gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me"])
        handle = email_handle(name)
        if twin_of is not None:
            domain = rng.choice(
                [d for d in ["gmail.com", "outlook.com", "icloud.com"] if not twin_of.email.endswith(d)]
            )
            handle = handle.replace(".", "")
        email = f"{handle}{rng.randint(1, 99) if rng.random() < 0.3 else ''}@{domain}"
        created = now - timedelta(days=rng.randint(5, 1200))
        locked = rng.random() < 0.04
        user = gen.add(
            User(
                public_id=self.next("user", 361000000),
                name=name,
                email=email,
                phone=fake.numerify("+1 (###) ###-####") if rng.random() < 0.5 else "",
                organization=org,
                tags=["vip"] if rng.random() < 0.05 else [],
                created_at=created,
                loyalty_tier=_pick(rng, TIER_WEIGHTS),
                profile_updated_at=created + timedelta(days=rng.randint(0, max(0, (now - created).days))),
                last_login_at=self.ago(minutes_min=60, minutes_max=60 * 24 * 90),
                locked_at=self.ago(minutes_min=30, minutes_max=60 * 24 * 3) if locked else None,
                failed_logins=5 if locked else rng.choice([0, 0, 0, 1, 2]),
                twofactor_enabled=rng.random() < 0.3,
            )
        )
        if user.twofactor_enabled:
            user.twofactor_method = rng.choice(["app", "app", "sms"])
        self.identity(user, "email", user.email, primary=True, at=created)
        if user.phone:
            self.identity(user, "phone", user.phone, primary=True, at=created)
        currency = _pick(rng, CURRENCY_WEIGHTS)
        user._currency = currency  # generation-only: the customer's storefront currency
        self.cards_of[user.id] = [
            (_pick(rng, CARD_BRANDS), f"{rng.randint(0, 9999):04d}") for _ in range(rng.choice([1, 1, 1, 2]))
        ]
        self.orders_of[user.id] = []
        self.subs_of[user.id] = []
        for _ in range(rng.choice([0, 0, 0, 1, 1, 1, 2])):
            self.order(user, placed=self.ago(minutes_min=60 * 24, minutes_max=60 * 24 * 300))
        if rng.random() < 0.3:
            self.subscription(user)
        return user

    def identity(self, user, kind, value, *, primary, at, verified=True):
        return self.gen.add(
            Identity(
                public_id=self.next("identity", 362000000),
                user=user,
                kind=kind,
                value=value,
                primary=primary,
                verified=verified,
                created_at=at,
            )
        )

    # --- commerce -----------------------------------------------------------------

    def order(self, customer, *, placed, status=None, items=None, currency=None) -> Order:
        gen, rng = self.gen, self.rng
        currency = currency or customer._currency
        status = status or _pick(
            rng,
            [
                ("fulfilled", 60),
                ("paid", 18),
                ("pending", 4),
                ("cancelled", 8),
                ("refunded", 4),
                ("partially_refunded", 6),
            ],
        )
        lines = items or rng.sample(CATALOGUE, k=rng.choice([1, 1, 1, 2, 2, 3]))
        order = gen.add(
            Order(
                public_id=f"ORD-{self.next('order', 40000, (1, 9))}",
                customer=customer,
                status=status,
                currency=currency,
                subtotal=Decimal(0),
                total=Decimal(0),
                ship_to=f"{self.fake.city()}, {self.fake.state_abbr()}"
                if currency in ("USD", "CAD")
                else self.fake.city(),
                placed_at=placed,
            )
        )
        subtotal = Decimal(0)
        for n, (sku, product, name, usd) in enumerate(lines, start=1):
            qty = 1 if rng.random() < 0.85 else 2
            price = _price(usd, currency)
            gen.add(OrderItem(order=order, line=n, sku=sku, product=product, name=name, quantity=qty, unit_price=price))
            subtotal += price * qty
        order._lines = lines
        order.subtotal = subtotal
        order.shipping = Decimal(0) if subtotal >= _price(Decimal(100), currency) else SHIPPING[currency]
        order.tax = (subtotal * Decimal("0.08")).quantize(policies.CENT) if currency in ("USD", "CAD") else Decimal(0)
        order.total = order.subtotal + order.shipping + order.tax
        self.orders_of[customer.id].append(order)
        self.payments_of[order.id] = []
        if status != "pending":
            payment = self.payment(
                customer, order=order, amount=order.total, at=placed + timedelta(minutes=rng.randint(0, 3))
            )
            if status in ("fulfilled", "refunded", "partially_refunded"):
                order.fulfilled_at = placed + timedelta(hours=rng.randint(20, 96))
                order.tracking_number = f"1Z{rng.randint(10**9, 10**10 - 1)}{rng.randint(10**5, 10**6 - 1)}"
                if order.fulfilled_at > self.now:
                    order.fulfilled_at, order.tracking_number, order.status = None, "", "paid"
            if status == "cancelled":
                order.cancelled_at = placed + timedelta(hours=rng.randint(1, 20))
                self.refund(
                    payment,
                    amount=payment.amount,
                    kind="full",
                    reason="other",
                    at=order.cancelled_at,
                    note="Order cancelled before shipping",
                )
            elif order.status == "refunded":
                self.refund(
                    payment,
                    amount=payment.amount,
                    kind="full",
                    reason=rng.choice(["damaged", "not_received", "other"]),
                    at=order.fulfilled_at + timedelta(days=rng.randint(3, 20)),
                )
            elif order.status == "partially_refunded":
                part = (payment.amount * Decimal(rng.choice(["0.2", "0.25", "0.5"]))).quantize(policies.CENT)
                self.refund(
                    payment,
                    amount=part,
                    kind="partial",
                    reason=rng.choice(["missing_item", "goodwill", "damaged"]),
                    at=order.fulfilled_at + timedelta(days=rng.randint(3, 20)),
                )
        return order

    def payment(
        self, customer, *, amount, at, order=None, subscription=None, status="succeeded", card=None, period=None
    ) -> Payment:
        brand, last4 = card or self.rng.choice(self.cards_of[customer.id])
        payment = self.gen.add(
            Payment(
                public_id=self.token("ch_"),
                customer=customer,
                order=order,
                subscription=subscription,
                amount=amount,
                currency=(order or subscription).currency,
                status=status,
                card_brand=brand,
                card_last4=last4,
                captured_at=at,
                description=f"Order {order.public_id}" if order else f"{subscription.get_plan_display()} plan",
                period_start=period[0] if period else None,
                period_end=period[1] if period else None,
            )
        )
        if order is not None:
            self.payments_of[order.id].append(payment)
        else:
            self.sub_payments[subscription.id].append(payment)
        return payment

    def refund(self, payment, *, amount, kind, reason, at, agent=None, ticket=None, note=""):
        return self.gen.add(
            Refund(
                public_id=self.token("re_"),
                payment=payment,
                amount=amount,
                currency=payment.currency,
                kind=kind,
                reason=reason,
                agent=agent,
                ticket=ticket,
                note=note,
                created_at=min(at, self.now),
            )
        )

    def subscription(self, customer, status=None) -> Subscription:
        rng = self.rng
        plan = rng.choice(list(PLANS))
        interval = "month" if rng.random() < 0.75 else "year"
        currency = customer._currency
        monthly = _price(PLANS[plan], currency)
        price = monthly if interval == "month" else (monthly * 10).quantize(policies.CENT)
        status = status or _pick(rng, [("active", 80), ("past_due", 6), ("cancelled", 10), ("trialing", 4)])
        period_days = 30 if interval == "month" else 365
        periods = rng.randint(1, 4) if interval == "month" else 1
        period_start = self.now - timedelta(days=rng.randint(1, period_days - 1), minutes=rng.randint(0, 1439))
        started = period_start - timedelta(days=period_days * (periods - 1))
        sub = self.gen.add(
            Subscription(
                public_id=f"SUB-{self.next('sub', 20000, (1, 13))}",
                customer=customer,
                plan=plan,
                interval=interval,
                price=price,
                currency=currency,
                status=status,
                started_at=started,
                current_period_start=period_start,
                current_period_end=period_start + timedelta(days=period_days),
            )
        )
        self.sub_payments[sub.id] = []
        if status == "trialing":
            return sub
        for p in range(periods):
            start = started + timedelta(days=period_days * p)
            last = p == periods - 1
            failed = last and status == "past_due"
            self.payment(
                customer,
                subscription=sub,
                amount=price,
                at=start + timedelta(minutes=2),
                status="failed" if failed else "succeeded",
                period=(start, start + timedelta(days=period_days)),
            )
        if status == "cancelled":
            sub.cancelled_at = period_start + timedelta(days=rng.randint(0, 5))
        self.subs_of[customer.id].append(sub)
        return sub

    # --- tickets --------------------------------------------------------------------

    def event(self, ticket, *, kind, at, actor=None, field="", old="", new="", via="web", rule=""):
        return self.gen.add(
            TicketEvent(
                public_id=self.next("event", 20000000000),
                ticket=ticket,
                actor=actor,
                kind=kind,
                field=field,
                from_value=old,
                to_value=new,
                via=via,
                rule=rule,
                created_at=at,
            )
        )

    def comment(self, ticket, *, author, body, at, public=True, channel=None):
        return self.gen.add(
            Comment(
                public_id=self.next("comment", 900000000),
                ticket=ticket,
                author=author,
                body=body,
                public=public,
                channel=channel or ticket.channel,
                created_at=at,
            )
        )

    def story(self, kind, requester):
        """The data a ticket of `kind` is about: (order, payment to act on, amount text, item name)."""
        rng = self.rng
        placed = self.ago(minutes_min=60 * 24 * 2, minutes_max=60 * 24 * 40)
        order = payment = None
        item = ""
        if kind == "duplicate":
            order = self.order(requester, placed=placed, status="fulfilled")
            first = self.payments_of[order.id][0]
            payment = self.payment(
                requester,
                order=order,
                amount=first.amount,
                at=first.captured_at + timedelta(minutes=rng.randint(1, 4)),
                card=(first.card_brand, first.card_last4),
            )
        elif kind in ("refund_damaged", "wrong_item"):
            order = self.order(requester, placed=placed, status="fulfilled")
        elif kind == "missing_item":
            order = self.order(
                requester, placed=placed, status="fulfilled", items=rng.sample(CATALOGUE, k=rng.choice([2, 3]))
            )
        elif kind == "wismo":
            order = self.order(
                requester, placed=self.ago(minutes_min=60 * 24 * 6, minutes_max=60 * 24 * 12), status="paid"
            )
        elif kind == "invoice":
            order = self.order(requester, placed=placed, status="fulfilled")
        elif kind == "cancel_sub":
            subs = [s for s in self.subs_of[requester.id] if s.status == "active"]
            sub = subs[0] if subs else self.subscription(requester, status="active")
            return sub, None, "", ""
        if order is not None:
            payment = payment or (self.payments_of[order.id] or [None])[0]
            item = order._lines[-1][2]
        return order, payment, "", item

    def tickets(self):
        gen, rng, now = self.gen, self.rng, self.now
        legacy = "legacy_dates" in self.layers
        import_time = now - timedelta(days=21, hours=3)
        self.ticket_rows = []
        for i in range(self.n_tickets):
            kind = _pick(rng, TOPIC_WEIGHTS)
            subject, opening, ttype, tags, home = TOPICS[kind]
            requester = rng.choice(self.customers)
            status = _pick(rng, STATUS_WEIGHTS)
            channel = _pick(rng, CHANNEL_WEIGHTS)
            order, payment, _, item = (
                self.story(kind, requester) if kind in ORDER_TOPICS or kind == "cancel_sub" else (None, None, "", "")
            )
            sub = order if isinstance(order, Subscription) else None
            if sub is not None:
                order = None
            if status == "new":
                group = self.groups[SUPPORT] if rng.random() < 0.3 else None
                assignee = None
            else:
                gi = home if rng.random() < 0.6 else SUPPORT
                group = self.groups[gi]
                assignee = rng.choice(self.agents_in[gi]) if rng.random() < 0.85 else None
            created = now - timedelta(minutes=rng.randint(10, 60 * 24 * 45))
            if order is not None:
                created = max(created, order.placed_at + timedelta(hours=rng.randint(2, 72)))
                created = min(created, now - timedelta(minutes=rng.randint(10, 600)))
            amount = policies.money(payment.amount, payment.currency) if payment else ""
            ticket = gen.add(
                Ticket(
                    public_id=8000 + i + 1,
                    subject=subject.format(order=order.public_id if order else ""),
                    status=status,
                    priority=_pick(rng, PRIORITY_WEIGHTS),
                    type=ttype if rng.random() < 0.8 else "",
                    channel=channel,
                    requester=requester,
                    submitter=requester,
                    assignee=assignee,
                    group=group,
                    organization=requester.organization,
                    tags=list(tags),
                    order_number=order.public_id if order and rng.random() < 0.7 else "",
                    product=(order._lines[-1][1] if order else ("subscription" if sub else "")),
                    created_at=created,
                    updated_at=created,
                )
            )
            self.ticket_rows.append(ticket)
            self.tickets_of.setdefault(requester.id, []).append(ticket)
            ctx = {
                "order": order.public_id if order else "",
                "amount": amount,
                "item": item,
                "plan": sub.get_plan_display() if sub else "",
                "first": requester.first_name,
            }
            self.thread(ticket, kind, status, order, payment, sub, ctx)
            if legacy and created < now - timedelta(days=30) and rng.random() < 0.6:
                # the old desk's export: real date only as text, created_at is the import run
                ticket.imported_date = created.strftime("%m/%d/%y %I:%M %p")
                ticket.created_at = import_time
                ticket.updated_at = max(ticket.updated_at, import_time)
                ticket.tags = [*ticket.tags, "imported"]
            if assignee is not None and rng.random() < 0.15:
                follower = rng.choice(self.agents)
                if follower is not assignee:
                    gen.add(TicketFollower(ticket=ticket, user=follower, created_at=ticket.updated_at))

    def thread(self, ticket, kind, status, order, payment, sub, ctx):
        rng, now = self.rng, self.now
        requester, assignee = ticket.requester, ticket.assignee
        agent = assignee or rng.choice(self.agents)
        at = ticket.created_at
        via = VIA_OF_CHANNEL[ticket.channel]
        self.event(ticket, kind="create", at=at, actor=requester, field="status", new="new", via=via)
        opening = self.comment(ticket, author=requester, body=TOPICS[kind][1].format(**ctx), at=at)
        if kind == "refund_damaged" and status in ("new", "open", "pending"):
            self.unsaid.append((ticket, [opening], order))
        if status == "new":
            return
        at += timedelta(minutes=rng.randint(3, 60 * 8))
        if at >= now:
            at = now - timedelta(minutes=1)
        # the audit log keeps the status changes (history before these is not kept for seeded tickets)
        self.event(ticket, kind="change", at=at, actor=agent, field="status", old="new", new="open")
        first_reply = self.comment(ticket, author=agent, body=FIRST_REPLIES[kind].format(**ctx), at=at)
        if self.unsaid and self.unsaid[-1][0] is ticket:
            self.unsaid[-1][1].append(first_reply)
        solved = status in ("solved", "closed")
        turns = rng.choice([0, 1, 1, 2, 2, 3])
        for t in range(turns):
            at += timedelta(minutes=rng.randint(5, 60 * 20))
            if at >= now:
                at = now - timedelta(seconds=30)
                break
            if t % 2 == 0:
                body = (
                    VERIFY_REPLY.format(last4=self.cards_of[requester.id][0][1])
                    if kind in ACCOUNT_TOPICS and t == 0
                    else rng.choice(FOLLOW_UPS)
                )
                self.comment(ticket, author=requester, body=body, at=at)
            else:
                if kind in NOTES and rng.random() < 0.5:
                    self.comment(ticket, author=agent, body=NOTES[kind], at=at, public=False, channel="web")
                self.comment(ticket, author=agent, body=rng.choice(LATER_REPLIES), at=at + timedelta(seconds=20))
        if solved:
            at += timedelta(minutes=rng.randint(10, 60 * 6))
            at = min(at, now - timedelta(seconds=10))
            amount = self.resolve(ticket, kind, order, payment, sub, agent, at)
            if kind in SOLVED_REPLIES:
                self.comment(
                    ticket,
                    author=agent,
                    body=SOLVED_REPLIES[kind].format(**{**ctx, "amount": amount or ctx["amount"]}),
                    at=at,
                )
            else:
                self.comment(
                    ticket,
                    author=agent,
                    body="Glad we could sort this out. I'm marking this as solved; just reply if you need "
                    "anything else.",
                    at=at,
                )
            self.event(ticket, kind="change", at=at, actor=agent, field="status", old="open", new="solved")
            ticket.solved_at = at
            if status == "closed":
                closed = min(at + timedelta(days=4), now)
                self.event(
                    ticket,
                    kind="change",
                    at=closed,
                    field="status",
                    old="solved",
                    new="closed",
                    via="automation",
                    rule="Close solved tickets after 4 days",
                )
                at = closed
        elif status in ("pending", "hold"):
            self.event(ticket, kind="change", at=at, actor=agent, field="status", old="open", new=status)
        ticket.updated_at = at

    def resolve(self, ticket, kind, order, payment, sub, agent, at):
        """What a solved ticket's agent did: the refund, the reset, the unlock."""
        rng, customer = self.rng, ticket.requester
        amount = None
        if kind == "duplicate" and payment is not None:
            amount = payment.amount
            self.refund(payment, amount=amount, kind="full", reason="duplicate", at=at, agent=agent, ticket=ticket)
            ticket.refund_type = "full"
        elif kind == "refund_damaged" and payment is not None:
            amount = payment.amount
            self.refund(payment, amount=amount, kind="full", reason="damaged", at=at, agent=agent, ticket=ticket)
            order.status, ticket.refund_type = "refunded", "full"
        elif kind == "missing_item" and payment is not None:
            sku, _, _, usd = order._lines[-1]
            amount = _price(usd, order.currency)
            self.refund(
                payment, amount=amount, kind="partial", reason="missing_item", at=at, agent=agent, ticket=ticket
            )
            order.status, ticket.refund_type = "partially_refunded", "partial"
        elif kind == "cancel_sub" and sub is not None:
            paid = [p for p in self.sub_payments[sub.id] if p.status == "succeeded"]
            if paid:
                last = paid[-1]
                amount = policies.prorated_amount(
                    price=last.amount, period_start=last.period_start, period_end=last.period_end, at=at
                )
                if amount > 0:
                    self.refund(
                        last, amount=amount, kind="prorated", reason="cancellation", at=at, agent=agent, ticket=ticket
                    )
            sub.status, sub.cancelled_at = "cancelled", at
            ticket.refund_type = "prorated"
        elif kind in ACCOUNT_TOPICS:
            brand, last4 = self.cards_of[customer.id][0]
            self.gen.add(
                IdentityVerification(
                    public_id=self.next("verification", 100000),
                    customer=customer,
                    agent=agent,
                    ticket=ticket,
                    method="card_last4",
                    evidence=f"{brand} •••• {last4}",
                    created_at=at - timedelta(minutes=2),
                )
            )
            action = {"login": "password_reset", "twofactor": "twofactor_reset", "locked": "account_unlock"}[kind]
            self.gen.add(
                AccountEvent(
                    public_id=self.next("account_event", 500000),
                    customer=customer,
                    agent=agent,
                    ticket=ticket,
                    action=action,
                    created_at=at,
                )
            )
            if action == "account_unlock":
                customer.locked_at, customer.failed_logins = None, 0
            elif action == "twofactor_reset":
                customer.twofactor_enabled, customer.twofactor_method = False, ""
            else:
                customer.password_reset_at = at
        if amount is not None:
            self.event(
                ticket,
                kind="refund",
                at=at,
                actor=agent,
                field="refund",
                new=policies.money(amount, (order or sub).currency),
            )
        if ticket.refund_type:
            self.event(ticket, kind="change", at=at, actor=agent, field="refund_type", new=ticket.refund_type)
        if rng.random() < 0.5 and kind in ("refund_damaged", "duplicate", "missing_item"):
            ticket.tags = [*ticket.tags, "refund_issued"]
        if amount is not None:
            return policies.money(amount, (order or sub).currency)
        return None

    # --- messy layers ------------------------------------------------------------------

    def messy(self):
        rng, now = self.rng, self.now
        customers = [c for c in self.customers]
        if "duplicate_charges" in self.layers:
            candidates = [
                o
                for c in customers
                for o in self.orders_of[c.id]
                if o.status in ("fulfilled", "paid") and len(self.payments_of[o.id]) == 1
            ]
            for order in rng.sample(candidates, k=max(2, len(candidates) // 12)):
                first = self.payments_of[order.id][0]
                dup = self.payment(
                    order.customer,
                    order=order,
                    amount=first.amount,
                    at=first.captured_at + timedelta(minutes=rng.randint(1, 6)),
                    card=(first.card_brand, first.card_last4),
                )
                if rng.random() < 0.3:
                    # someone already refunded it once: refunding again would be over the total
                    self.refund(
                        dup,
                        amount=dup.amount,
                        kind="full",
                        reason="duplicate",
                        at=dup.captured_at + timedelta(days=rng.randint(1, 5)),
                        agent=rng.choice(self.agents_in[BILLING]),
                    )
        if "cancelled_fulfilled" in self.layers:
            candidates = [o for c in customers for o in self.orders_of[c.id] if o.status == "fulfilled"]
            for order in rng.sample(candidates, k=max(2, len(candidates) // 15)):
                # cancelled in the storefront after the warehouse had shipped it; never refunded
                order.status = "cancelled"
                order.cancelled_at = order.fulfilled_at + timedelta(hours=rng.randint(1, 30))
        if "stale_customers" in self.layers:
            for customer in rng.sample(customers, k=max(2, len(customers) // 10)):
                customer.profile_updated_at = now - timedelta(days=rng.randint(400, 1400))
                customer.external_id = f"CRM-{rng.randint(100000, 999999)}"
                customer.notes = "Imported from the legacy CRM. Contact details not re-confirmed since."
                number = rng.randint(100, 999)  # drawn before the domain, as they always were
                new_email = (
                    f"{customer.first_name.lower()}.{number}@{rng.choice(['gmail.com', 'fastmail.com', 'hey.com'])}"
                )
                self.identity(
                    customer,
                    "email",
                    new_email,
                    primary=False,
                    at=now - timedelta(days=rng.randint(5, 60)),
                    verified=False,
                )
                mine = [t for t in self.tickets_of.get(customer.id, []) if t.status not in ("solved", "closed")]
                if mine:
                    ticket = mine[0]
                    self.comment(
                        ticket,
                        author=customer,
                        at=max(ticket.updated_at, now - timedelta(hours=rng.randint(2, 30))),
                        body=f"By the way, please use my new email address {new_email} from now on; the old "
                        "one is no longer read.",
                    )
        if "conflicting_policies" in self.layers:
            self.articles_conflicting()

    def vague_openings(self):
        """Worlds with simulated customers: unsolved damaged-item tickets that do not say which order.

        The requester forgot the order number, so an agent has to ask; the simulated customer
        answers with the order the ticket is about (simulated.ticket_order: their latest order
        placed before the ticket). Only tickets whose story order is that order are rewritten,
        after every order exists, so the answer is the truth. Draws nothing from the generator.
        """
        for ticket, comments, order in self.unsaid:
            placed = [o for o in self.orders_of[ticket.requester.id] if o.placed_at <= ticket.created_at]
            latest = max(placed, key=lambda o: (o.placed_at, o.public_id), default=None)
            if order is None or latest is not order:
                continue
            ticket.subject = VAGUE_SUBJECT
            ticket.order_number, ticket.product = "", ""
            comments[0].body = VAGUE_OPENING
            if len(comments) > 1:  # the agent's first reply named the item
                comments[1].body = VAGUE_FIRST_REPLY.format(first=ticket.requester.first_name)

    # --- rules and help center ------------------------------------------------------------

    def rules(self):
        gen, now = self.gen, self.now
        views = [
            (
                "your-unsolved",
                "Your unsolved tickets",
                {
                    "all": [
                        {"field": "assignee", "operator": "is", "value": "current_user"},
                        {"field": "status", "operator": "less_than", "value": "solved"},
                    ]
                },
                "-updated_at",
            ),
            (
                "unassigned",
                "Unassigned tickets",
                {
                    "all": [
                        {"field": "assignee", "operator": "not_present"},
                        {"field": "status", "operator": "less_than", "value": "solved"},
                    ]
                },
                "-updated_at",
            ),
            (
                "unsolved",
                "All unsolved tickets",
                {"all": [{"field": "status", "operator": "less_than", "value": "solved"}]},
                "-updated_at",
            ),
            ("recently-updated", "Recently updated tickets", {}, "-updated_at"),
            (
                "pending",
                "Pending tickets",
                {"all": [{"field": "status", "operator": "is", "value": "pending"}]},
                "-updated_at",
            ),
            (
                "recently-solved",
                "Recently solved tickets",
                {"all": [{"field": "status", "operator": "is", "value": "solved"}]},
                "-solved_at",
            ),
            (
                "refund-requests",
                "Billing: refund requests",
                {
                    "all": [
                        {"field": "tags", "operator": "includes", "value": "refund"},
                        {"field": "status", "operator": "less_than", "value": "solved"},
                    ]
                },
                "-updated_at",
            ),
            (
                "tier-2-billing",
                "Tier 2 Billing queue",
                {
                    "all": [
                        {"field": "group", "operator": "is", "value": "Tier 2 Billing"},
                        {"field": "status", "operator": "less_than", "value": "solved"},
                    ]
                },
                "created_at",
            ),
            (
                "urgent-high",
                "Urgent and high priority",
                {
                    "all": [
                        {"field": "priority", "operator": "greater_than", "value": "normal"},
                        {"field": "status", "operator": "less_than", "value": "solved"},
                    ]
                },
                "-priority",
            ),
            (
                "vip-customers",
                "VIP customers",
                {
                    "all": [{"field": "status", "operator": "less_than", "value": "solved"}],
                    "any": [
                        {"field": "requester_tier", "operator": "is", "value": "platinum"},
                        {"field": "requester_tier", "operator": "is", "value": "gold"},
                        {"field": "requester_tags", "operator": "includes", "value": "vip"},
                    ],
                },
                "-updated_at",
            ),
        ]
        for n, (slug, title, cond, order) in enumerate(views):
            gen.add(View(public_id=360100000 + n, slug=slug, title=title, conditions=cond, order_by=order, position=n))

        macros = [
            (
                "Refund issued",
                "Tell the customer their refund is on its way and solve.",
                [
                    {"field": "status", "value": "solved"},
                    {"field": "add_tags", "value": "refund_issued"},
                    {
                        "field": "comment_value",
                        "value": "Hi {{ticket.requester.first_name}},\n\nI've issued your refund. It will show "
                        "on your statement within 5-10 business days.\n\nBest,\n{{current_user.first_name}}",
                    },
                ],
            ),
            (
                "Escalate to Tier 2 Billing",
                "Refunds above your limit, chargebacks.",
                [
                    {"field": "group", "value": "Tier 2 Billing"},
                    {"field": "assignee", "value": ""},
                    {"field": "status", "value": "open"},
                    {"field": "add_tags", "value": "escalated"},
                    {"field": "comment_mode", "value": "internal"},
                    {
                        "field": "comment_value",
                        "value": "Escalating to Tier 2 Billing: the refund is above my limit. Order "
                        "{{ticket.order_number}}.",
                    },
                ],
            ),
            (
                "Request identity verification",
                "Ask for the last 4 digits of the card or an order number.",
                [
                    {"field": "status", "value": "pending"},
                    {"field": "add_tags", "value": "verification_requested"},
                    {
                        "field": "comment_value",
                        "value": "Hi {{ticket.requester.first_name}},\n\nTo protect your account, please reply "
                        "with the last 4 digits of the card on file or the number of one of your orders "
                        "(ORD-…).\n\nThanks,\n{{current_user.first_name}}",
                    },
                ],
            ),
            (
                "Duplicate charge: refunded",
                "The duplicate payment was refunded.",
                [
                    {"field": "status", "value": "solved"},
                    {"field": "refund_type", "value": "full"},
                    {"field": "add_tags", "value": "duplicate_charge refund_issued"},
                    {
                        "field": "comment_value",
                        "value": "Hi {{ticket.requester.first_name}},\n\nYou were right: order "
                        "{{ticket.order_number}} was charged twice. I've refunded the duplicate "
                        "payment.\n\n{{current_user.name}}",
                    },
                ],
            ),
            (
                "Where is my order: tracking",
                "Share tracking and set pending.",
                [
                    {"field": "status", "value": "pending"},
                    {
                        "field": "comment_value",
                        "value": "Hi {{ticket.requester.first_name}},\n\nYour order {{ticket.order_number}} is "
                        "on its way. I've asked the carrier for an update and will let you "
                        "know.\n\n{{current_user.first_name}}",
                    },
                ],
            ),
            (
                "Account unlocked",
                "After verification.",
                [
                    {"field": "status", "value": "solved"},
                    {"field": "remove_tags", "value": "locked"},
                    {
                        "field": "comment_value",
                        "value": "Hi {{ticket.requester.first_name}}, your account is unlocked. You can sign "
                        "in again now.",
                    },
                ],
            ),
            (
                "Two-factor reset done",
                "After verification.",
                [
                    {"field": "status", "value": "solved"},
                    {
                        "field": "comment_value",
                        "value": "Hi {{ticket.requester.first_name}}, two-factor authentication has been reset "
                        "on your account. Please set it up again after signing in.",
                    },
                ],
            ),
            (
                "Take it",
                "Assign to me and open.",
                [{"field": "assignee", "value": "current_user"}, {"field": "status", "value": "open"}],
            ),
            (
                "Close and redirect to help center",
                "For questions the help center answers.",
                [
                    {"field": "status", "value": "solved"},
                    {"field": "type", "value": "question"},
                    {
                        "field": "comment_value",
                        "value": "Hi {{ticket.requester.first_name}}, you'll find the answer in our help "
                        "center. Reply here if anything is unclear.",
                    },
                ],
            ),
            (
                "Bug: hand over to Tier 2 Technical",
                "",
                [
                    {"field": "group", "value": "Tier 2 Technical"},
                    {"field": "type", "value": "problem"},
                    {"field": "priority", "value": "high"},
                    {"field": "comment_mode", "value": "internal"},
                    {
                        "field": "comment_value",
                        "value": "Reproducible bug reported by {{ticket.requester.name}}; handing over.",
                    },
                ],
            ),
        ]
        for n, (title, desc, actions) in enumerate(macros):
            gen.add(
                Macro(
                    public_id=360200000 + n,
                    title=title,
                    description=desc,
                    actions=actions,
                    position=n,
                    usage_count=self.rng.randint(0, 400),
                    created_at=now - timedelta(days=200 + n),
                )
            )

        triggers = [
            (
                "Notify requester of received request",
                {"all": [{"field": "update_type", "operator": "is", "value": "created"}]},
                [{"field": "notify_requester", "value": "Your request #{{ticket.id}} has been received."}],
            ),
            (
                "Route account and security requests",
                {
                    "all": [{"field": "update_type", "operator": "is", "value": "created"}],
                    "any": [
                        {"field": "tags", "operator": "includes", "value": "2fa"},
                        {"field": "tags", "operator": "includes", "value": "locked"},
                    ],
                },
                [{"field": "group", "value": "Accounts & Security"}],
            ),
            (
                "Chargeback threats are urgent",
                {
                    "all": [
                        {"field": "comment_includes_word", "operator": "is", "value": "chargeback"},
                        {"field": "priority", "operator": "less_than", "value": "urgent"},
                    ]
                },
                [{"field": "priority", "value": "urgent"}, {"field": "add_tags", "value": "chargeback_risk"}],
            ),
            (
                "VIP requester gets high priority",
                {
                    "all": [
                        {"field": "update_type", "operator": "is", "value": "created"},
                        {"field": "requester_tier", "operator": "is", "value": "platinum"},
                        {"field": "priority", "operator": "less_than", "value": "high"},
                    ]
                },
                [{"field": "priority", "value": "high"}, {"field": "add_tags", "value": "vip"}],
            ),
            (
                "Reopen when the requester replies",
                {
                    "all": [
                        {"field": "update_type", "operator": "is", "value": "updated"},
                        {"field": "comment_author", "operator": "is", "value": "requester"},
                        {"field": "status", "operator": "greater_than", "value": "open"},
                        {"field": "status", "operator": "less_than", "value": "closed"},
                    ]
                },
                [{"field": "status", "value": "open"}],
            ),
            (
                "Notify assignee of assignment",
                {"all": [{"field": "assignee", "operator": "changed"}, {"field": "assignee", "operator": "present"}]},
                [{"field": "notify_assignee", "value": "Ticket #{{ticket.id}} was assigned to you."}],
            ),
            (
                "Escalations land in Tier 2 Billing",
                {
                    "all": [
                        {"field": "tags", "operator": "includes", "value": "escalate_billing"},
                        {"field": "group", "operator": "is_not", "value": "Tier 2 Billing"},
                    ]
                },
                [
                    {"field": "group", "value": "Tier 2 Billing"},
                    {"field": "remove_tags", "value": "escalate_billing"},
                    {"field": "add_tags", "value": "escalated"},
                ],
            ),
        ]
        for n, (title, cond, actions) in enumerate(triggers):
            gen.add(Trigger(public_id=360300000 + n, title=title, conditions=cond, actions=actions, position=n))

        automations = [
            (
                "Close solved tickets after 4 days",
                {
                    "all": [
                        {"field": "status", "operator": "is", "value": "solved"},
                        {
                            "field": "hours_since_solved",
                            "operator": "greater_than",
                            "value": policies.CLOSE_SOLVED_AFTER_HOURS,
                        },
                    ]
                },
                [{"field": "status", "value": "closed"}],
            ),
            (
                "Remind requester after 3 days pending",
                {
                    "all": [
                        {"field": "status", "operator": "is", "value": "pending"},
                        {
                            "field": "hours_since_updated",
                            "operator": "greater_than",
                            "value": policies.REMIND_PENDING_AFTER_HOURS,
                        },
                        {"field": "tags", "operator": "not_includes", "value": "reminded"},
                    ]
                },
                [
                    {"field": "add_tags", "value": "reminded"},
                    {
                        "field": "comment_value",
                        "value": "Hi {{ticket.requester.first_name}}, we're still waiting for your reply on "
                        "request #{{ticket.id}}. It will be closed automatically if we don't hear back.",
                    },
                ],
            ),
            (
                "Solve pending tickets after 7 days",
                {
                    "all": [
                        {"field": "status", "operator": "is", "value": "pending"},
                        {
                            "field": "hours_since_updated",
                            "operator": "greater_than",
                            "value": policies.SOLVE_PENDING_AFTER_HOURS,
                        },
                    ]
                },
                [{"field": "status", "value": "solved"}],
            ),
        ]
        for n, (title, cond, actions) in enumerate(automations):
            gen.add(Automation(public_id=360400000 + n, title=title, conditions=cond, actions=actions, position=n))

        for n, (title, description) in enumerate(
            [("Premium customers", "Gold and Platinum loyalty members"), ("Standard", "Everyone else")]
        ):
            premium = title == "Premium customers"
            gen.add(
                SlaPolicy(
                    public_id=360500000 + n,
                    title=title,
                    description=description,
                    position=n,
                    targets=policies.SLA_TARGETS[title],
                    conditions={
                        "any": [
                            {"field": "requester_tier", "operator": "is", "value": tier}
                            for tier in policies.PREMIUM_TIERS
                        ]
                    }
                    if premium
                    else {},
                )
            )

    def articles(self):
        """The help center and the agents' knowledge base, written from the rules the desk enforces.

        Every number here comes from policies (the variant's knobs over its defaults), the same
        values refund_issue, the SLA badges and the automations apply: tests/test_knowledge_base
        holds the two together.
        """
        for n, (title, section, labels, body, visibility) in enumerate(policy_articles(self.knobs)):
            created = self.now - timedelta(days=300 - n * 7)
            author = self.agents_in[BILLING][0]
            self.gen.add(
                Article(
                    public_id=360600000 + n,
                    title=title,
                    section=section,
                    body=body,
                    labels=labels,
                    visibility=visibility,
                    author=author,
                    created_at=created,
                    updated_at=self.now - timedelta(days=20 + n),
                )
            )

    def articles_conflicting(self):
        author = self.agents_in[BILLING][-1]
        self.gen.add(
            Article(
                public_id=360600100,
                title="Refunds: what agents can do",
                section="Billing & refunds",
                labels=["refund-policy", "policy"],
                author=author,
                body="Agents may refund up to $500.00 (or the equivalent in other currencies) per order "
                "without asking anyone, "
                "up to 90 days after purchase. Larger refunds go to a team lead.",
                created_at=self.now - timedelta(days=720),
                updated_at=self.now - timedelta(days=410),
            )
        )


INTERNAL = Article.Visibility.AGENTS
EVERYONE = Article.Visibility.EVERYONE


def _minutes(value: int) -> str:
    """'30 minutes', '2 hours', '1 day': how the SLA article writes a target."""
    if value % 1440 == 0:
        days = value // 1440
        return f"{days} day{'s' if days > 1 else ''}"
    if value % 60 == 0:
        hours = value // 60
        return f"{hours} hour{'s' if hours > 1 else ''}"
    return f"{value} minutes"


def policy_articles(knobs: dict) -> list[tuple[str, str, list, str, str]]:
    """(title, section, labels, body, visibility) of the desk's articles under these variant knobs."""
    policy = policies.refund_policy(knobs)
    limits = ", ".join(policies.money(v, c) for c, v in policy.agent_limits.items())
    tiers = ", ".join(f"{t.title()} members x{m}" for t, m in policy.tier_multipliers.items())
    group = policies.ESCALATION_GROUP
    limit_lines = []
    for currency, base in policy.agent_limits.items():
        cells = [f"agents {policies.money(base, currency)}"]
        cells += [
            f"{tier.title()} members {policies.money((base * m).quantize(policies.CENT), currency)}"
            for tier, m in policy.tier_multipliers.items()
        ]
        cells.append(f"{group} {policies.money(base * policy.tier2_multiplier, currency)}")
        limit_lines.append(f"{currency}: " + " · ".join(cells))
    sla_lines = []
    for title, targets in policies.SLA_TARGETS.items():
        sla_lines.append(f"{title}:")
        for priority in ("urgent", "high", "normal", "low"):
            t = targets[priority]
            sla_lines.append(
                f"- {priority.title()}: first reply within {_minutes(t['first_reply'])}, "
                f"next reply within {_minutes(t['next_reply'])}"
            )
    premium = " and ".join(t.title() for t in policies.PREMIUM_TIERS)
    hours = policies.VERIFICATION_VALID_HOURS
    return [
        (
            "Refund policy",
            "Billing & refunds",
            ["refund-policy", "policy"],
            f"Agents may refund up to {limits} per payment without escalation (the limit is per payment, in "
            "the payment's currency). "
            f"Loyalty tiers raise the limit: {tiers}.\n\n"
            f"Refunds are possible up to {policy.window_days} days after the charge. Above your limit, or "
            "outside the window, "
            f"do not refund: assign the ticket to the group {group}, which may refund up to "
            f"{policy.tier2_multiplier} times the agent limit.\n\n"
            "A refund always goes back to the original payment, in its currency, and never on an order of "
            "another customer. "
            "Choose the kind: Full (the whole remaining amount), Partial (part of it, e.g. a missing item) or "
            "Prorated (subscriptions, see below), and a reason code.",
            EVERYONE,
        ),
        (
            "Verifying a customer's identity",
            "Account & security",
            ["identity-verification", "policy"],
            "Before a password reset, an account unlock or a two-factor reset, verify the caller. Accept either:\n"
            "1. the last 4 digits of a card the customer paid with, or\n"
            "2. the number of one of the customer's orders (ORD-…).\n\n"
            "Never accept the email address alone: it may be the very thing an attacker controls. Record the "
            "verification "
            f"on the customer's profile; it is valid for {hours} hours.",
            EVERYONE,
        ),
        (
            "Password resets, account unlocks and 2FA resets",
            "Account & security",
            ["account", "policy"],
            "Only after a recorded identity verification. A password reset emails a link valid for one hour. "
            "An unlock clears "
            "the failed sign-in counter. A 2FA reset removes the customer's second factor; they set it up "
            "again at next sign-in.",
            EVERYONE,
        ),
        (
            "Prorated refunds for subscriptions",
            "Billing & refunds",
            ["refund-policy", "subscriptions"],
            "When a customer cancels mid-period, refund the unused part of the current period: price x whole "
            "days left / days in the period, "
            "rounded to the cent. Cancel the subscription in the same step.",
            EVERYONE,
        ),
        (
            "Duplicate charges",
            "Billing & refunds",
            ["duplicate-charge"],
            "Two successful charges of the same amount on one order within minutes are a duplicate. Refund the "
            "later one in full "
            "with reason code 'Duplicate charge'. Check the refunds first: a duplicate may already have been refunded.",
            EVERYONE,
        ),
        (
            "Shipping times",
            "Orders & shipping",
            ["shipping"],
            "Standard shipping takes 3-5 business days in the US and Canada, 5-8 days to Europe and the UK. "
            "Orders ship within 48 hours.",
            EVERYONE,
        ),
        (
            "Returns and exchanges",
            "Orders & shipping",
            ["returns"],
            f"Damaged, missing or wrong items are refunded up to {policy.window_days} days after the charge, "
            "to the original payment. "
            "Wrong items are exchanged free of charge; send a prepaid label.",
            EVERYONE,
        ),
        (
            "Cancelling a subscription",
            "Subscriptions",
            ["subscriptions"],
            "Subscriptions can be cancelled at any time. Customers who cancel mid-period get a prorated refund "
            "for the unused days.",
            EVERYONE,
        ),
        (
            "Escalation paths",
            "Internal: escalations",
            ["escalation", "policy", "internal"],
            f"Refunds above your limit or outside the {policy.window_days}-day window: {group} (set the group "
            "and clear the "
            "assignee, so the ticket lands in their queue, and leave an internal note saying what is asked and why "
            "you did not refund). Bugs and outages: Tier 2 Technical. "
            "Password resets, unlocks, 2FA resets and compromised accounts: Accounts & Security.\n\n"
            "Chargeback threats are urgent. Never promise a refund you cannot issue yourself: tell the "
            f"customer {group} will follow up.",
            INTERNAL,
        ),
        (
            "Refund limits by currency and loyalty tier",
            "Internal: billing",
            ["refund-policy", "policy", "internal"],
            "The most you may refund on one payment without escalating, by the payment's currency and the "
            "customer's loyalty tier "
            f"(Tier 2 Billing members: {policy.tier2_multiplier} times the agent limit):\n"
            + "\n".join(limit_lines)
            + f"\n\nThe window is {policy.window_days} days after the charge for everyone, whatever their tier. "
            "The limit counts what was already refunded on the same payment.",
            INTERNAL,
        ),
        (
            "SLA targets",
            "Internal: service levels",
            ["sla", "policy", "internal"],
            f"Premium customers are {premium} loyalty members; everyone else is on Standard. Targets by priority:\n"
            + "\n".join(sla_lines)
            + "\n\nTickets without a priority have no target. The clock stops when you send a public reply; an "
            "internal note does not count.",
            INTERNAL,
        ),
        (
            "Pending tickets and automatic closing",
            "Internal: service levels",
            ["automations", "internal"],
            "A ticket waiting for the customer (Pending) gets a reminder after "
            f"{policies.REMIND_PENDING_AFTER_HOURS} hours "
            f"and is solved after {policies.SOLVE_PENDING_AFTER_HOURS} hours without a reply. "
            f"Solved tickets close {policies.CLOSE_SOLVED_AFTER_HOURS} hours after they were solved; a closed "
            "ticket can no "
            "longer be updated: create a follow-up. A customer's reply reopens a pending, on-hold or solved ticket.",
            INTERNAL,
        ),
    ]


def generate(gen):
    s = Seeder(gen)
    s.people()
    s.rules()
    s.articles()
    s.tickets()
    s.messy()
    if gen.knobs.get("simulated_customers"):
        s.vague_openings()
