"""Test runs from the editor: the task's self-check plan (verifiers.selfcheck.check_plan: the reference
must pass, doing nothing and each negative example must fail) and the random agent as a baseline, queued as
ordinary episodes for the workers. Every run is an agent spec the workers build from the episode's own task
("oracle", "nothing", "negative:N"): no action list travels on disk.
"""

from django.db import transaction
from replicagym.catalogue.models import Task

from episodes.creation import episode_create
from episodes.models import Episode
from episodes.runs import enqueue_episodes
from verifiers.selfcheck import check_plan

from .models import TestRun, TestRunEpisode

# Ahead of suite runs in the queue: an author is waiting for these.
PRIORITY = 10
RANDOM_SEED = 1
LABELS = {"oracle": "reference", "nothing": "doing nothing"}


class TestRunError(ValueError):
    pass


def test_run_start(*, task: Task, author=None) -> TestRun:
    """Queue the checks of a task version's verifier; refuses a task without a reference solution."""
    if not task.reference_solution:
        raise TestRunError("the task has no reference solution: add one before a test run")
    plan = [
        (LABELS.get(check.agent, f"negative: {check.label}"), check.expect, check.agent) for check in check_plan(task)
    ]
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
