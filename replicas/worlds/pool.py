"""The warm pool: worlds cloned ahead of time per (replica, seed, variant), so a start takes one instead of cloning.

A pooled world is an ordinary clone of the current template with no faults armed and
`World.pooled` set. Taking one (`world_take`) is a claim plus the arming of the task's
faults, after which the world is indistinguishable from a fresh clone: same rows, same
state hash, same clock (a world's clock is virtual and a pooled world has not moved it),
a new `created_at`.

Properties the pool keeps:
- **Handed out once.** The claim is one conditional `UPDATE ... SET pooled = false WHERE
  id = ? AND pooled`: whoever's update changes the row has it, in any process. On
  PostgreSQL candidates are read with `SELECT ... FOR UPDATE SKIP LOCKED`, so concurrent
  takers pick different worlds instead of queueing on one; SQLite lets one writer in at a
  time (IMMEDIATE transactions) and the conditional update settles the rest.
- **Current.** Only worlds of the replica's current generator version are taken; `world
  gc` deletes pooled worlds of outdated generators or lost templates, and never collects
  a pooled world by age (it is nobody's yet).
- **Never in the way.** An empty pool (or `WORLD_POOL_SIZE = 0`) falls back to a clone.
  Refills clone one world per transaction, outside the taker's transaction: after the
  taker commits, in a background thread of the same process (`WORLD_POOL_REFILL =
  "thread"`, the default), or by `manage.py world pool fill` (`"off"`). A refill that
  dies half-way rolls back whole: a world is in the pool complete or not at all.
"""

import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connection, connections, transaction
from django.utils import timezone as djtz

from .faults import faults_arm, faults_for_world
from .models import World
from .services import _validate, template_get_or_build, world_clone

log = logging.getLogger(__name__)

# candidates read per claim where rows cannot be locked (SQLite): a taker losing a race tries the next
CANDIDATES = 4


def pool_size() -> int:
    """Worlds kept ready per (replica, seed, variant) in use; 0 disables the pool."""
    return max(0, int(getattr(settings, "WORLD_POOL_SIZE", 2)))


def _ready(*, replica: str, seed: int, variant: str, generator_version: str):
    return World.objects.filter(
        pooled=True,
        is_template=False,
        replica=replica,
        seed=seed,
        variant=variant,
        generator_version=generator_version,
    )


def pool_ready(*, replica: str, seed: int, variant: str = "default") -> int:
    """How many worlds of the current template wait in the pool of this key."""
    config = _validate(replica, seed, variant)
    return _ready(replica=replica, seed=seed, variant=variant, generator_version=config.generator_version).count()


def pool_claim(*, replica: str, seed: int, variant: str = "default") -> World | None:
    """Claim a pooled world of this key (its flag cleared, its use stamped now), or None if none is ready.

    Runs in the caller's transaction when there is one: a rollback puts the world back.
    """
    config = _validate(replica, seed, variant)
    ready = _ready(replica=replica, seed=seed, variant=variant, generator_version=config.generator_version).order_by(
        "id"
    )
    with transaction.atomic(savepoint=False):  # inside a caller's transaction: no savepoint round trips
        candidates = CANDIDATES
        if connection.features.has_select_for_update_skip_locked:
            # lock one candidate, skipping those other takers hold: each taker gets its own
            ready, candidates = ready.select_for_update(skip_locked=True), 1
        for world in ready[:candidates]:
            now = djtz.now()
            if (
                World.objects.filter(pk=world.pk, pooled=True).update(pooled=False, created_at=now, last_used_at=now)
                == 1
            ):
                world.pooled, world.created_at, world.last_used_at = False, now, now
                return world
    return None


def world_take(
    *, replica: str, seed: int, variant: str = "default", faults: list | None = None, refill: bool = True
) -> tuple[World, bool]:
    """A fresh world for (replica, seed, variant) with `faults` armed: from the pool if one is
    ready, else a clone of the template (as `world_create`). Returns (world, taken_from_pool).

    With `refill` (and a pool size above 0), the key's pool is topped up after the
    caller's transaction commits (see `pool_refill_later`).
    """
    armed = faults_for_world(replica=replica, variant=variant, faults=faults)  # a bad spec changes nothing
    size = pool_size()
    with transaction.atomic():
        world = pool_claim(replica=replica, seed=seed, variant=variant) if size else None
        pooled = world is not None
        if world is None:
            template = template_get_or_build(replica=replica, seed=seed, variant=variant)
            world = world_clone(source=template, faults=armed)
            faults_arm(world=world)
        elif armed:
            world.faults = armed
            faults_arm(world=world)
        # (a pooled world without faults to arm is ready as it is: its faults are [] already)
    if size and refill:
        key = (replica, seed, variant)
        transaction.on_commit(lambda: pool_refill_later(*key))
    return world, pooled


def pool_fill(*, replica: str, seed: int, variant: str = "default", size: int | None = None) -> int:
    """Clone worlds into this key's pool until `size` (default: the pool size) are ready; returns how many were added.

    One clone per transaction, so takers wait at most one clone for SQLite's write lock.
    Two fillers of one key may overshoot by a world each; the extra worlds are taken later.
    """
    size = pool_size() if size is None else size
    template = template_get_or_build(replica=replica, seed=seed, variant=variant)
    ready = _ready(replica=replica, seed=seed, variant=variant, generator_version=template.generator_version)
    added = 0
    while ready.count() < size:
        with transaction.atomic():
            world_clone(source=template, faults=[], pooled=True)
        added += 1
    return added


def pool_status() -> list[dict]:
    """Ready worlds per key, current or outdated."""
    rows = {}
    for w in World.objects.filter(pooled=True).only("replica", "seed", "variant", "generator_version"):
        key = (w.replica, w.seed, w.variant, w.generator_version)
        rows[key] = rows.get(key, 0) + 1
    return [
        {"replica": r, "seed": s, "variant": v, "generator_version": g, "ready": n}
        for (r, s, v, g), n in sorted(rows.items())
    ]


# --- Background refill -------------------------------------------------------------
# One daemon thread per process works through the keys asked for, each key at most once
# in the queue. It opens its own database connection (Django's are per thread) and closes
# it after each key, so it holds neither a connection nor SQLite's write lock while idle.
# A forked process (a prefork worker) starts its own thread on its first request.

_cond = threading.Condition()
_pending: list[tuple[str, int, str]] = []
_busy = 0
_thread: threading.Thread | None = None


def pool_refill_later(replica: str, seed: int, variant: str) -> bool:
    """Ask this process's refiller to top up a key's pool; False if refills are off or the pool is disabled."""
    global _thread
    if not pool_size() or getattr(settings, "WORLD_POOL_REFILL", "thread") != "thread":
        return False
    with _cond:
        if (replica, seed, variant) not in _pending:
            _pending.append((replica, seed, variant))
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_refiller, name="world-pool-refill", daemon=True)
            _thread.start()
        _cond.notify_all()
    return True


def pool_refill_wait(timeout: float = 60.0) -> bool:
    """Wait until this process's refiller has nothing left to do (tests, benchmarks); False on timeout."""
    with _cond:
        return _cond.wait_for(lambda: not _pending and not _busy, timeout=timeout)


def _refiller():
    global _busy
    while True:
        with _cond:
            _cond.wait_for(lambda: _pending)
            key = _pending.pop(0)
            _busy += 1
        try:
            close_old_connections()
            pool_fill(replica=key[0], seed=key[1], variant=key[2])
        except Exception:  # a refill that fails leaves the pool short: takers clone instead
            log.exception("world pool refill of %s failed", key)
        finally:
            connections.close_all()
            with _cond:
                _busy -= 1
                _cond.notify_all()
