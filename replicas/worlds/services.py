"""World lifecycle: generate, clone from a cached template, delete, garbage-collect."""

import secrets
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone as djtz

from .faults import faults_arm, faults_for_world
from .models import ID_BITS, World, WorldModel, world_id_range
from .registry import get_replica
from .scoping import bound_world
from .seeding import Generation, stream_seed
from .snapshot import snapshot, state_hash

MAX_SEED = 2**63 - 1
# Every world starts its clock in the same season; the seed moves it by up to a year
# so that "today" differs between seeds but never between runs of one seed.
CLOCK_ORIGIN = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class InvalidWorldRequest(ValueError):
    pass


def _validate(replica: str, seed: int, variant: str):
    config = get_replica(replica)
    config.knobs(variant)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise InvalidWorldRequest(f"seed must be an integer from 0 to {MAX_SEED}, not {seed!r}")
    return config


def _initial_clock(replica: str, seed: int, variant: str) -> datetime:
    minutes = stream_seed(replica, seed, variant) % (365 * 24 * 60)
    return CLOCK_ORIGIN + timedelta(minutes=minutes)


def _new_world(config, seed: int, variant: str, **fields) -> World:
    if fields.get("clock") is None:
        fields.pop("clock", None)
    fields.setdefault("clock", _initial_clock(config.replica_name, seed, variant))
    return World.objects.create(
        token=secrets.token_hex(8),
        replica=config.replica_name,
        seed=seed,
        variant=variant,
        generator_version=config.generator_version,
        **fields,
    )


@transaction.atomic
def world_generate(
    *,
    replica: str,
    seed: int,
    variant: str = "default",
    is_template: bool = False,
    workspace=None,
    clock: datetime | None = None,
) -> World:
    """Build a world from scratch by running the replica's seed generator.

    The clock starts where the generator left it, with what that time triggers already
    done (on_clock_advance): an episode's first step then moves only its own time.
    A workspace's member is generated from the workspace's `clock` instead of its own
    replica's, so the members' data is dated from one "now".
    """
    config = _validate(replica, seed, variant)
    world = _new_world(config, seed, variant, is_template=is_template, workspace=workspace, clock=clock)
    gen = Generation(world, config.knobs(variant), config.world_models)
    with bound_world(world):
        config.generator().generate(gen)
        gen.flush()
        config.on_clock_advance(world)
        doc = snapshot(world)
        world.rows = sum(len(rows) for rows in doc["tables"].values())
        world.state_hash = state_hash(doc)
    world.save(update_fields=["rows", "state_hash"])
    return world


def template_get_or_build(*, replica: str, seed: int, variant: str = "default") -> World:
    config = _validate(replica, seed, variant)
    lookup = dict(
        replica=replica, seed=seed, variant=variant, generator_version=config.generator_version, workspace=None
    )
    template = World.objects.filter(is_template=True, **lookup).first()
    if template is not None:
        return template
    try:
        return world_generate(replica=replica, seed=seed, variant=variant, is_template=True)
    except IntegrityError:
        # another process built the same template at the same moment: use theirs
        return World.objects.get(is_template=True, **lookup)


def _clone_statements(config) -> list[tuple[str, list[str]]]:
    """Per world table: INSERT ... SELECT copying one world's rows, and what each placeholder takes.

    Built once per replica and database vendor. The rows are picked by their id range (ids
    encode the world), a range scan of the primary key, rather than through the world_id index.
    """
    key = (config.label, connection.vendor)
    cached = _CLONE_SQL.get(key)
    if cached is not None:
        return cached
    quote = connection.ops.quote_name
    statements = []
    for model in config.world_models:
        columns, selects, slots = [], [], []
        for field in model._meta.concrete_fields:
            column = quote(field.column)
            columns.append(column)
            if field.name == "world":
                selects.append("%s")
                slots.append("world")
            elif field.primary_key or (field.is_relation and issubclass(field.related_model, WorldModel)):
                selects.append(f"{column} + %s")
                slots.append("delta")
            else:
                selects.append(column)
        table = quote(model._meta.db_table)
        pk = quote(model._meta.pk.column)
        sql = (
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(selects)} FROM {table} WHERE {pk} "
            f">= %s AND {pk} < %s"
        )
        statements.append((sql, [*slots, "low", "high"]))
    _CLONE_SQL[key] = statements
    return statements


_CLONE_SQL: dict[tuple[str, str], list] = {}


def _clone_rows(config, source: World, target: World):
    low, high = world_id_range(source.id)
    values = {"world": target.id, "delta": (target.id - source.id) << ID_BITS, "low": low, "high": high}
    with connection.cursor() as cursor:
        for sql, slots in _clone_statements(config):
            cursor.execute(sql, [values[slot] for slot in slots])


@transaction.atomic
def world_clone(*, source: World, faults: list | None = None, pooled: bool = False, workspace=None) -> World:
    """A new world whose rows are a copy of `source`'s (usually a template); `pooled` puts it in the warm pool,
    `workspace` makes it a member of that workspace."""
    config = get_replica(source.replica)
    world = _new_world(
        config,
        source.seed,
        source.variant,
        template=source if source.is_template else None,
        rows=source.rows,
        state_hash=source.state_hash,
        faults=faults if faults is not None else source.faults,
        clock=source.clock,
        pooled=pooled,
        workspace=workspace,
    )
    _clone_rows(config, source, world)
    return world


def world_create(*, replica: str, seed: int, variant: str = "default", faults: list | None = None) -> World:
    """A fresh world for (replica, seed, variant): a clone of the cached template."""
    armed = faults_for_world(replica=replica, variant=variant, faults=faults)  # a bad spec changes nothing
    template = template_get_or_build(replica=replica, seed=seed, variant=variant)
    with transaction.atomic():
        world = world_clone(source=template, faults=armed)
        faults_arm(world=world)
    return world


@transaction.atomic
def world_delete(*, world: World) -> None:
    config = get_replica(world.replica)
    for model in reversed(config.world_models):
        model.all_worlds.filter(world_id=world.id)._raw_delete(connection.alias)
    World.objects.filter(pk=world.pk).delete()


# A world marks its use at most once a minute: every request calls world_touch,
# and most of them then cost no query at all.
TOUCH_EVERY = timedelta(seconds=60)


def world_touch(*, world: World) -> bool:
    """Record that `world` is in use (gc goes by last use); True if the row was written."""
    now = djtz.now()
    if world.last_used_at is not None and now - world.last_used_at < TOUCH_EVERY:
        return False
    written = World.objects.filter(pk=world.pk, last_used_at__lt=now - TOUCH_EVERY).update(last_used_at=now) == 1
    world.last_used_at = now
    return written


def world_gc(*, older_than: timedelta | None = None, keep=()) -> dict:
    """Delete worlds unused for `older_than`, templates of outdated generators, and stale pool worlds.

    `keep` (ids, or a queryset of ids) names worlds still promised to someone, such as
    those of queued episodes, which nobody has had the chance to use yet. Worlds waiting in
    the warm pool are nobody's yet: age never collects them, only an outdated generator
    (their template is being replaced) or a lost template does.
    """
    cutoff = djtz.now() - (older_than if older_than is not None else timedelta(hours=settings.WORLD_GC_HOURS))
    # a workspace's members go with their workspace (workspaces.workspace_gc), never one by one
    stale = list(
        World.objects.filter(is_template=False, pooled=False, workspace=None, last_used_at__lt=cutoff).exclude(
            pk__in=keep
        )
    )
    outdated = [
        t
        for t in World.objects.filter(is_template=True, workspace=None)
        if _generator_version_or_none(t.replica) not in (None, t.generator_version)
    ]
    pooled = [
        w
        for w in World.objects.filter(pooled=True)
        if w.template_id is None or _generator_version_or_none(w.replica) not in (None, w.generator_version)
    ]
    for world in pooled + stale + outdated:
        world_delete(world=world)
    return {"worlds": len(stale) + len(pooled), "templates": len(outdated)}


def _generator_version_or_none(replica: str):
    try:
        return get_replica(replica).generator_version
    except LookupError:
        return None
