"""Warm pool: the world part of an episode start taken from the pool vs cloned, per size variant."""

from django.db import connection

from replicas.worlds.pool import pool_fill, pool_ready, world_take
from replicas.worlds.services import template_get_or_build, world_create, world_delete

from .measure import Stopwatch
from .scenario import bench_replica

# "near zero": a claim is three short statements and a commit, whatever the world's size
TAKE_TARGET_MS = 2.0


def bench_world_pool(
    *, replica: str | None = None, seed: int = 7, variants=("default", "100k"), repeat: int = 20
) -> dict:
    """Median and p95 of the world part of a start, from a ready pool (`world_take`) and by a clone (`world_create`).

    Untimed between samples: the taken or cloned world is deleted and the pool is topped
    up again (`pool_fill`, what the background refill does), so every take finds a ready
    world and every sample sees the same table sizes. The refill's own time, the cost the
    pool moves off the start, is reported as `refill`.
    """
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    config = bench_replica(replica)
    replica = config.label
    out = {
        "replica": replica,
        "seed": seed,
        "backend": connection.vendor,
        "repeat": repeat,
        "take_target_median_ms": TAKE_TARGET_MS,
        "variants": {},
    }
    for variant in variants:
        if variant not in config.variants:
            out["variants"][variant] = {"skipped": f"replica {replica!r} has no variant {variant!r}"}
            continue
        key = dict(replica=replica, seed=seed, variant=variant)
        template = template_get_or_build(**key)
        left_before = pool_ready(**key)
        # one untimed round warms the caches (page cache, statement preparation)
        pool_fill(**key, size=left_before + 1)
        world_delete(world=world_take(**key, refill=False)[0])
        world_delete(world=world_create(**key))
        clone, take, refill = Stopwatch(), Stopwatch(), Stopwatch()
        missed = 0
        for _ in range(repeat):
            with refill:
                pool_fill(**key, size=left_before + 1)
            with take:
                world, from_pool = world_take(**key, refill=False)
            missed += not from_pool
            world_delete(world=world)
            with clone:
                world = world_create(**key)
            world_delete(world=world)
        row = {
            "rows": template.rows,
            "clone": clone.summary(),
            "take": take.summary(),
            "refill": refill.summary(),
            "missed": missed,
        }
        if row["take"]["median_ms"]:
            row["clone_over_take"] = round(row["clone"]["median_ms"] / row["take"]["median_ms"], 1)
        row["meets_target"] = row["take"]["median_ms"] <= TAKE_TARGET_MS
        out["variants"][variant] = row
    return out
