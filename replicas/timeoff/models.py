"""Harbor Leave: the models compiled from the anchor (environment factory; rebuild, do not edit)."""

from django.db import models

from replicas.worlds.models import WorldForeignKey, WorldModel, world_unique


class Person(WorldModel):
    """Someone who signs in: a role, an approval limit in the home currency, maybe away with a delegate."""

    number = models.PositiveIntegerField()
    name = models.CharField(max_length=100)
    email = models.EmailField()
    role = models.CharField(
        max_length=8, choices=[("employee", "Employee"), ("manager", "Manager"), ("hr_admin", "HR admin")]
    )
    approval_limit = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    out_of_office = models.BooleanField(default=False)
    delegate = WorldForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("timeoff_person_number", "number")]

    def __str__(self):
        return self.name


class Department(WorldModel):
    """Department (D-…)."""

    number = models.PositiveIntegerField()
    name = models.CharField(max_length=60, blank=True, default="")
    code = models.CharField(max_length=10, blank=True, default="")
    description = models.CharField(max_length=120, blank=True, default="")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("timeoff_department_number", "number")]

    def __str__(self):
        return f"D-{self.number}"


class Employee(WorldModel):
    """Employee (E-…)."""

    number = models.PositiveIntegerField()
    display_name = models.CharField(max_length=80, blank=True, default="")
    title = models.CharField(max_length=60, blank=True, default="")
    department = WorldForeignKey(Department, on_delete=models.PROTECT, related_name="+", db_index=False)
    employment_start_date = models.DateField(null=True, blank=True)
    works_remote = models.BooleanField(default=False)
    employment_status = models.CharField(
        max_length=10,
        choices=[("active", "Active"), ("inactive", "Inactive"), ("terminated", "Terminated")],
        default="active",
    )
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("timeoff_employee_number", "number")]

    def __str__(self):
        return f"E-{self.number}"


class TimeOffRequest(WorldModel):
    """Time-off request (TO-…)."""

    number = models.PositiveIntegerField()
    employee = WorldForeignKey(Employee, on_delete=models.PROTECT, related_name="+", db_index=False)
    request_type = models.CharField(
        max_length=11,
        choices=[
            ("vacation", "vacation"),
            ("sick", "sick"),
            ("personal", "personal"),
            ("jury_duty", "jury_duty"),
            ("volunteer", "volunteer"),
            ("bereavement", "bereavement"),
            ("other", "other"),
        ],
        blank=True,
        default="",
    )
    description = models.CharField(max_length=100, blank=True, default="")
    start_date = models.DateField(null=True, blank=True)
    end_date = models.DateField(null=True, blank=True)
    amount = models.IntegerField()
    requested_by = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+", db_index=False)
    approver = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+", db_index=False)
    status = models.CharField(
        max_length=9,
        choices=[
            ("requested", "Requested"),
            ("approved", "Approved"),
            ("declined", "Declined"),
            ("cancelled", "Cancelled"),
        ],
        default="requested",
    )
    decided_by = WorldForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    public_key = ("number",)

    class Meta:
        constraints = [world_unique("timeoff_time_off_request_number", "number")]

    def __str__(self):
        return f"TO-{self.number}"


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
        constraints = [world_unique("timeoff_auditentry_number", "number")]
