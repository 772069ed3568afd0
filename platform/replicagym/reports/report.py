"""A run's report as data (the JSON download, the page and its plots read it) and two runs compared.

An attempt is an episode that ended with an outcome (succeeded, failed, errored, timed out);
queued, running and cancelled episodes are counted by status but never scored, so a report
of a run in progress or cancelled halfway is honest about what it holds.
"""

from collections import defaultdict

from django.db.models import Count
from django.utils import timezone

from episodes.models import Episode, Run

from .metrics import REWARD_KEYS, mean_or_none, mean_over_tasks, pass_hat_curve

# A task counts as solved in a run when at least half its attempts passed; a flip is a change of that.
SOLVED_AT = 0.5


def _seconds(ep) -> float | None:
    if ep.started_at and ep.finished_at:
        return round((ep.finished_at - ep.started_at).total_seconds(), 3)
    return None


def _reward(ep, key: str) -> float | None:
    """A signal of the episode; 0 for an attempt that ended without rewards (a worker or the sweep errored
    it without finishing it), so an errored attempt pulls a mean down rather than leaving it."""
    value = (ep.rewards or {}).get(key)
    return 0.0 if value is None and ep.status in Episode.FINAL else value


def _episode_row(ep) -> dict:
    return {
        "id": ep.pk,
        "attempt": ep.attempt,
        "status": ep.status,
        "passed": ep.passed,
        "steps": ep.step_count,
        "seconds": _seconds(ep),
        "reward": _reward(ep, "episode_reward"),
    }


def _summary(eps: list) -> dict:
    scored = [e for e in eps if e.status in Episode.FINAL]
    n, c = len(scored), sum(e.passed for e in scored)
    steps = [e.step_count for e in scored]
    seconds = [s for e in scored if (s := _seconds(e)) is not None]
    reward_values = {key: [_reward(e, key) for e in scored] for key in REWARD_KEYS}
    return {
        "attempts": n,
        "passes": c,
        "statuses": {s: k for s in Episode.Status.values if (k := sum(e.status == s for e in eps))},
        "pass_rate": round(c / n, 4) if n else None,
        "pass_hat_k": {str(k): round(v, 4) for k, v in pass_hat_curve(n=n, c=c).items()},
        "mean_steps": mean_or_none(steps, 3),
        "mean_seconds": mean_or_none(seconds, 3),
        "rewards": {key: mean_or_none(values) for key, values in reward_values.items()},
        "steps": steps,
        "seconds": seconds,
        "reward_values": reward_values,
    }


def run_episodes(run: Run):
    """The run's episodes with their task and step count, in report order."""
    return (
        run.episodes.select_related("task")
        .annotate(step_count=Count("steps"))
        .order_by("task__task_id", "attempt", "pk")
    )


def checkpoint_funnel(eps: list) -> list[dict]:
    """For a task with checkpoints: how many finished attempts reached each milestone, in the spec's order
    (where a noisy agent falls off a long task); [] for a task without them."""
    verdicts = [e.verdict for e in eps if e.status in Episode.FINAL and isinstance(e.verdict, dict)]
    lists = [v.get("checkpoints") or [] for v in verdicts]
    if not any(lists):
        return []
    order = next(cps for cps in lists if cps)
    return [
        {
            "name": c["name"],
            "points": c["points"],
            "reached": sum(any(x["name"] == c["name"] and x["reached"] for x in cps) for cps in lists),
            "attempts": len(lists),
        }
        for c in order
    ]


def run_report(*, run: Run) -> dict:
    """Per task: attempts, passes, pass@1, pass^k for k = 1..n, every signal's mean and values, steps, seconds."""
    per_task = defaultdict(list)
    episodes = list(run_episodes(run))
    for ep in episodes:
        per_task[ep.task.task_id].append(ep)
    tasks = {}
    for task_id, eps in per_task.items():
        task = eps[0].task
        tasks[task_id] = {
            "task_version": task.content_hash[:12],
            "title": task.title,
            **_summary(eps),
            "checkpoints": checkpoint_funnel(eps),
            "episodes": [_episode_row(e) for e in eps],
        }
    totals = _summary(episodes)
    # tau-bench's pass^k of a run is the mean over tasks of each task's estimate, and so is its pass@1
    curves = [{int(k): v for k, v in t["pass_hat_k"].items()} for t in tasks.values()]
    totals["pass_hat_k"] = {str(k): round(v, 4) for k, v in mean_over_tasks(curves).items()}
    rates = [t["pass_rate"] for t in tasks.values() if t["pass_rate"] is not None]
    totals["pass_at_1"] = mean_or_none(rates)
    return {
        "run": run.pk,
        "suite": run.suite.name if run.suite_id else None,
        "suite_version": run.suite.version[:12] if run.suite_id else None,
        "task_filter": run.task_filter,
        "agent": run.agent,
        "agent_settings": run.agent_settings,
        "attempts": run.attempts,
        "workers": run.workers,
        "faults": run.faults,
        "priority": run.priority,
        "status": run.status,
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "tasks": tasks,
        "totals": totals,
        "generated_at": timezone.now().isoformat(),
    }


def _solved(task: dict) -> bool | None:
    return None if task["pass_rate"] is None else task["pass_rate"] >= SOLVED_AT


def _delta(a, b) -> float | None:
    return None if a is None or b is None else round(b - a, 4)


def reports_compare(a: dict, b: dict) -> dict:
    """Run B against run A: tasks whose solved/unsolved verdict flipped, and per task and overall signal deltas (B -
    A).
    """
    common = sorted(set(a["tasks"]) & set(b["tasks"]))
    to_pass, to_fail, tasks = [], [], {}
    for task_id in common:
        ta, tb = a["tasks"][task_id], b["tasks"][task_id]
        sa, sb = _solved(ta), _solved(tb)
        if sa is not None and sb is not None and sa != sb:
            (to_pass if sb else to_fail).append(task_id)
        tasks[task_id] = {
            "pass_rate": [ta["pass_rate"], tb["pass_rate"]],
            "pass_rate_delta": _delta(ta["pass_rate"], tb["pass_rate"]),
            "rewards_delta": {key: _delta(ta["rewards"][key], tb["rewards"][key]) for key in REWARD_KEYS},
            "mean_steps_delta": _delta(ta["mean_steps"], tb["mean_steps"]),
            "mean_seconds_delta": _delta(ta["mean_seconds"], tb["mean_seconds"]),
            "flipped": task_id in to_pass or task_id in to_fail,
        }
    return {
        "a": a["run"],
        "b": b["run"],
        "flipped_to_pass": to_pass,
        "flipped_to_fail": to_fail,
        "only_in_a": sorted(set(a["tasks"]) - set(b["tasks"])),
        "only_in_b": sorted(set(b["tasks"]) - set(a["tasks"])),
        "tasks": tasks,
        "totals": {
            "pass_at_1_delta": _delta(a["totals"]["pass_at_1"], b["totals"]["pass_at_1"]),
            "rewards_delta": {
                key: _delta(a["totals"]["rewards"][key], b["totals"]["rewards"][key]) for key in REWARD_KEYS
            },
        },
    }
