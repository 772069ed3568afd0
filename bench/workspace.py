"""Workspace reset: a fresh workspace of every replica that ships a workspace module (the support desk, the
board and the shop today), cloned from its cached template."""

from functools import partial

from django.db import connection

from replicas.worlds.registry import replicas
from replicas.worlds.workspaces import workspace_create, workspace_delete, workspace_template_get_or_build

from .world_reset import clones_timed

# Issue 32: creating a three-app workspace from cached templates stays under 60 ms.
WORKSPACE_TARGET_MS = 60.0


def bench_workspace(*, seed: int = 7, variants=("small", "default"), repeat: int = 20) -> dict:
    """Median and p95 of `workspace_create` per variant; the template is built first, untimed.

    Each workspace is deleted right after it is timed (untimed), so every sample sees the same table sizes.
    """
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    installed = replicas()
    # the platform names no replica: the group is every one that declares what it shares
    group = sorted(name for name, config in installed.items() if config.workspace_hooks() is not None)
    out = {"replicas": group, "seed": seed, "backend": connection.vendor, "repeat": repeat, "variants": {}}
    for variant in variants:
        missing = [name for name in group if variant not in installed[name].variants]
        if len(group) < 2:
            out["variants"][variant] = {"skipped": "fewer than two replicas ship a workspace module"}
            continue
        if missing:
            out["variants"][variant] = {"skipped": f"no variant {variant!r} in {', '.join(missing)}"}
            continue
        template, timing = clones_timed(
            build=partial(workspace_template_get_or_build, replicas=group, seed=seed, variant=variant),
            create=partial(workspace_create, replicas=group, seed=seed, variant=variant),
            delete=lambda workspace: workspace_delete(workspace=workspace),
            repeat=repeat,
        )
        out["variants"][variant] = {
            "rows": sum(w.rows for w in template.worlds.all()),
            **timing,
            "target_median_ms": WORKSPACE_TARGET_MS,
            "meets_target": timing["median_ms"] <= WORKSPACE_TARGET_MS,
        }
    return out
