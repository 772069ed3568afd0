"""Helpers of the replicas' pack tests that play tasks in real browser episodes.

A browser test syncs only its share of a pack (`sync_tasks`), so one world template is
built per test rather than per task, and the shares (`share`) run side by side on the
xdist workers instead of one long test holding one worker.
"""
import shutil
from pathlib import Path

from replicagym.catalogue.packs import pack_dir, task_current, task_files, task_sync

from replicas.worlds.faults.data import data_fault_applier


def pack_slugs(replica: str) -> list[str]:
    return [path.stem for path in task_files(replica)]


def share(slugs: list[str], index: int, shares: int) -> list[str]:
    """Every `shares`-th slug from `index`: shares of about equal size, each a mix of the pack's tasks."""
    return sorted(slugs)[index::shares]


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
