"""Northwind Procure: the models compiled from the anchor (environment factory; rebuild, do not edit)."""

from django.db import models

from replicas.worlds.models import WorldForeignKey, WorldModel, world_unique


class Person(WorldModel):
    """Someone who signs in: a role, an approval limit in the home currency, maybe away with a delegate."""

    number = models.PositiveIntegerField()
    name = models.CharField(max_length=100)
    email = models.EmailField()
    role = models.CharField(
        max_length=9,
        choices=[("requester", "Requester"), ("approver", "Approver"), ("buyer", "Buyer"), ("ap_clerk", "AP clerk")],
    )
    approval_limit = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    out_of_office = models.BooleanField(default=False)
    delegate = WorldForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("procurement_person_number", "number")]

    def __str__(self):
        return self.name


class Vendor(WorldModel):
    """Vendor (V-…)."""

    number = models.PositiveIntegerField()
    name = models.CharField(max_length=80, blank=True, default="")
    category = models.CharField(
        max_length=15,
        choices=[
            ("IT hardware", "IT hardware"),
            ("Software", "Software"),
            ("Office supplies", "Office supplies"),
            ("Logistics", "Logistics"),
            ("Facilities", "Facilities"),
        ],
        blank=True,
        default="",
    )
    contact_email = models.EmailField(max_length=254, blank=True, default="")
    payment_terms = models.CharField(
        max_length=6, choices=[("Net 30", "Net 30"), ("Net 45", "Net 45"), ("Net 60", "Net 60")], blank=True, default=""
    )
    city = models.CharField(max_length=60, blank=True, default="")
    status = models.CharField(
        max_length=7, choices=[("pending", "Pending"), ("active", "Active"), ("blocked", "Blocked")], default="pending"
    )
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("procurement_vendor_number", "number")]

    def __str__(self):
        return f"V-{self.number}"


class PurchaseRequest(WorldModel):
    """Purchase request (PR-…)."""

    number = models.PositiveIntegerField()
    title = models.CharField(max_length=100, blank=True, default="")
    vendor = WorldForeignKey(Vendor, on_delete=models.PROTECT, related_name="+", db_index=False)
    requested_by = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+", db_index=False)
    approver = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+", db_index=False)
    quantity = models.IntegerField()
    unit_price = models.DecimalField(max_digits=14, decimal_places=2)
    total = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    needed_by = models.DateField(null=True, blank=True)
    justification = models.TextField(blank=True, default="")
    currency = models.CharField(max_length=3, default="USD")
    status = models.CharField(
        max_length=9,
        choices=[
            ("draft", "Draft"),
            ("submitted", "Submitted"),
            ("approved", "Approved"),
            ("rejected", "Rejected"),
            ("ordered", "Ordered"),
        ],
        default="draft",
    )
    decided_by = WorldForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("procurement_purchase_request_number", "number")]

    def __str__(self):
        return f"PR-{self.number}"


class PurchaseOrder(WorldModel):
    """Purchase order (PO-…)."""

    number = models.PositiveIntegerField()
    reference = models.CharField(max_length=40, blank=True, default="")
    request = WorldForeignKey(PurchaseRequest, on_delete=models.PROTECT, related_name="+", db_index=False)
    vendor = WorldForeignKey(Vendor, on_delete=models.PROTECT, related_name="+", db_index=False)
    buyer = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+", db_index=False)
    quantity = models.IntegerField()
    total = models.DecimalField(max_digits=14, decimal_places=2)
    expected_on = models.DateField(null=True, blank=True)
    currency = models.CharField(max_length=3, default="USD")
    status = models.CharField(
        max_length=9,
        choices=[
            ("open", "Open"),
            ("sent", "Sent"),
            ("received", "Received"),
            ("closed", "Closed"),
            ("cancelled", "Cancelled"),
        ],
        default="open",
    )
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("procurement_purchase_order_number", "number")]

    def __str__(self):
        return f"PO-{self.number}"


class GoodsReceipt(WorldModel):
    """Goods receipt (GR-…)."""

    number = models.PositiveIntegerField()
    note = models.CharField(max_length=80, blank=True, default="")
    order = WorldForeignKey(PurchaseOrder, on_delete=models.PROTECT, related_name="+", db_index=False)
    received_by = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+", db_index=False)
    quantity_received = models.IntegerField()
    received_on = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("procurement_goods_receipt_number", "number")]

    def __str__(self):
        return f"GR-{self.number}"


class Invoice(WorldModel):
    """Invoice (INV-…)."""

    number = models.PositiveIntegerField()
    vendor_reference = models.CharField(max_length=40, blank=True, default="")
    receipt = WorldForeignKey(GoodsReceipt, on_delete=models.PROTECT, related_name="+", db_index=False)
    order = WorldForeignKey(PurchaseOrder, on_delete=models.PROTECT, related_name="+", db_index=False)
    quantity = models.IntegerField()
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    due_on = models.DateField(null=True, blank=True)
    currency = models.CharField(max_length=3, default="USD")
    status = models.CharField(
        max_length=9,
        choices=[
            ("received", "Received"),
            ("matched", "Matched"),
            ("exception", "Exception"),
            ("approved", "Approved"),
            ("paid", "Paid"),
        ],
        default="received",
    )
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("procurement_invoice_number", "number")]

    def __str__(self):
        return f"INV-{self.number}"


class AuditEntry(WorldModel):
    """One write, as the audit log shows it: who did what to which record, when."""

    number = models.PositiveIntegerField()
    at = models.DateTimeField()
    actor = WorldForeignKey(Person, null=True, on_delete=models.SET_NULL, related_name="+", db_index=False)
    entity = models.CharField(max_length=40)
    record = models.CharField(max_length=20)
    action = models.CharField(max_length=40)
    detail = models.TextField(blank=True, default="")

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("procurement_auditentry_number", "number")]
