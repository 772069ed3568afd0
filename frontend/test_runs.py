"""Test runs from the editor: the reference (must pass), doing nothing (must fail), each negative
example (must fail) and the random agent, queued as ordinary episodes for the workers.

Fixed action lists reach the workers as replay files (episodes.trajectory's format) under
DATA_DIR/test_runs/, so any worker of this machine plays them with the replay agent.
"""

import json
from pathlib import Path

from django.conf import settings
from django.db import transaction
from replicagym.catalogue.models import Task

from episodes.creation import episode_create
from episodes.models import Episode
from episodes.runs import enqueue_episodes
from episodes.trajectory import FORMAT, VERSION

from .models import TestRun, TestRunEpisode

# Ahead of suite runs in the queue: an author is waiting for these.
PRIORITY = 10
RANDOM_SEED = 1


class TestRunError(ValueError):
    pass


def _replay_file(task: Task, label: str, actions: list[str]) -> str:
    folder = Path(settings.DATA_DIR) / "test_runs" / task.content_hash[:16]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{label}.jsonl"
    lines = [
        json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "task": task.task_id,
                "task_version": task.content_hash,
                "source": "task editor test run",
            }
        )
    ]
    lines += [json.dumps({"index": i, "action": action}) for i, action in enumerate(actions)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_run_start(*, task: Task, author=None) -> TestRun:
    """Queue the checks of a task version's verifier; refuses a task without a reference solution."""
    if not task.reference_solution:
        raise TestRunError("the task has no reference solution: add one before a test run")
    plan = [
        ("reference", TestRunEpisode.Expect.PASS, "oracle"),
        ("doing nothing", TestRunEpisode.Expect.FAIL, "replay:" + _replay_file(task, "nothing", [])),
    ]
    for i, example in enumerate(task.negative_examples):
        plan.append(
            (
                f"negative: {example.get('name') or i + 1}",
                TestRunEpisode.Expect.FAIL,
                "replay:" + _replay_file(task, f"negative-{i}", example["actions"]),
            )
        )
    plan.append(("random agent", TestRunEpisode.Expect.ANY, f"random:{RANDOM_SEED}"))
    with transaction.atomic():
        run = TestRun.objects.create(task=task, author=author)
        ids = []
        for label, expect, agent in plan:
            episode = episode_create(task=task, agent=agent, owner=author, priority=PRIORITY)
            TestRunEpisode.objects.create(test_run=run, label=label, expect=expect, episode=episode)
            ids.append(episode.pk)
        enqueue_episodes(ids)
    return run


def test_run_rows(run: TestRun) -> list[dict]:
    """Each check with its episode and whether it came out as it must."""
    rows = []
    for item in run.items.select_related("episode"):
        episode = item.episode
        ok = None
        if episode.is_final:
            passed = episode.status == Episode.Status.SUCCEEDED
            errored = episode.status in (Episode.Status.ERRORED,)
            ok = None if errored else {"pass": passed, "fail": not passed, "any": True}[item.expect]
        rows.append({"item": item, "episode": episode, "ok": ok})
    return rows


def test_run_done(rows) -> bool:
    return all(r["episode"].is_final for r in rows)
