"""Runs of the testbed suite with outcomes written straight into their episodes (no browser), for report tests."""

from datetime import timedelta

import pytest
from django.utils import timezone

from episodes.models import Episode, Step
from episodes.runs import run_launch, runs_finish

SIGNALS = ("task_completion", "efficiency", "error_recovery", "action_precision", "collateral", "episode_reward")


def finish_episode(ep, *, passed: bool, steps: int = 2, seconds: float = 4.0, status: str | None = None):
    """End a queued episode as a worker would have: status, verdict, rewards, steps, timings."""
    start = timezone.now() - timedelta(seconds=seconds + 5)
    value = 1.0 if passed else 0.0
    Episode.objects.filter(pk=ep.pk).update(
        status=status or (Episode.Status.SUCCEEDED if passed else Episode.Status.FAILED),
        started_at=start,
        finished_at=start + timedelta(seconds=seconds),
        verdict={
            "passed": passed,
            "partial": value,
            "assertions": [
                {
                    "name": "the note is done",
                    "kind": "state",
                    "passed": passed,
                    "required": True,
                    "detail": "1 row(s) of testbed.note match: 1" if passed else "expected done=True, found done=False",
                }
            ],
        },
        rewards={key: value if key != "efficiency" else value * 0.5 for key in SIGNALS},
        initial_state=ep.initial_state,
        final_state=ep.initial_state,
    )
    for index in range(steps):
        Step.objects.create(
            episode=ep,
            index=index,
            action=f'click("a{index + 1}")',
            url="http://w/notes/1",
            action_ms=10,
            settle_ms=5,
            observe_ms=20,
            error="" if passed or index else 'click: no element matches bid "a1" on this page',
        )


@pytest.fixture
def finished_run(db):
    """finished_run({"testbed.complete-note": [True, False], ...}, agent=...) -> a done run with those outcomes."""

    def make(outcomes: dict[str, list[bool]], *, agent: str = "random", attempts: int | None = None):
        attempts = attempts or max(len(v) for v in outcomes.values())
        pattern = next(iter(outcomes)) if len(outcomes) == 1 else ""
        run = run_launch(suite="testbed", task_filter=pattern, agent=agent, attempts=attempts)
        for ep in run.episodes.select_related("task", "initial_state").order_by("pk"):
            results = outcomes.get(ep.task.task_id, [])
            if ep.attempt < len(results):
                finish_episode(ep, passed=results[ep.attempt], steps=2 + ep.attempt, seconds=3.0 + ep.attempt)
        runs_finish(run_ids=[run.pk])
        run.refresh_from_db()
        return run

    return make
