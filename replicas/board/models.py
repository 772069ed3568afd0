"""The issue board's data: people, projects (components, versions, board columns, custom fields),
sprints, issues and what hangs off them (comments and their mentions, history, links, watchers,
attachments, custom field values), and people's saved filters. Every row belongs to one world;
issue keys like AGENT-142 are the public ids."""

from django.db import models

from replicas.worlds.models import WorldForeignKey, WorldModel, world_unique

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
        constraints = [world_unique("board_person_key", "username")]

    def __str__(self):
        return self.name

    @property
    def initials(self) -> str:
        parts = self.name.split()
        return (parts[0][0] + parts[-1][0]).upper() if len(parts) > 1 else self.name[:2].upper()


class Workflow(WorldModel):
    """A workflow projects use: its statuses in board order and the conditions and validators its
    transitions check (rules as in workflow.py). Each project points at one."""

    public_key = ("name",)

    name = models.CharField(max_length=60)
    statuses = models.JSONField(default=list)
    rules = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [world_unique("board_workflow_key", "name")]

    def __str__(self):
        return self.name

    def flow(self) -> workflow.Flow:
        return workflow.Flow(self.name, tuple(self.statuses), tuple(self.rules))


class Project(WorldModel):
    """A project and its one board: a scrum board (sprints) or a kanban board (continuous flow)."""

    class BoardType(models.TextChoices):
        SCRUM = "scrum", "Scrum"
        KANBAN = "kanban", "Kanban"

    class Swimlanes(models.TextChoices):
        NONE = "none", "None"
        ASSIGNEE = "assignee", "Assignee"
        EPIC = "epic", "Epic"

    public_key = ("key",)

    key = models.CharField(max_length=10)
    name = models.CharField(max_length=80)
    lead = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+")
    # the project's contributing page: the triage rules tasks refer to
    contributing = models.TextField(blank=True)
    board_type = models.CharField(max_length=10, choices=BoardType.choices, default=BoardType.SCRUM)
    # the board's "Group by", kept with the board as the product keeps its configuration
    swimlanes = models.CharField(max_length=10, choices=Swimlanes.choices, default=Swimlanes.NONE)
    # the project's own workflow: its statuses (the board's columns) and transition rules
    workflow = WorldForeignKey(Workflow, on_delete=models.PROTECT, related_name="projects")

    class Meta:
        constraints = [world_unique("board_project_key", "key")]

    def __str__(self):
        return self.key


class Component(WorldModel):
    public_key = ("project", "name")

    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="components")
    name = models.CharField(max_length=60)
    lead = WorldForeignKey(Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [world_unique("board_component_key", "project", "name")]


class Version(WorldModel):
    public_key = ("project", "name")

    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="versions")
    name = models.CharField(max_length=30)
    released = models.BooleanField(default=False)
    release_date = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [world_unique("board_version_key", "project", "name")]


class CustomField(WorldModel):
    """A field a project's administrators added (the product's customfield_10010), with its kind and,
    for a select list, the options it offers today."""

    class Kind(models.TextChoices):
        TEXT = "text", "Text"
        NUMBER = "number", "Number"
        SELECT = "select", "Select list"
        DATE = "date", "Date"

    public_key = ("public_id",)

    public_id = models.PositiveIntegerField()
    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="custom_fields")
    name = models.CharField(max_length=60)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    options = models.JSONField(default=list, blank=True)
    description = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [world_unique("board_customfield_key", "public_id")]

    def __str__(self):
        return self.name


class BoardColumn(WorldModel):
    """A column of the project's board: the status it shows and its WIP limit (None: no limit)."""

    public_key = ("project", "status")

    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="columns")
    status = models.CharField(max_length=20, choices=[(s, s) for s in workflow.ALL_STATUSES])
    position = models.PositiveSmallIntegerField()
    wip_limit = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [world_unique("board_boardcolumn_key", "project", "status")]


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

    class Meta:
        constraints = [world_unique("board_sprint_key", "public_id")]

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
    status = models.CharField(max_length=20, choices=[(s, s) for s in workflow.ALL_STATUSES])
    resolution = models.CharField(
        max_length=20, blank=True, choices=[("", "Unresolved")] + [(r, r) for r in workflow.RESOLUTIONS]
    )
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
        constraints = [world_unique("board_issue_key", "key")]
        indexes = [
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

    class Meta:
        constraints = [world_unique("board_comment_key", "public_id")]


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

    class Meta:
        constraints = [world_unique("board_change_key", "public_id")]


class Link(WorldModel):
    """`source` <kind> `target`: AGENT-3 blocks AGENT-9, AGENT-12 duplicates AGENT-4."""

    public_key = ("source", "kind", "target")

    source = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="outward_links")
    kind = models.CharField(max_length=12, choices=[(k, v[0]) for k, v in workflow.LINK_KINDS.items()])
    target = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="inward_links")

    class Meta:
        constraints = [world_unique("board_link_key", "source", "kind", "target")]


class Watcher(WorldModel):
    public_key = ("issue", "person")

    issue = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="watchers")
    person = WorldForeignKey(Person, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [world_unique("board_watcher_key", "issue", "person")]


class FieldValue(WorldModel):
    """An issue's value of a custom field, as text (numbers and dates in their canonical form). Values
    written before a select list's options changed stay as they were: legacy values."""

    public_key = ("issue", "field")

    issue = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="field_values")
    field = WorldForeignKey(CustomField, on_delete=models.CASCADE, related_name="values")
    value = models.CharField(max_length=255)

    class Meta:
        constraints = [world_unique("board_fieldvalue_key", "issue", "field")]


class Mention(WorldModel):
    """A person @mentioned in a comment (the product notifies them)."""

    public_key = ("comment", "person")

    comment = WorldForeignKey(Comment, on_delete=models.CASCADE, related_name="mentions")
    person = WorldForeignKey(Person, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [world_unique("board_mention_key", "comment", "person")]


class Attachment(WorldModel):
    """A file attached to an issue, kept by name, size and type (the bytes are not stored)."""

    public_key = ("public_id",)

    public_id = models.PositiveIntegerField()
    issue = WorldForeignKey(Issue, on_delete=models.CASCADE, related_name="attachments")
    name = models.CharField(max_length=255)
    size = models.PositiveIntegerField()
    content_type = models.CharField(max_length=100)
    author = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [world_unique("board_attachment_key", "public_id")]


class Filter(WorldModel):
    """A saved JQL search of one person (the product's "filters")."""

    public_key = ("public_id",)

    public_id = models.PositiveIntegerField()
    owner = WorldForeignKey(Person, on_delete=models.CASCADE, related_name="filters")
    name = models.CharField(max_length=80)
    jql = models.TextField()
    description = models.CharField(max_length=200, blank=True)
    starred = models.BooleanField(default=False)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [world_unique("board_filter_key", "public_id")]


class ProjectPage(WorldModel):
    """A page of the project's space (the product's project pages): the definition of done, the on-call
    runbook. The body is the product's wiki markup, its people as [~username] mentions, so a page names
    whoever holds that username today. Tasks may say only "per the runbook": the values they need are here."""

    public_key = ("project", "slug")

    project = WorldForeignKey(Project, on_delete=models.CASCADE, related_name="pages")
    slug = models.SlugField(max_length=60)
    title = models.CharField(max_length=120)
    body = models.TextField()
    # the sidebar lists a project's pages in this order
    position = models.PositiveSmallIntegerField()
    author = WorldForeignKey(Person, on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [world_unique("board_projectpage_key", "project", "slug")]

    def __str__(self):
        return self.title
