"""Cancelling a run while an episode is running: it stops at its next step, keeps whole steps, and is never scored."""

import pytest

from episodes.agents import ScriptedAgent, task_info
from episodes.driver import episode_run
from episodes.models import Episode, Run
from episodes.queue.claims import episode_claim
from episodes.runs import run_cancel, run_launch, runs_finish

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class CancelsItsRun(ScriptedAgent):
    """Plays the reference solution, and cancels its own run while choosing its second action."""

    def __init__(self, actions, *, run_id):
        super().__init__(actions)
        self.run_id, self.calls = run_id, 0

    def act(self, observation):
        self.calls += 1
        if self.calls == 2:
            run_cancel(run_id=self.run_id)
        return super().act(observation)


def test_a_running_episode_stops_before_its_next_step_and_the_queued_one_never_starts():
    run = run_launch(suite="testbed", task_filter="*.complete-*", agent="oracle", attempts=2)
    running, queued = run.episodes.order_by("attempt")
    assert episode_claim(episode_id=running.pk, worker="test:1")
    agent = CancelsItsRun(running.instance.reference_solution, run_id=run.pk)
    agent.reset(task_info(running.instance))

    ended = episode_run(episode_id=running.pk, agent=agent)

    # the step chosen while the cancel came in ran to its end; none after it
    assert ended.status == Episode.Status.CANCELLED and ended.error == f"run {run.pk} was cancelled"
    steps = list(ended.steps.order_by("index"))
    assert [s.index for s in steps] == [0, 1] and agent.calls == 2
    assert all(s.screenshot_id and s.url for s in steps)  # each recorded step is whole
    assert ended.verdict is None and ended.finished_at is not None
    assert ended.rewards == dict.fromkeys(ended.rewards, 0.0) and ended.rewards["episode_reward"] == 0.0
    queued.refresh_from_db()
    assert queued.status == Episode.Status.CANCELLED and queued.started_at is None and not queued.steps.exists()
    assert not episode_claim(episode_id=queued.pk, worker="test:2")
    assert runs_finish(run_ids=[run.pk]) == [] and Run.objects.get(pk=run.pk).status == Run.Status.CANCELLED
