"""The factory's check of the tool reference solutions: each task of a compiled replica played by tool calls (its
reference solution of tool_solutions.json, enterprise.toolplay) in an ordinary episode, which the task's own
verifier judges. `manage.py factory tools DOMAIN` runs it over the pack."""

import fnmatch
from pathlib import Path

from catalogue.packs import task_current
from episodes.driver import episode_play
from replicas.worlds.registry import get_replica
from verifiers.placeholders import expand_actions

from .build import tool_solutions


def tool_solution_play(task_id: str, calls: list[str] | None = None):
    """The finished episode of `task_id` played by `calls` (its tool reference solution unless given), placeholders
    filled from the task's params."""
    replica, _, slug = task_id.partition(".")
    if calls is None:
        calls = tool_solutions(Path(get_replica(replica).path)).get(slug)
        if calls is None:
            raise LookupError(f"{task_id} has no tool reference solution")
    task = task_current(task_id)
    return episode_play(task_id=task.task_id, actions=expand_actions(calls, task.params))


def tool_solutions_check(replica: str, pattern: str = "*") -> dict[str, str]:
    """slug -> "" for each task whose tool reference solution passes (full completion), else why it does not."""
    out = {}
    for slug in sorted(tool_solutions(Path(get_replica(replica).path))):
        if not fnmatch.fnmatch(slug, pattern):
            continue
        episode = tool_solution_play(f"{replica}.{slug}")
        verdict = episode.verdict or {}
        completion = (episode.rewards or {}).get("task_completion")
        out[slug] = "" if verdict.get("passed") and completion == 1 else _why(episode)
    return out


def _why(episode) -> str:
    errors = [f"step {s.index}: {s.error}" for s in episode.steps.order_by("index") if s.error]
    failed = [a["name"] for a in (episode.verdict or {}).get("assertions", []) if not a.get("passed")]
    return "; ".join([f"episode {episode.pk} {episode.status}", *errors, *(f"failed: {n}" for n in failed)])
