"""World reset: a fresh world of the bench replica cloned from its cached template, per size variant."""

import time
from functools import partial

from django.db import connection

from replicas.worlds.services import template_get_or_build, world_create, world_delete

from .measure import Stopwatch
from .scenario import bench_replica

# Targets from the performance issue (#17 item 6): a reset is a clone, milliseconds even for
# big worlds; PostgreSQL writes more per row (heap, WAL), so its 100k goal is looser.
RESET_TARGETS_MS = {
    "sqlite": {"default": 20.0, "100k": 200.0},
    "postgresql": {"default": 20.0, "100k": 300.0},
}
VARIANTS = ("default", "10k", "100k")


def clones_timed(*, build, create, delete, repeat: int) -> tuple[object, dict]:
    """(the template `build` returns, its build time and the median and p95 of `repeat` calls of `create`).

    One untimed clone first warms the caches (page cache, statement preparation); each timed clone is
    deleted right after, untimed, so the database holds one extra at a time and every sample sees the
    same table sizes.
    """
    start = time.perf_counter()
    template = build()
    build_s = time.perf_counter() - start
    delete(create())
    watch = Stopwatch()
    for _ in range(repeat):
        with watch:
            made = create()
        delete(made)
    return template, {"template_ready_s": round(build_s, 2), **watch.summary()}


def bench_world_reset(*, replica: str | None = None, seed: int = 7, variants=VARIANTS, repeat: int = 20) -> dict:
    """Median and p95 of `world_create` per variant; the template is built first, untimed.

    Each world is deleted right after it is timed (untimed too), so the database holds
    one extra world at a time and every sample sees the same table sizes.
    """
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    config = bench_replica(replica)
    replica = config.label
    out = {"replica": replica, "seed": seed, "backend": connection.vendor, "repeat": repeat, "variants": {}}
    for variant in variants:
        if variant not in config.variants:
            out["variants"][variant] = {"skipped": f"replica {replica!r} has no variant {variant!r}"}
            continue
        template, timing = clones_timed(
            build=partial(template_get_or_build, replica=replica, seed=seed, variant=variant),
            create=partial(world_create, replica=replica, seed=seed, variant=variant),
            delete=lambda world: world_delete(world=world),
            repeat=repeat,
        )
        row = {"rows": template.rows, **timing}
        target = RESET_TARGETS_MS.get(connection.vendor, RESET_TARGETS_MS["sqlite"]).get(variant)
        if target is not None:
            row["target_median_ms"] = target
            row["meets_target"] = row["median_ms"] <= target
        out["variants"][variant] = row
    return out
