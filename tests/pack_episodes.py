"""Helpers of the replicas' pack tests that play tasks in real browser episodes.

A browser test syncs only its share of a pack (`sync_tasks`), so one world template is
built per test rather than per task, and the shares (`shares`) run side by side on the
xdist workers instead of one long test holding one worker.
"""
import json
import math
import shutil
from pathlib import Path

from replicagym.catalogue.packs import pack_dir, task_current, task_files, task_sync

from replicas.worlds.faults.data import data_fault_applier


def pack_slugs(replica: str) -> list[str]:
    return [path.stem for path in task_files(replica)]


# What an episode costs, in milliseconds of a quiet 2-core machine: opening and verifying it, each
# step, and the delays its faults put in the way (a slow-response fault waits on every delayed step).
EPISODE_MS, STEP_MS = 900, 200
SHARE_MS = 45_000  # a share no longer than this keeps both xdist workers evenly busy to the end


def _episode_ms(actions: list, faults: list) -> int:
    delay = sum(f.get("params", {}).get("delay_ms", 0) * min(f.get("params", {}).get("times", 1), len(actions))
                for f in faults)
    return EPISODE_MS + STEP_MS * len(actions) + delay


def task_ms(replica: str, slug: str, *, negatives: bool) -> int:
    """The estimated cost of playing a task's reference solution (and its negative examples)."""
    spec = json.loads((pack_dir(replica) / f"{slug}.json").read_text())
    played = [spec["reference_solution"]] + ([e["actions"] for e in spec["negative_examples"]] if negatives else [])
    return sum(_episode_ms(actions, spec.get("faults", [])) for actions in played)


def shares(replica: str, *, negatives: bool) -> list[list[str]]:
    """The pack's slugs in shares of about equal estimated cost, the longest task first into the lightest share.

    Deterministic (ties go by slug), so every xdist worker collects the same shares.
    """
    cost = {slug: task_ms(replica, slug, negatives=negatives) for slug in pack_slugs(replica)}
    count = max(1, math.ceil(sum(cost.values()) / SHARE_MS))
    out: list[list[str]] = [[] for _ in range(count)]
    load = [0] * count
    for slug in sorted(cost, key=lambda s: (-cost[s], s)):
        lightest = load.index(min(load))
        out[lightest].append(slug)
        load[lightest] += cost[slug]
    return [sorted(share) for share in out]


def sync_tasks(replica: str, slugs: list[str], folder: Path) -> list:
    """Sync a pack holding only `slugs` (copied from the replica's pack into `folder`); their current tasks."""
    folder.mkdir(parents=True, exist_ok=True)
    for slug in slugs:
        shutil.copy(pack_dir(replica) / f"{slug}.json", folder / f"{slug}.json")
    task_sync(replica=replica, directory=folder)
    return [task_current(f"{replica}.{slug}") for slug in slugs]


def fires_in_episode(task) -> bool:
    """Whether the task arms a fault that fires during the episode; data faults are applied to the world before it starts."""
    return any(data_fault_applier(task.replica, f["name"]) is None for f in task.faults)


def fault_fired(episode) -> bool:
    return any(e.get("event") == "fired" for s in episode.steps.all() for e in s.fault_events)


def why(episode) -> str:
    """An episode's outcome in one line: status, error, failed assertions, step errors."""
    failed = [(a["name"], a["detail"]) for a in (episode.verdict or {}).get("assertions", []) if not a["passed"]]
    errors = [(s.index, s.action, s.error) for s in episode.steps.order_by("index") if s.error]
    return f"status={episode.status} error={episode.error!r} failed={failed} step errors={errors}"
