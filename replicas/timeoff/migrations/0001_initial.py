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
            name="Department",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("name", models.CharField(blank=True, default="", max_length=60)),
                ("code", models.CharField(blank=True, default="", max_length=10)),
                ("description", models.CharField(blank=True, default="", max_length=120)),
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
        migrations.CreateModel(
            name="Employee",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("display_name", models.CharField(blank=True, default="", max_length=80)),
                ("title", models.CharField(blank=True, default="", max_length=60)),
                ("employment_start_date", models.DateField(blank=True, null=True)),
                ("works_remote", models.BooleanField(default=False)),
                (
                    "employment_status",
                    models.CharField(
                        choices=[("active", "Active"), ("inactive", "Inactive"), ("terminated", "Terminated")],
                        default="active",
                        max_length=10,
                    ),
                ),
                ("created_at", models.DateTimeField()),
                ("updated_at", models.DateTimeField()),
                (
                    "department",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="timeoff.department",
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
            name="Person",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                ("name", models.CharField(max_length=100)),
                ("email", models.EmailField(max_length=254)),
                (
                    "role",
                    models.CharField(
                        choices=[("employee", "Employee"), ("manager", "Manager"), ("hr_admin", "HR admin")],
                        max_length=8,
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
                        to="timeoff.person",
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
                        to="timeoff.person",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="TimeOffRequest",
            fields=[
                ("id", models.BigIntegerField(editable=False, primary_key=True, serialize=False)),
                ("number", models.PositiveIntegerField()),
                (
                    "request_type",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("vacation", "vacation"),
                            ("sick", "sick"),
                            ("personal", "personal"),
                            ("jury_duty", "jury_duty"),
                            ("volunteer", "volunteer"),
                            ("bereavement", "bereavement"),
                            ("other", "other"),
                        ],
                        default="",
                        max_length=11,
                    ),
                ),
                ("description", models.CharField(blank=True, default="", max_length=100)),
                ("start_date", models.DateField(blank=True, null=True)),
                ("end_date", models.DateField(blank=True, null=True)),
                ("amount", models.IntegerField()),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("requested", "Requested"),
                            ("approved", "Approved"),
                            ("declined", "Declined"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="requested",
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
                        to="timeoff.person",
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
                        to="timeoff.person",
                    ),
                ),
                (
                    "employee",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="timeoff.employee",
                    ),
                ),
                (
                    "requested_by",
                    replicas.worlds.models.WorldForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="timeoff.person",
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
        migrations.AddConstraint(
            model_name="department",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="timeoff_department_number"),
        ),
        migrations.AddConstraint(
            model_name="employee",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="timeoff_employee_number"),
        ),
        migrations.AddConstraint(
            model_name="person",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="timeoff_person_number"),
        ),
        migrations.AddConstraint(
            model_name="auditentry",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="timeoff_auditentry_number"),
        ),
        migrations.AddConstraint(
            model_name="timeoffrequest",
            constraint=models.UniqueConstraint(fields=("world", "number"), name="timeoff_time_off_request_number"),
        ),
    ]
