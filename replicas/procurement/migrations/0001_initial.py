import django.db.models.deletion
from django.db import migrations, models

import replicas.worlds.models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("worlds", "0006_workspaces"),
    ]

    operations = [
        migrations.CreateModel(
            name="Person",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("name", models.CharField(max_length=100)),
                ("email", models.EmailField(max_length=254)),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("requester", "Requester"),
                            ("approver", "Approver"),
                            ("buyer", "Buyer"),
                            ("ap_clerk", "AP clerk"),
                        ],
                        max_length=9,
                    ),
                ),
                ("approval_limit", models.DecimalField(decimal_places=2, default=0, max_digits=14)),
                ("out_of_office", models.BooleanField(default=False)),
                (
                    "delegate",
                    replicas.worlds.models.WorldForeignKey(
                        blank=True,
                        db_constraint=False,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="procurement.person",
                    ),
                ),
                (
                    "world",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        editable=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="worlds.world",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="GoodsReceipt",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("note", models.CharField(blank=True, default="", max_length=80)),
                ("quantity_received", models.IntegerField()),
                ("received_on", models.DateField(blank=True, null=True)),
                ("created_at", models.DateTimeField()),
                ("updated_at", models.DateTimeField()),
                (
                    "world",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        editable=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="worlds.world",
                    ),
                ),
                (
                    "received_by",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="procurement.person",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="AuditEntry",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("at", models.DateTimeField()),
                ("entity", models.CharField(max_length=40)),
                ("record", models.CharField(max_length=20)),
                ("action", models.CharField(max_length=40)),
                ("detail", models.TextField(blank=True, default="")),
                (
                    "world",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        editable=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="worlds.world",
                    ),
                ),
                (
                    "actor",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="procurement.person",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="PurchaseOrder",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("reference", models.CharField(blank=True, default="", max_length=40)),
                ("quantity", models.IntegerField()),
                ("total", models.DecimalField(decimal_places=2, max_digits=14)),
                ("expected_on", models.DateField(blank=True, null=True)),
                ("currency", models.CharField(default="USD", max_length=3)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("open", "Open"),
                            ("sent", "Sent"),
                            ("received", "Received"),
                            ("closed", "Closed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="open",
                        max_length=9,
                    ),
                ),
                ("created_at", models.DateTimeField()),
                ("updated_at", models.DateTimeField()),
                (
                    "buyer",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="procurement.person",
                    ),
                ),
                (
                    "world",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        editable=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="worlds.world",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Invoice",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("vendor_reference", models.CharField(blank=True, default="", max_length=40)),
                ("quantity", models.IntegerField()),
                ("amount", models.DecimalField(decimal_places=2, max_digits=14)),
                ("due_on", models.DateField(blank=True, null=True)),
                ("currency", models.CharField(default="USD", max_length=3)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("received", "Received"),
                            ("matched", "Matched"),
                            ("exception", "Exception"),
                            ("approved", "Approved"),
                            ("paid", "Paid"),
                        ],
                        default="received",
                        max_length=9,
                    ),
                ),
                ("created_at", models.DateTimeField()),
                ("updated_at", models.DateTimeField()),
                (
                    "receipt",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="procurement.goodsreceipt",
                    ),
                ),
                (
                    "world",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        editable=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="worlds.world",
                    ),
                ),
                (
                    "order",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="procurement.purchaseorder",
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="goodsreceipt",
            name="order",
            field=replicas.worlds.models.WorldForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="procurement.purchaseorder",
            ),
        ),
        migrations.CreateModel(
            name="PurchaseRequest",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("title", models.CharField(blank=True, default="", max_length=100)),
                ("quantity", models.IntegerField()),
                ("unit_price", models.DecimalField(decimal_places=2, max_digits=14)),
                ("total", models.DecimalField(blank=True, decimal_places=2, max_digits=14, null=True)),
                ("needed_by", models.DateField(blank=True, null=True)),
                ("justification", models.TextField(blank=True, default="")),
                ("currency", models.CharField(default="USD", max_length=3)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("draft", "Draft"),
                            ("submitted", "Submitted"),
                            ("approved", "Approved"),
                            ("rejected", "Rejected"),
                            ("ordered", "Ordered"),
                        ],
                        default="draft",
                        max_length=9,
                    ),
                ),
                ("created_at", models.DateTimeField()),
                ("updated_at", models.DateTimeField()),
                (
                    "approver",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="procurement.person",
                    ),
                ),
                (
                    "decided_by",
                    replicas.worlds.models.WorldForeignKey(
                        blank=True,
                        db_constraint=False,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="procurement.person",
                    ),
                ),
                (
                    "requested_by",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="procurement.person",
                    ),
                ),
                (
                    "world",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        editable=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="worlds.world",
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="purchaseorder",
            name="request",
            field=replicas.worlds.models.WorldForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="procurement.purchaserequest",
            ),
        ),
        migrations.CreateModel(
            name="Vendor",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("name", models.CharField(blank=True, default="", max_length=80)),
                (
                    "category",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("IT hardware", "IT hardware"),
                            ("Software", "Software"),
                            ("Office supplies", "Office supplies"),
                            ("Logistics", "Logistics"),
                            ("Facilities", "Facilities"),
                        ],
                        default="",
                        max_length=15,
                    ),
                ),
                ("contact_email", models.EmailField(blank=True, default="", max_length=254)),
                (
                    "payment_terms",
                    models.CharField(
                        blank=True,
                        choices=[("Net 30", "Net 30"), ("Net 45", "Net 45"), ("Net 60", "Net 60")],
                        default="",
                        max_length=6,
                    ),
                ),
                ("city", models.CharField(blank=True, default="", max_length=60)),
                (
                    "status",
                    models.CharField(
                        choices=[("pending", "Pending"), ("active", "Active"), ("blocked", "Blocked")],
                        default="pending",
                        max_length=7,
                    ),
                ),
                ("created_at", models.DateTimeField()),
                ("updated_at", models.DateTimeField()),
                (
                    "world",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        editable=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="worlds.world",
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="purchaserequest",
            name="vendor",
            field=replicas.worlds.models.WorldForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="procurement.vendor",
            ),
        ),
        migrations.AddField(
            model_name="purchaseorder",
            name="vendor",
            field=replicas.worlds.models.WorldForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="procurement.vendor",
            ),
        ),
        migrations.AddConstraint(
            model_name="person",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="procurement_person_number"),
        ),
        migrations.AddConstraint(
            model_name="auditentry",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="procurement_auditentry_number"),
        ),
        migrations.AddConstraint(
            model_name="invoice",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="procurement_invoice_number"),
        ),
        migrations.AddConstraint(
            model_name="goodsreceipt",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="procurement_goods_receipt_number"),
        ),
        migrations.AddConstraint(
            model_name="vendor",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="procurement_vendor_number"),
        ),
        migrations.AddConstraint(
            model_name="purchaserequest",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="procurement_purchase_request_number"),
        ),
        migrations.AddConstraint(
            model_name="purchaseorder",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="procurement_purchase_order_number"),
        ),
    ]
