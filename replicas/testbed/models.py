"""Testbed state: the team's members and their notes."""

from decimal import Decimal

from django.db import models

from replicas.worlds.models import WorldForeignKey, WorldModel, world_unique


class Member(WorldModel):
    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        MEMBER = "member", "Member"

    public_id = models.PositiveIntegerField()
    name = models.CharField(max_length=100)
    email = models.EmailField()
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("tb_member_public_id", "public_id")]

    def __str__(self):
        return self.name


class Note(WorldModel):
    public_id = models.PositiveIntegerField()
    title = models.CharField(max_length=120)
    body = models.TextField(blank=True)
    owner = WorldForeignKey(Member, on_delete=models.CASCADE, related_name="notes", db_index=False)
    done = models.BooleanField(default=False)
    remind_at = models.DateTimeField(null=True, blank=True)
    reminded = models.BooleanField(default=False)
    # how long the work the note describes should take, in hours (quarter hours)
    estimate_hours = models.DecimalField(max_digits=5, decimal_places=2, default=Decimal("0"))
    updated_at = models.DateTimeField()

    public_key = ("public_id",)

    class Meta:
        constraints = [world_unique("tb_note_public_id", "public_id")]

    def __str__(self):
        return f"#{self.public_id} {self.title}"
