"""The issue board's data: people, projects (components, versions, board columns), sprints,
issues and what hangs off them (comments, history, links, watchers). Every row belongs to one
world; issue keys like AGENT-142 are the public ids."""
from django.db import models

from replicas.worlds.models import WorldForeignKey, WorldModel

from . import workflow


class Person(WorldModel):
    """A team member who can sign in; `active` is false for people who left (still assigned to issues)."""

    public_key = ("username",)

    public_id = models.PositiveIntegerField()
    username = models.CharField(max_length=40)
    name = models.CharField(max_length=120)
    email = models.EmailField()
    is_admin = models.BooleanField(default=False)
    active = models.BooleanField(default=True)
    avatar_color = models.CharField(max_length=7)

    class Meta:
        indexes = [models.Index(fields=["world", "username"])]

    def __str__(self):
        return self.name

    @property
    def initials(self) -> str:
        parts = self.name.split()
        return (parts[0][0] + parts[-1][0]).upper() if len(parts) > 1 else self.name[:2].upper()


class Project(WorldModel):
    public_key = ("key",)

    key = models.CharField(max_length=10)
    name = models.CharField(max_length=80)
    lead = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+")
    # the project's contributing page: the triage rules tasks refer to
    contributing = models.TextField(blank=True)

    def __str__(self):
        return self.key


class Component(WorldModel):
    public_key = ("project", "name")

    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="components")
    name = models.CharField(max_length=60)
    lead = WorldForeignKey(Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")


class Version(WorldModel):
    public_key = ("project", "name")

    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="versions")
    name = models.CharField(max_length=30)
    released = models.BooleanField(default=False)
    release_date = models.DateField(null=True, blank=True)


class BoardColumn(WorldModel):
    """A column of the project's board: the status it shows and its WIP limit (None: no limit)."""

    public_key = ("project", "status")

    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="columns")
    status = models.CharField(max_length=20, choices=[(s, s) for s in workflow.STATUSES])
    position = models.PositiveSmallIntegerField()
    wip_limit = models.PositiveSmallIntegerField(null=True, blank=True)


class Sprint(WorldModel):
    class State(models.TextChoices):
        FUTURE = "future", "Future"
        ACTIVE = "active", "Active"
        CLOSED = "closed", "Closed"

    public_key = ("public_id",)

    public_id = models.PositiveIntegerField()
    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="sprints")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=60)
    goal = models.CharField(max_length=200, blank=True)
    state = models.CharField(max_length=10, choices=State.choices)
    start = models.DateTimeField(null=True, blank=True)
    end = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return self.name


class Issue(WorldModel):
    public_key = ("key",)

    key = models.CharField(max_length=20)
    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="issues")
    number = models.PositiveIntegerField()
    issue_type = models.CharField(max_length=10, choices=[(t, workflow.TYPE_NAMES[t]) for t in workflow.TYPES])
    summary = models.CharField(max_length=255)
    description = models.TextField(blank=True)
    steps_to_reproduce = models.TextField(blank=True)
    status = models.CharField(max_length=20, choices=[(s, s) for s in workflow.STATUSES])
    resolution = models.CharField(max_length=20, blank=True, choices=[("", "Unresolved")] + [(r, r) for r in workflow.RESOLUTIONS])
    priority = models.CharField(max_length=10, choices=[(p, p) for p in workflow.PRIORITIES])
    assignee = WorldForeignKey(Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned")
    reporter = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="reported")
    labels = models.JSONField(default=list, blank=True)
    components = models.JSONField(default=list, blank=True)
    fix_versions = models.JSONField(default=list, blank=True)
    story_points = models.PositiveSmallIntegerField(null=True, blank=True)
    sprint = WorldForeignKey(Sprint, null=True, blank=True, on_delete=models.SET_NULL, related_name="issues")
    epic = WorldForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children")
    parent = WorldForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="subtasks")
    due_date = models.DateField(null=True, blank=True)
    # board and backlog order: lower ranks first (the product's LexoRank, as integers with gaps)
    rank = models.BigIntegerField()
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["world", "key"]),
            models.Index(fields=["world", "sprint", "rank"]),
            models.Index(fields=["world", "project", "number"]),
        ]

    def __str__(self):
        return self.key

    @property
    def type_name(self) -> str:
        return workflow.TYPE_NAMES[self.issue_type]


class Comment(WorldModel):
    public_key = ("public_id",)

    public_id = models.PositiveIntegerField()
    issue = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="comments")
    author = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+")
    body = models.TextField()
    created_at = models.DateTimeField()


class Change(WorldModel):
    """One line of an issue's history: a field changed from one value to another."""

    public_key = ("public_id",)

    public_id = models.PositiveIntegerField()
    issue = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="changes")
    author = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+")
    field = models.CharField(max_length=30)
    from_value = models.TextField(blank=True)
    to_value = models.TextField(blank=True)
    created_at = models.DateTimeField()


class Link(WorldModel):
    """`source` <kind> `target`: AGENT-3 blocks AGENT-9, AGENT-12 duplicates AGENT-4."""

    public_key = ("source", "kind", "target")

    source = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="outward_links")
    kind = models.CharField(max_length=12, choices=[(k, v[0]) for k, v in workflow.LINK_KINDS.items()])
    target = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="inward_links")


class Watcher(WorldModel):
    public_key = ("issue", "person")

    issue = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="watchers")
    person = WorldForeignKey(Person, on_delete=models.CASCADE, related_name="+")
