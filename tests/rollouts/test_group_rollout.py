"""Group rollouts for GRPO: G episodes of one task through real Celery workers, rewards, trajectories, advantages."""

import pytest
from celery import current_app
from django.core.management import call_command
from django.core.management.base import CommandError

from episodes.models import Episode, Run
from episodes.rollouts import RolloutError, group_advantages, group_finish, group_rollout, group_rollout_start
from tests.episodes.celery_workers import celery_workers
from tests.episodes.fixtures import sync_test_pack


def test_advantages_are_group_relative_and_zero_for_a_flat_group():
    adv = group_advantages([1.0, 0.0, 1.0, 0.0])
    assert adv == pytest.approx([1.0, -1.0, 1.0, -1.0], abs=1e-4)
    assert group_advantages([0.5, 0.5, 0.5]) == [0.0, 0.0, 0.0]
    assert group_advantages([]) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"task": "testbed.open-note", "agent": "oracle", "size": 0}, "1 to 64 episodes"),
        ({"task": "testbed.open-note", "agent": "oracle", "size": 65}, "1 to 64 episodes"),
        ({"task": "testbed.open-note", "agent": "oracle", "size": True}, "1 to 64 episodes"),
        ({"task": "testbed.no-such-task", "agent": "oracle", "size": 2}, "no-such-task"),
        ({"task": "testbed.open-note", "agent": "bogus", "size": 2}, "agent"),
    ],
)
def test_a_bad_group_says_why_and_writes_nothing(fields, message):
    sync_test_pack()
    with pytest.raises(RolloutError, match=message):
        group_rollout_start(**fields)
    assert not Run.objects.exists() and not Episode.objects.exists()


@pytest.mark.worker
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_group_of_8_through_celery_returns_8_rewards_and_trajectories(settings, monkeypatch):
    sync_test_pack()
    settings.EPISODE_QUEUE = "celery"
    with celery_workers(2) as (app, queue):
        # the platform's Celery app talks to the embedded broker in tests: send through the workers' Redis
        monkeypatch.setattr(current_app, "send_task", app.send_task)
        group = group_rollout(task="testbed.open-note", agent="noisy-oracle", size=8, queue=queue, timeout=300)
    assert group.task == "testbed.open-note" and len(group.episodes) == 8
    assert [e.attempt for e in group.episodes] == list(range(8))
    assert len(group.rewards) == 8 and all(0.0 <= r <= 1.0 for r in group.rewards)
    assert all(e.status in Episode.FINAL for e in group.episodes), [(e.episode, e.status) for e in group.episodes]
    assert all(e.actions and e.actions == [s["action"] for s in e.trajectory] for e in group.episodes)
    # every step was recorded once, by one of the two workers
    workers = set(Episode.objects.filter(run_id=group.run).values_list("claimed_by", flat=True))
    assert 1 <= len(workers) <= 2 and all(workers)
    assert sum(group.advantages()) == pytest.approx(0.0, abs=1e-6)
    assert Run.objects.get(pk=group.run).status == "done"
    # an agent sees signals, never the verifier's detail
    assert all("expected" not in str(e.rewards) for e in group.episodes)


@pytest.mark.django_db
def test_group_rollout_command_refuses_a_bad_size_in_one_line():
    sync_test_pack()
    with pytest.raises(CommandError, match="1 to 64"):
        call_command("group_rollout", "testbed.open-note", "--size", "0")
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_a_group_the_workers_run_is_collected_not_finished_from_outside():
    sync_test_pack()
    run = group_rollout_start(task="testbed.open-note", agent="oracle", size=2)
    with pytest.raises(RolloutError, match="run by the workers"):
        group_finish(run_id=run.pk)
    assert set(Episode.objects.filter(run=run).values_list("status", flat=True)) == {"queued"}
    with pytest.raises(RolloutError, match="no group 999"):
        group_finish(run_id=999)
