"""Support desk state: people and groups, tickets and their conversations and audit log,
the desk's business rules (macros, views, triggers, automations, SLA policies), the
help center, and the customers' commerce data (orders, payments, refunds, subscriptions).

Money is a Decimal with two places next to an ISO 4217 currency code. Every row carries
a per-world public id that looks like the product's (ticket #8821, ORD-48213, ch_…).
Foreign keys nothing looks rows up by carry no index (db_index=False): every index is
paid for on each world clone, which must stay in the tens of milliseconds.
"""

from django.db import models

from replicas.worlds.models import WorldForeignKey, WorldModel, world_unique

CURRENCIES = [("USD", "USD"), ("EUR", "EUR"), ("GBP", "GBP"), ("CAD", "CAD")]


def money_field(**kwargs):
    return models.DecimalField(max_digits=12, decimal_places=2, **kwargs)


class Organization(WorldModel):
    public_id = models.PositiveBigIntegerField()
    name = models.CharField(max_length=200)
    domain = models.CharField(max_length=200, blank=True)
    notes = models.TextField(blank=True)
    tags = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_org_public_id", "public_id")]

    def __str__(self):
        return self.name


class Group(WorldModel):
    public_id = models.PositiveBigIntegerField()
    name = models.CharField(max_length=200)
    description = models.CharField(max_length=300, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_group_public_id", "public_id")]

    def __str__(self):
        return self.name


class User(WorldModel):
    """An agent, an administrator or a customer (end user) of the desk."""

    class Role(models.TextChoices):
        END_USER = "end-user", "End user"
        AGENT = "agent", "Agent"
        ADMIN = "admin", "Administrator"

    class Tier(models.TextChoices):
        NONE = "", "None"
        BRONZE = "bronze", "Bronze"
        SILVER = "silver", "Silver"
        GOLD = "gold", "Gold"
        PLATINUM = "platinum", "Platinum"

    public_id = models.PositiveBigIntegerField()
    name = models.CharField(max_length=200)
    email = models.EmailField()
    phone = models.CharField(max_length=40, blank=True)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.END_USER)
    organization = WorldForeignKey(
        Organization, null=True, blank=True, on_delete=models.SET_NULL, related_name="members"
    )
    default_group = WorldForeignKey(
        Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    locale = models.CharField(max_length=10, default="en-US")
    time_zone = models.CharField(max_length=60, default="Eastern Time (US & Canada)")
    tags = models.JSONField(default=list, blank=True)
    notes = models.TextField(blank=True)
    verified = models.BooleanField(default=True)
    suspended = models.BooleanField(default=False)
    created_at = models.DateTimeField()
    # Customers' profile: loyalty programme, and the sign-in state agents can repair
    # (password reset, unlock, two-factor reset) once the caller's identity is verified.
    loyalty_tier = models.CharField(max_length=10, choices=Tier.choices, blank=True, default="")
    external_id = models.CharField(max_length=40, blank=True, help_text="Id in the legacy CRM, when imported.")
    profile_updated_at = models.DateTimeField(null=True, blank=True)
    last_login_at = models.DateTimeField(null=True, blank=True)
    locked_at = models.DateTimeField(null=True, blank=True, help_text="Set while the account is locked.")
    failed_logins = models.PositiveSmallIntegerField(default=0)
    twofactor_enabled = models.BooleanField(default=False)
    twofactor_method = models.CharField(max_length=10, blank=True, help_text="app or sms")
    password_reset_at = models.DateTimeField(null=True, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_user_public_id", "public_id")]

    def __str__(self):
        return self.name

    @property
    def is_agent(self):
        return self.role != self.Role.END_USER

    @property
    def first_name(self):
        return self.name.split(" ", 1)[0]

    @property
    def last_name(self):
        return self.name.rsplit(" ", 1)[-1] if " " in self.name else ""

    @property
    def locked(self):
        return self.locked_at is not None


class Membership(WorldModel):
    """An agent's place in a group."""

    user = WorldForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    group = WorldForeignKey(Group, on_delete=models.CASCADE, related_name="memberships")

    public_key = ("user", "group")

    class Meta:
        constraints = [world_unique("sd_membership_key", "user", "group")]


class Identity(WorldModel):
    """One of a customer's ways to be reached: an email address or a phone number."""

    class Kind(models.TextChoices):
        EMAIL = "email", "Email"
        PHONE = "phone", "Phone number"

    public_id = models.PositiveBigIntegerField()
    user = WorldForeignKey(User, on_delete=models.CASCADE, related_name="identities")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    value = models.CharField(max_length=200)
    primary = models.BooleanField(default=False)
    verified = models.BooleanField(default=True)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_identity_key", "public_id")]


class Ticket(WorldModel):
    class Status(models.TextChoices):
        NEW = "new", "New"
        OPEN = "open", "Open"
        PENDING = "pending", "Pending"
        HOLD = "hold", "On-hold"
        SOLVED = "solved", "Solved"
        CLOSED = "closed", "Closed"

    class Priority(models.TextChoices):
        LOW = "low", "Low"
        NORMAL = "normal", "Normal"
        HIGH = "high", "High"
        URGENT = "urgent", "Urgent"

    class Type(models.TextChoices):
        QUESTION = "question", "Question"
        INCIDENT = "incident", "Incident"
        PROBLEM = "problem", "Problem"
        TASK = "task", "Task"

    class Channel(models.TextChoices):
        EMAIL = "email", "Email"
        WEB = "web", "Web form"
        CHAT = "chat", "Chat"
        PHONE = "phone", "Phone"
        SOCIAL = "social", "Social"

    class RefundType(models.TextChoices):
        NONE = "", "-"
        FULL = "full", "Full refund"
        PARTIAL = "partial", "Partial refund"
        PRORATED = "prorated", "Prorated refund"
        NO_REFUND = "no_refund", "No refund"

    class Product(models.TextChoices):
        NONE = "", "-"
        AURORA_LAMP = "aurora_lamp", "Aurora Desk Lamp"
        NIMBUS_HEADPHONES = "nimbus_headphones", "Nimbus Headphones"
        TERRA_BOTTLE = "terra_bottle", "Terra Water Bottle"
        VOLT_CHARGER = "volt_charger", "Volt Charger"
        ORBIT_KEYBOARD = "orbit_keyboard", "Orbit Keyboard"
        PULSE_WATCH = "pulse_watch", "Pulse Watch"
        SUBSCRIPTION = "subscription", "Cloud subscription"

    public_id = models.PositiveIntegerField(help_text="The ticket number people see, e.g. #8821.")
    subject = models.CharField(max_length=250)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.NEW)
    priority = models.CharField(max_length=10, choices=Priority.choices, blank=True)
    type = models.CharField(max_length=10, choices=Type.choices, blank=True)
    channel = models.CharField(max_length=10, choices=Channel.choices, default=Channel.EMAIL)
    requester = WorldForeignKey(User, on_delete=models.PROTECT, related_name="requested_tickets")
    submitter = WorldForeignKey(User, on_delete=models.PROTECT, related_name="+", db_index=False)
    assignee = WorldForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned_tickets", db_index=False
    )
    group = WorldForeignKey(
        Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="tickets", db_index=False
    )
    organization = WorldForeignKey(
        Organization, null=True, blank=True, on_delete=models.SET_NULL, related_name="tickets", db_index=False
    )
    tags = models.JSONField(default=list, blank=True)
    merged_into = WorldForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged", db_index=False
    )
    followers = models.ManyToManyField(User, through="TicketFollower", related_name="followed_tickets", blank=True)
    # Custom ticket fields of this desk (shown in the properties panel).
    order_number = models.CharField(max_length=20, blank=True, help_text="Custom field: Order number (ORD-…).")
    refund_type = models.CharField(max_length=10, choices=RefundType.choices, blank=True)
    product = models.CharField(max_length=20, choices=Product.choices, blank=True)
    # Tickets migrated from the legacy desk keep their original date only as text,
    # in that system's ambiguous format ("03/02/26 09:15 AM"); created_at is the import time.
    imported_date = models.CharField(max_length=32, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    solved_at = models.DateTimeField(null=True, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_ticket_public_id", "public_id")]
        indexes = [models.Index(fields=["world", "status", "updated_at"], name="sd_ticket_status")]

    def __str__(self):
        return f"#{self.public_id} {self.subject}"


class TicketFollower(WorldModel):
    """An agent who follows a ticket and is told about its updates."""

    ticket = WorldForeignKey(Ticket, on_delete=models.CASCADE, related_name="follower_links")
    user = WorldForeignKey(User, on_delete=models.CASCADE, related_name="+", db_index=False)
    created_at = models.DateTimeField()

    public_key = ("ticket", "user")

    class Meta:
        constraints = [world_unique("sd_ticketfollower_key", "ticket", "user")]


class Comment(WorldModel):
    """One entry of a ticket's conversation: a public reply or an internal note."""

    public_id = models.PositiveBigIntegerField()
    ticket = WorldForeignKey(Ticket, on_delete=models.CASCADE, related_name="comments")
    author = WorldForeignKey(User, on_delete=models.PROTECT, related_name="+", db_index=False)
    body = models.TextField()
    public = models.BooleanField(default=True)
    channel = models.CharField(max_length=10, choices=Ticket.Channel.choices, default=Ticket.Channel.EMAIL)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_comment_key", "public_id")]


class TicketEvent(WorldModel):
    """The ticket's audit log: one field change (or a notable act) by someone, via something."""

    class Via(models.TextChoices):
        WEB = "web", "Agent workspace"
        API = "api", "API"
        MACRO = "macro", "Macro"
        TRIGGER = "trigger", "Trigger"
        AUTOMATION = "automation", "Automation"
        MERGE = "merge", "Ticket merge"
        BULK = "bulk", "Bulk update"
        MAIL = "mail", "Email"
        SYSTEM = "system", "System"

    public_id = models.PositiveBigIntegerField()
    ticket = WorldForeignKey(Ticket, on_delete=models.CASCADE, related_name="events")
    actor = WorldForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False)
    kind = models.CharField(max_length=20, help_text="create, change, comment, merge, refund, notification, …")
    field = models.CharField(max_length=30, blank=True)
    from_value = models.TextField(blank=True)
    to_value = models.TextField(blank=True)
    via = models.CharField(max_length=12, choices=Via.choices, default=Via.WEB)
    rule = models.CharField(max_length=200, blank=True, help_text="The trigger, automation or macro that acted.")
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_ticketevent_key", "public_id")]


class Macro(WorldModel):
    """A canned response: field changes plus a comment with placeholders.

    `actions` is a list of {"field": ..., "value": ...}; fields are status, priority,
    type, group (name), assignee (email or "current_user"), add_tags, remove_tags,
    set_tags, refund_type, comment_value (text with {{placeholders}}), comment_mode
    ("public" or "internal").
    """

    public_id = models.PositiveBigIntegerField()
    title = models.CharField(max_length=200)
    description = models.CharField(max_length=300, blank=True)
    actions = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    position = models.PositiveIntegerField(default=0)
    usage_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_macro_key", "public_id")]


class View(WorldModel):
    """A saved ticket list: conditions over ticket fields, an order, a place in the sidebar.

    `conditions` is {"all": [...], "any": [...]} of {"field", "operator", "value"}.
    """

    public_id = models.PositiveBigIntegerField()
    slug = models.SlugField(max_length=80)
    title = models.CharField(max_length=200)
    conditions = models.JSONField(default=dict)
    order_by = models.CharField(max_length=30, default="-updated_at")
    position = models.PositiveIntegerField(default=0)
    active = models.BooleanField(default=True)
    owner = WorldForeignKey(
        User,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="Personal view of this agent; shared when empty.",
    )

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_view_key", "public_id")]


class Trigger(WorldModel):
    """A business rule run right after a ticket is created or updated."""

    public_id = models.PositiveBigIntegerField()
    title = models.CharField(max_length=200)
    conditions = models.JSONField(default=dict)
    actions = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    position = models.PositiveIntegerField(default=0)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_trigger_key", "public_id")]


class Automation(WorldModel):
    """A time-based business rule, evaluated when the world clock moves."""

    public_id = models.PositiveBigIntegerField()
    title = models.CharField(max_length=200)
    conditions = models.JSONField(default=dict)
    actions = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    position = models.PositiveIntegerField(default=0)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_automation_key", "public_id")]


class SlaPolicy(WorldModel):
    """Reply-time targets per priority for the tickets that match its conditions.

    `targets` maps a priority to {"first_reply": minutes, "next_reply": minutes}.
    """

    public_id = models.PositiveBigIntegerField()
    title = models.CharField(max_length=200)
    description = models.CharField(max_length=300, blank=True)
    conditions = models.JSONField(default=dict)
    targets = models.JSONField(default=dict)
    position = models.PositiveIntegerField(default=0)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_slapolicy_key", "public_id")]


class Article(WorldModel):
    """A help-center article; the desk's policies (refund limits, identity checks) live here.

    Articles visible to everyone make the public help center; those visible to agents only are
    the internal knowledge base (limits by tier, escalation paths, SLA targets).
    """

    class Visibility(models.TextChoices):
        EVERYONE = "everyone", "Everyone"
        AGENTS = "agents", "Agents and admins"

    public_id = models.PositiveBigIntegerField()
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.EVERYONE)
    title = models.CharField(max_length=250)
    section = models.CharField(max_length=100)
    body = models.TextField()
    labels = models.JSONField(default=list, blank=True)
    author = WorldForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False)
    draft = models.BooleanField(default=False)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_article_key", "public_id")]


class Order(WorldModel):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        PAID = "paid", "Paid"
        FULFILLED = "fulfilled", "Fulfilled"
        CANCELLED = "cancelled", "Cancelled"
        REFUNDED = "refunded", "Refunded"
        PARTIALLY_REFUNDED = "partially_refunded", "Partially refunded"

    public_id = models.CharField(max_length=20, help_text="ORD-48213")
    customer = WorldForeignKey(User, on_delete=models.PROTECT, related_name="orders")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PAID)
    currency = models.CharField(max_length=3, choices=CURRENCIES)
    subtotal = money_field()
    shipping = money_field(default=0)
    tax = money_field(default=0)
    total = money_field()
    ship_to = models.CharField(max_length=200, blank=True)
    tracking_number = models.CharField(max_length=40, blank=True)
    placed_at = models.DateTimeField()
    fulfilled_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_order_public_id", "public_id")]

    def __str__(self):
        return self.public_id


class OrderItem(WorldModel):
    order = WorldForeignKey(Order, on_delete=models.CASCADE, related_name="items")
    line = models.PositiveSmallIntegerField()
    sku = models.CharField(max_length=30)
    product = models.CharField(max_length=20, choices=Ticket.Product.choices)
    name = models.CharField(max_length=200)
    quantity = models.PositiveIntegerField(default=1)
    unit_price = money_field()

    public_key = ("order", "line")

    class Meta:
        constraints = [world_unique("sd_orderitem_key", "order", "line")]


class Subscription(WorldModel):
    class Status(models.TextChoices):
        TRIALING = "trialing", "Trialing"
        ACTIVE = "active", "Active"
        PAST_DUE = "past_due", "Past due"
        CANCELLED = "cancelled", "Cancelled"

    class Plan(models.TextChoices):
        STARTER = "starter", "Starter"
        PRO = "pro", "Pro"
        BUSINESS = "business", "Business"

    public_id = models.CharField(max_length=20, help_text="SUB-20931")
    customer = WorldForeignKey(User, on_delete=models.PROTECT, related_name="subscriptions")
    plan = models.CharField(max_length=10, choices=Plan.choices)
    interval = models.CharField(max_length=5, choices=[("month", "Monthly"), ("year", "Yearly")])
    price = money_field()
    currency = models.CharField(max_length=3, choices=CURRENCIES)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    started_at = models.DateTimeField()
    current_period_start = models.DateTimeField()
    current_period_end = models.DateTimeField()
    cancelled_at = models.DateTimeField(null=True, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_subscription_key", "public_id")]

    def __str__(self):
        return self.public_id


class Payment(WorldModel):
    """A card charge, for an order or for a subscription period."""

    class Status(models.TextChoices):
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    public_id = models.CharField(max_length=32, help_text="ch_…")
    customer = WorldForeignKey(User, on_delete=models.PROTECT, related_name="payments")
    order = WorldForeignKey(Order, null=True, blank=True, on_delete=models.PROTECT, related_name="payments")
    subscription = WorldForeignKey(
        Subscription, null=True, blank=True, on_delete=models.PROTECT, related_name="payments", db_index=False
    )
    amount = money_field()
    currency = models.CharField(max_length=3, choices=CURRENCIES)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SUCCEEDED)
    card_brand = models.CharField(max_length=12)
    card_last4 = models.CharField(max_length=4)
    description = models.CharField(max_length=200, blank=True)
    captured_at = models.DateTimeField()
    # For subscription charges: the service period this payment paid for.
    period_start = models.DateTimeField(null=True, blank=True)
    period_end = models.DateTimeField(null=True, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_payment_key", "public_id")]

    def __str__(self):
        return self.public_id


class Refund(WorldModel):
    class Kind(models.TextChoices):
        FULL = "full", "Full"
        PARTIAL = "partial", "Partial"
        PRORATED = "prorated", "Prorated"

    class Reason(models.TextChoices):
        DUPLICATE = "duplicate", "Duplicate charge"
        DAMAGED = "damaged", "Item damaged"
        NOT_RECEIVED = "not_received", "Item not received"
        MISSING_ITEM = "missing_item", "Item missing from order"
        WRONG_ITEM = "wrong_item", "Wrong item sent"
        CANCELLATION = "cancellation", "Subscription cancellation"
        GOODWILL = "goodwill", "Goodwill gesture"
        OTHER = "other", "Other"

    public_id = models.CharField(max_length=32, help_text="re_…")
    payment = WorldForeignKey(Payment, on_delete=models.PROTECT, related_name="refunds")
    amount = money_field()
    currency = models.CharField(max_length=3, choices=CURRENCIES)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    reason = models.CharField(max_length=20, choices=Reason.choices)
    note = models.CharField(max_length=500, blank=True)
    agent = WorldForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False)
    ticket = WorldForeignKey(
        Ticket, null=True, blank=True, on_delete=models.SET_NULL, related_name="refunds", db_index=False
    )
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_refund_key", "public_id")]

    def __str__(self):
        return self.public_id


class IdentityVerification(WorldModel):
    """A record that an agent verified a customer's identity, and how."""

    class Method(models.TextChoices):
        CARD_LAST4 = "card_last4", "Last 4 digits of the card on file"
        ORDER_NUMBER = "order_number", "Number of a recent order"

    public_id = models.PositiveBigIntegerField()
    customer = WorldForeignKey(User, on_delete=models.CASCADE, related_name="verifications")
    agent = WorldForeignKey(User, on_delete=models.PROTECT, related_name="+", db_index=False)
    ticket = WorldForeignKey(Ticket, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False)
    method = models.CharField(max_length=20, choices=Method.choices)
    evidence = models.CharField(max_length=40, help_text="What the customer gave, as shown to agents.")
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_identityverification_key", "public_id")]


class AccountEvent(WorldModel):
    """Security actions an agent took on a customer's account (reset, unlock, 2FA reset)."""

    public_id = models.PositiveBigIntegerField()
    customer = WorldForeignKey(User, on_delete=models.CASCADE, related_name="account_events")
    agent = WorldForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False)
    ticket = WorldForeignKey(Ticket, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False)
    action = models.CharField(max_length=30, help_text="password_reset, account_unlock, twofactor_reset, locked")
    detail = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("sd_accountevent_key", "public_id")]


class SignInFailure(models.Model):
    """A refused sign-in on a world's desk, counted to throttle guessing (policies.SIGNIN_*).

    Bookkeeping of the world's sign-in page, not desk data: it is no WorldModel, so it is
    in no snapshot, never cloned into a new world, and goes when its world is deleted.
    """

    world = models.ForeignKey("worlds.World", on_delete=models.CASCADE, related_name="+", db_index=False)
    email = models.CharField(max_length=254, help_text="As typed, lower-cased.")
    at = models.DateTimeField(help_text="The world clock when it happened.")

    class Meta:
        indexes = [models.Index(fields=["world", "email", "at"], name="sd_signin_failure")]
