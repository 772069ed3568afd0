"""Helpers of the replicas' pack tests that play tasks in real browser episodes.

A browser test syncs only its share of a pack (`sync_tasks`), so one world template is
built per test rather than per task, and the shares (`shares`) run side by side on the
xdist workers instead of one long test holding one worker. Each reference episode that passes
is audited as well (`audit_holes`: the mutants of `audit_tasks`, judged in milliseconds), so every
CI pass checks that no played task lets an undeclared mutant through. A negative example that does what
the reference does but answers otherwise is judged on the reference's episode with its answer
(`rewards_answering`) rather than played again: its episode would differ in nothing else the verifier reads.

On SQLite the pack tests play every task; on PostgreSQL only a fixed sample of it
(`kind_sample`): the suite's time goal (issue 28) has no room for the packs' browser
episodes twice, and `manage.py verify_tasks` plays every task in full.
"""

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path

from django.db import connection

from catalogue.packs import pack_dir, task_current, task_files, task_sync
from episodes.audit import episode_audit
from episodes.driver import episode_play
from episodes.engine.observation import OBSERVATION_SETTING
from episodes.verdict import verdict_compute
from replicas.worlds.faults.data import data_fault_applier
from verifiers.actions import ActionError, SendMsgToUser, parse_action

# What an episode costs, in milliseconds of a quiet 2-core machine: opening and verifying it, each
# step, and the delays its faults put in the way (a slow-response fault waits on every delayed step).
EPISODE_MS, STEP_MS = 900, 200
SHARE_MS = 45_000  # a share no longer than this keeps both xdist workers evenly busy to the end


def _episode_ms(actions: list, faults: list, apps: int) -> int:
    delay = sum(
        f.get("params", {}).get("delay_ms", 0) * min(f.get("params", {}).get("times", 1), len(actions)) for f in faults
    )
    # a cross-app episode opens (and snapshots, and verifies) each app of its workspace
    return EPISODE_MS * apps + STEP_MS * len(actions) + delay


def task_ms(spec: dict) -> int:
    """The estimated cost of playing a task's reference solution (the pack tests play no other episode)."""
    workspace = spec.get("workspace", {})
    faults = [*spec.get("faults", []), *(f for app in workspace.get("faults", {}).values() for f in app)]
    return _episode_ms(spec["reference_solution"], faults, len(workspace.get("replicas", [])) or 1)


def assertion_kinds(spec: dict) -> frozenset[str]:
    return frozenset(a["kind"] for a in spec["verifier"]["assertions"])


def kind_sample(specs: dict[str, dict], cost: dict[str, int]) -> list[str]:
    """Slugs of `specs` that together hold every assertion kind the specs hold, sorted.

    Greedy: the task holding the most kinds not yet held comes next, the cheaper on a tie, then
    the first slug. Read from the files, so a kind a pack gains is sampled without anyone
    updating a list, and every xdist worker collects the same sample.
    """
    missing = set().union(*map(assertion_kinds, specs.values())) if specs else set()
    sample = []
    while missing:
        slug = min(specs, key=lambda s: (-len(assertion_kinds(specs[s]) & missing), cost[s], s))
        sample.append(slug)
        missing -= assertion_kinds(specs[slug])
    return sorted(sample)


def pack_sampled() -> bool:
    """Whether the pack tests play only `kind_sample` of each pack: on PostgreSQL (see the module's docstring)."""
    return connection.vendor != "sqlite"


def shares(replica: str, *, plays: Callable[[dict], bool] = lambda spec: True) -> list[list[str]]:
    """The pack's slugs the test plays in shares of about equal estimated cost, the longest task first into the
    lightest share. `plays` says which task files the test plays at all; of those, only the sample when
    `pack_sampled()`.

    Deterministic (ties go by slug), so every xdist worker collects the same shares.
    """
    specs = {path.stem: json.loads(path.read_text()) for path in task_files(replica)}
    specs = {slug: spec for slug, spec in specs.items() if plays(spec)}
    cost = {slug: task_ms(spec) for slug, spec in specs.items()}
    if pack_sampled():
        cost = {slug: cost[slug] for slug in kind_sample(specs, cost)}
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


# The pack tests' episodes take no screenshots: no verdict or audit reads one (the final page is kept as HTML), and
# capturing a PNG on every step, moving it through the driver and storing it is a good part of a step's cost.
# `manage.py verify_tasks` plays the same episodes with them.
WITHOUT_SCREENSHOTS = {OBSERVATION_SETTING: {"screenshots": False}}


def reference_play(task):
    """The task's reference solution (the oracle: its params filled in) played in a real browser, without
    screenshots; the finished episode."""
    return episode_play(task_id=task.task_id, agent="oracle", agent_settings=WITHOUT_SCREENSHOTS)


def fires_in_episode(task) -> bool:
    """Whether the task arms a fault that fires during the episode; data faults are applied to the world before it
    starts.
    """
    return any(data_fault_applier(task.replica, f["name"]) is None for f in task.faults)


def fault_fired(episode) -> bool:
    return any(e.get("event") == "fired" for s in episode.steps.all() for e in s.fault_events)


def why(episode) -> str:
    """An episode's outcome in one line: status, error, failed assertions, step errors."""
    failed = [(a["name"], a["detail"]) for a in (episode.verdict or {}).get("assertions", []) if not a["passed"]]
    errors = [(s.index, s.action, s.error) for s in episode.steps.order_by("index") if s.error]
    return f"status={episode.status} error={episode.error!r} failed={failed} step errors={errors}"


def audit_holes(task, episode) -> list[str]:
    """The mutation audit of a passing reference episode (`audit_tasks` without its extra episodes):
    each mutant that still earns full reward and that the task does not declare, and each failed check."""
    report = episode_audit(task=task, episode=episode)
    return [f"{task.task_id}: survivor {s.id}" for s in report.undeclared] + [
        f"{task.task_id}: {p}" for p in report.problems
    ]


def _answer(action: str) -> str | None:
    """The message of a send_msg_to_user action (or its alias); None for any other action."""
    try:
        parsed = parse_action(action)
    except ActionError:
        return None
    return parsed.text if isinstance(parsed, SendMsgToUser) else None


def answer_instead(played: list[str], actions: list[str]) -> str | None:
    """The answer `actions` end with when they are the `played` actions but for another final answer; else None."""
    if not actions or not played or actions[:-1] != played[:-1] or _answer(played[-1]) is None:
        return None
    return _answer(actions[-1])


def rewards_answering(episode, played: list[str], actions: list[str]) -> dict | None:
    """The rewards of playing `actions` where `episode` played `played`, when they differ only in the final answer
    (`answer_instead`), judged on `episode` with that answer; None when `actions` need an episode of their own.

    The two episodes would end in the same world on the same page after the same steps (an answer
    writes nothing and stops the episode), so only the messages the verifier reads differ.
    """
    answer = answer_instead(played, actions)
    if answer is None:
        return None
    _, rewards = verdict_compute(
        episode=episode,
        final_doc=episode.final_state.doc,
        messages=[*episode.messages[:-1], answer],
        final_page=episode.final_page,
    )
    return rewards
