"""The World and the base class every replica model derives from.

Row ids encode their world: id = world.id << 32 | n. Cloning a world is then one
INSERT ... SELECT per table that shifts ids and foreign keys by a constant, and a
foreign key can be checked to stay inside its world with a shift.
"""

from django.db import connection, models, transaction
from django.db.models import Max
from django.dispatch import Signal

from .scoping import CrossWorldWrite, current_world

ID_BITS = 32


def world_id_range(world_id: int) -> tuple[int, int]:
    return world_id << ID_BITS, (world_id + 1) << ID_BITS


class Workspace(models.Model):
    """A group of worlds, one per replica it names, made together from one seed (replicas.worlds.workspaces).

    Its worlds share people (one employee, one sign-in, in every app) and cite each other's
    records (a ticket's order exists in the shop), and move on one clock. Membership is the
    member World's `workspace` key; what the group shares is kept here, as the replicas
    reported it when the workspace's template was built, and copied to every clone.
    """

    token = models.CharField(max_length=32, unique=True)
    replicas = models.CharField(max_length=300, help_text="The member replicas' names, sorted, comma-separated.")
    seed = models.PositiveBigIntegerField()
    variant = models.CharField(max_length=64)
    # As for worlds: a template workspace is built once per key and only ever cloned.
    is_template = models.BooleanField(default=False)
    generator_version = models.CharField(max_length=64)
    template = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    people = models.JSONField(default=dict, blank=True, help_text='Shared people by kind: [{"key", "name", "email"}].')
    references = models.JSONField(default=dict, blank=True, help_text="Records the members cite, by kind.")
    sign_ins = models.JSONField(
        default=dict,
        blank=True,
        help_text="Per replica: the id its sign-in holds for a shared person -> the person's key.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["replicas", "seed", "variant", "generator_version"],
                condition=models.Q(is_template=True),
                name="one_workspace_template_per_key",
            )
        ]

    def __str__(self):
        kind = "workspace template" if self.is_template else "workspace"
        return f"{kind} {self.token} ({self.replicas}, seed {self.seed}, {self.variant})"


class World(models.Model):
    token = models.CharField(max_length=32, unique=True)
    replica = models.CharField(max_length=64)
    seed = models.PositiveBigIntegerField()
    variant = models.CharField(max_length=64)
    # Templates are generated once per (replica, seed, variant, generator version)
    # and only ever cloned; they are never served.
    is_template = models.BooleanField(default=False)
    generator_version = models.CharField(max_length=64)
    template = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    clock = models.DateTimeField(help_text="The world's virtual now.")
    faults = models.JSONField(default=list, blank=True)
    rows = models.PositiveIntegerField(default=0)
    state_hash = models.CharField(max_length=64, blank=True, help_text="Hash of the state at creation.")
    # A pre-cloned world waiting in the warm pool of its (replica, seed, variant): no
    # faults armed, never served, never collected by age. Taking it clears the flag with
    # one conditional UPDATE, so a pooled world is handed out once (replicas.worlds.pool).
    pooled = models.BooleanField(default=False)
    # The workspace the world belongs to, if any: a member is created, collected and deleted with
    # its workspace (replicas.worlds.workspaces), and a member template is not its replica's template.
    workspace = models.ForeignKey(Workspace, null=True, blank=True, on_delete=models.PROTECT, related_name="worlds")
    # Wall-clock bookkeeping for garbage collection: platform data, never replica data.
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["replica", "seed", "variant", "generator_version"],
                condition=models.Q(is_template=True, workspace__isnull=True),
                name="one_template_per_key",
            )
        ]
        indexes = [
            models.Index(fields=["is_template", "last_used_at"]),
            models.Index(
                fields=["replica", "seed", "variant"], condition=models.Q(pooled=True), name="world_pool_ready"
            ),
        ]

    def __str__(self):
        kind = "template" if self.is_template else "pooled world" if self.pooled else "world"
        return f"{kind} {self.token} ({self.replica}, seed {self.seed}, {self.variant})"


class WorldForeignKey(models.ForeignKey):
    """A foreign key between rows of one world, with no database-level constraint.

    Worlds are only ever copied or deleted whole, so their references are
    consistent by construction; WorldModel.save() refuses references into another
    world and the ORM still applies on_delete. The constraint checks cost about two
    thirds of a clone on PostgreSQL (measured: 32 of 50 ms for 1,500 rows).
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("db_constraint", False)
        super().__init__(*args, **kwargs)


# Sent by WorldQuerySet.update() before it runs: a bulk update sends no post_save, and
# the request log (replicas.worlds.requestlog) records which rows each request wrote.
rows_updating = Signal()


class WorldQuerySet(models.QuerySet):
    def update(self, **kwargs):
        rows_updating.send(sender=self.model, queryset=self)
        return super().update(**kwargs)


class WorldManager(models.Manager.from_queryset(WorldQuerySet)):
    """The default manager of replica models: only the bound world's rows."""

    def get_queryset(self):
        return super().get_queryset().filter(world_id=current_world().id)


class WorldModel(models.Model):
    """Base of every replica model: a row belongs to exactly one world.

    `public_key` names the field(s) that identify a row inside its world (ticket
    number, order id); snapshots and diffs key rows by it, never by `id`.
    """

    id = models.BigIntegerField(primary_key=True, editable=False)
    world = WorldForeignKey(World, on_delete=models.DO_NOTHING, editable=False, related_name="+")

    public_key: tuple[str, ...] = ()

    objects = WorldManager()
    all_worlds = models.Manager()  # platform code only: cloning, snapshots, deletion

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        world = current_world()
        if self.world_id is None:
            self.world_id = world.id
        elif self.world_id != world.id:
            raise CrossWorldWrite(f"{type(self).__name__} of world {self.world_id} written in world {world.id}")
        for field in self._meta.concrete_fields:
            if field.is_relation and issubclass(field.related_model, WorldModel):
                target = getattr(self, field.attname)
                if target is not None and target >> ID_BITS != world.id:
                    raise CrossWorldWrite(f"{type(self).__name__}.{field.name} points into another world")
        if self.id is None:
            # the id is "highest + 1": read and insert under the world's write lock, so
            # two writers in one world never take the same number
            with transaction.atomic():
                world_write_lock(world.id)
                self.id = next_row_id(type(self), world.id)
                super().save(*args, **kwargs)
            return
        super().save(*args, **kwargs)


def world_unique(name: str, *fields: str) -> models.UniqueConstraint:
    """The constraint that `fields` are unique inside each world: the one way a replica declares its public key.

    `replicas.worlds.system_checks` requires it over `("world", *public_key)` on every world model, because
    snapshots key rows by the public key and must never meet two rows with one key.
    """
    return models.UniqueConstraint(fields=["world", *fields], name=name)


def world_write_lock(world_id: int) -> None:
    """Hold the world's row lock until the current transaction ends: writers in one world take turns.

    Ids and public ids are "highest + 1" in each world, so two concurrent writers must
    not read the same highest. On PostgreSQL the World row is locked (SELECT ... FOR
    UPDATE); taken first in a transaction, it orders every writer of the world and
    cannot deadlock with their later row locks. SQLite needs nothing: its transactions
    begin IMMEDIATE (see env.parse_database_url), which already lets one writer in at a time.
    """
    if connection.features.has_select_for_update:
        list(World.objects.select_for_update().filter(pk=world_id).values_list("pk"))


def next_row_id(model, world_id: int) -> int:
    low, high = world_id_range(world_id)
    top = model.all_worlds.filter(id__gte=low, id__lt=high).aggregate(top=Max("id"))["top"]
    return (top + 1) if top is not None else low + 1


class RowIds:
    """Hands out row ids for bulk generation, one counter per model, in creation order."""

    def __init__(self, world_id: int):
        self.base = world_id << ID_BITS
        self.counters: dict[type, int] = {}

    def next(self, model) -> int:
        n = self.counters.get(model, 0) + 1
        self.counters[model] = n
        return self.base + n


# --- Fault injection (replicas.worlds.faults) --------------------------------
# Platform rows, not replica rows: they never enter a world's snapshot or state hash.


class FaultState(models.Model):
    """One world's fault bookkeeping: its request counter, the engine's step, its event counter.

    Counters move with single `UPDATE ... RETURNING` statements, so concurrent
    requests in one world each get their own number on SQLite and PostgreSQL.
    """

    world = models.OneToOneField(World, on_delete=models.CASCADE, related_name="+")
    requests = models.PositiveIntegerField(default=0)
    step = models.IntegerField(null=True, blank=True)
    events = models.PositiveIntegerField(default=0)


class FaultProgress(models.Model):
    """How far one armed fault (entry `index` of World.faults) has got in its world."""

    world = models.ForeignKey(World, on_delete=models.CASCADE, related_name="+")
    index = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=32)
    # the trigger with defaults filled in and a relative clock resolved against the world clock
    trigger = models.JSONField(default=dict, blank=True)
    seen = models.PositiveIntegerField(default=0, help_text="Requests counted toward a request trigger.")
    active = models.BooleanField(default=False)
    hits = models.PositiveIntegerField(default=0, help_text="Requests or pages the fault acted on.")
    resolved = models.BooleanField(default=False, help_text="Recovered from, or dismissed.")
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["world", "index"], name="fault_progress_per_world")]
        ordering = ["index"]


class FaultEvent(models.Model):
    """Something a fault did in a world: fired, recovered from, applied at creation, ..."""

    world = models.ForeignKey(World, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField(help_text="1, 2, 3, ... per world, in the order events happened.")
    index = models.PositiveSmallIntegerField(help_text="Position of the fault in World.faults.")
    fault = models.CharField(max_length=32)
    event = models.CharField(max_length=16)
    params = models.JSONField(default=dict, blank=True)
    at_request = models.PositiveIntegerField(null=True, blank=True)
    at_step = models.IntegerField(null=True, blank=True)
    clock = models.DateTimeField(help_text="The world clock when it happened.")
    route = models.CharField(max_length=500, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    recovery = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["world", "seq"], name="fault_event_seq_per_world")]
        ordering = ["world", "seq"]


# --- Request log (replicas.worlds.requestlog) ----------------------------------
# Platform rows too: what an episode's browser asked of the world, kept outside its state.


class RequestLog(models.Model):
    """One world's request log: its counters, and the limits the world enforces on its session.

    A world gets one when an episode starts in it. Counters move with one
    `UPDATE ... RETURNING` per request, which also reads the limits.
    """

    world = models.OneToOneField(World, on_delete=models.CASCADE, related_name="+")
    requests = models.PositiveIntegerField(default=0)
    steps = models.PositiveIntegerField(
        default=0, help_text="Requests that began a step (a redirect's follow-up does not)."
    )
    redirect_to = models.CharField(max_length=1000, blank=True, help_text="Where the last answer redirected.")
    max_steps = models.PositiveIntegerField(
        null=True, blank=True, help_text="Past it the world answers 'episode over'."
    )
    deadline = models.FloatField(
        null=True, blank=True, help_text="Wall clock (Unix seconds) past which the world answers 'episode over'."
    )
    closed = models.CharField(max_length=200, blank=True, help_text="Why the world takes no more requests.")
    keep_pages = models.BooleanField(
        default=False,
        help_text="Store each HTML page served (the final page of an episode in the agent's own browser).",
    )
    step_seconds = models.FloatField(
        null=True, blank=True, help_text="World time per step: the world clock moves as the engine's does."
    )
    clock_start = models.FloatField(null=True, blank=True, help_text="The world clock (Unix seconds) at step 1.")


class LoggedRequest(models.Model):
    """One request a world answered: what was asked (never the values posted), the answer, the rows it wrote."""

    world = models.ForeignKey(World, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField(help_text="1, 2, 3, ... per world, in arrival order.")
    step = models.PositiveIntegerField(help_text="The step it belongs to: a redirect's follow-up shares its step.")
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=1000, help_text="Without the query string.")
    fields = models.JSONField(
        default=list, blank=True, help_text="Names of the posted fields (query parameters for a GET)."
    )
    status = models.PositiveSmallIntegerField()
    clock = models.DateTimeField(help_text="The world clock when it arrived.")
    writes = models.JSONField(default=list, blank=True, help_text='Rows it wrote: [{"table", "id" (public), "op"}].')
    refused = models.BooleanField(default=False, help_text="Answered 'episode over' without reaching the world.")
    fault_seq = models.PositiveIntegerField(default=0, help_text="The world's last fault event when it was answered.")
    page = models.BinaryField(
        null=True, blank=True, help_text="zlib-compressed HTML of a full page answer, if the log keeps pages."
    )
    ms = models.FloatField(default=0, help_text="Time to answer.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["world", "seq"], name="logged_request_seq_per_world")]
        ordering = ["world", "seq"]
