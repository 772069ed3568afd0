"""Support desk state: organizations, people, groups, tickets and their conversations."""
from django.db import models

from replicas.worlds.models import WorldForeignKey, WorldModel


class Organization(WorldModel):
    public_id = models.PositiveBigIntegerField()
    name = models.CharField(max_length=200)
    domain = models.CharField(max_length=200, blank=True)
    notes = models.TextField(blank=True)
    tags = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["world", "public_id"], name="sd_org_public_id")]

    def __str__(self):
        return self.name


class Group(WorldModel):
    public_id = models.PositiveBigIntegerField()
    name = models.CharField(max_length=200)
    description = models.CharField(max_length=300, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["world", "public_id"], name="sd_group_public_id")]

    def __str__(self):
        return self.name


class User(WorldModel):
    class Role(models.TextChoices):
        END_USER = "end-user", "End user"
        AGENT = "agent", "Agent"
        ADMIN = "admin", "Administrator"

    public_id = models.PositiveBigIntegerField()
    name = models.CharField(max_length=200)
    email = models.EmailField()
    phone = models.CharField(max_length=40, blank=True)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.END_USER)
    organization = WorldForeignKey(Organization, null=True, blank=True, on_delete=models.SET_NULL, related_name="members")
    default_group = WorldForeignKey(Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    locale = models.CharField(max_length=10, default="en-US")
    time_zone = models.CharField(max_length=60, default="Eastern Time (US & Canada)")
    tags = models.JSONField(default=list, blank=True)
    notes = models.TextField(blank=True)
    verified = models.BooleanField(default=True)
    suspended = models.BooleanField(default=False)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["world", "public_id"], name="sd_user_public_id")]

    def __str__(self):
        return self.name

    @property
    def is_agent(self):
        return self.role != self.Role.END_USER


class Membership(WorldModel):
    """An agent's place in a group."""

    user = WorldForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    group = WorldForeignKey(Group, on_delete=models.CASCADE, related_name="memberships")

    public_key = ("user", "group")


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

    public_id = models.PositiveIntegerField(help_text="The ticket number people see, e.g. #8821.")
    subject = models.CharField(max_length=250)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.NEW)
    priority = models.CharField(max_length=10, choices=Priority.choices, blank=True)
    type = models.CharField(max_length=10, choices=Type.choices, blank=True)
    channel = models.CharField(max_length=10, choices=Channel.choices, default=Channel.EMAIL)
    requester = WorldForeignKey(User, on_delete=models.PROTECT, related_name="requested_tickets")
    submitter = WorldForeignKey(User, on_delete=models.PROTECT, related_name="+")
    assignee = WorldForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned_tickets")
    group = WorldForeignKey(Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="tickets")
    organization = WorldForeignKey(Organization, null=True, blank=True, on_delete=models.SET_NULL, related_name="tickets")
    tags = models.JSONField(default=list, blank=True)
    merged_into = WorldForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    solved_at = models.DateTimeField(null=True, blank=True)

    public_key = ("public_id",)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["world", "public_id"], name="sd_ticket_public_id")]
        indexes = [models.Index(fields=["world", "status", "updated_at"], name="sd_ticket_status")]

    def __str__(self):
        return f"#{self.public_id} {self.subject}"


class Comment(WorldModel):
    """One entry of a ticket's conversation: a public reply or an internal note."""

    public_id = models.PositiveBigIntegerField()
    ticket = WorldForeignKey(Ticket, on_delete=models.CASCADE, related_name="comments")
    author = WorldForeignKey(User, on_delete=models.PROTECT, related_name="+")
    body = models.TextField()
    public = models.BooleanField(default=True)
    channel = models.CharField(max_length=10, choices=Ticket.Channel.choices, default=Ticket.Channel.EMAIL)
    created_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["world", "public_id"], name="sd_comment_public_id")]
        indexes = [models.Index(fields=["ticket", "created_at"], name="sd_comment_ticket")]
