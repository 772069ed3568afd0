"""The run lifecycle (episodes.runs): create with validation, enqueue by priority, follow, cancel, finish."""

from datetime import timedelta

import pytest
from django.utils import timezone

from episodes.driver import agent_for
from episodes.models import Episode, Run
from episodes.queue.claims import episode_claim, episode_claim_next
from episodes.runs import (
    RunError,
    run_cancel,
    run_cancelled,
    run_create,
    run_episodes_create,
    run_launch,
    run_progress,
    runs_finish,
)

pytestmark = pytest.mark.django_db


def test_a_run_of_the_testbed_suite_queues_one_episode_per_task_and_attempt():
    run = run_launch(suite="testbed", agent="oracle", attempts=2, priority=3)
    episodes = list(run.episodes.order_by("task__task_id", "attempt"))
    assert run.status == Run.Status.RUNNING
    assert [(e.task.task_id, e.attempt) for e in episodes] == [
        ("testbed.complete-note", 0),
        ("testbed.complete-note", 1),
        ("testbed.rename-note", 0),
        ("testbed.rename-note", 1),
    ]
    assert all(e.status == Episode.Status.QUEUED and e.queue == "celery" and e.priority == 3 for e in episodes)
    progress = run_progress(run)
    assert (progress["total"], progress["queued"], progress["running"], progress["eta_seconds"]) == (4, 4, 0, None)


def test_a_task_filter_narrows_the_suite_and_can_stand_alone():
    run = run_launch(suite="testbed", task_filter="*.rename-*", agent="random:3")
    assert list(run.episodes.values_list("task__task_id", flat=True)) == ["testbed.rename-note"]
    alone = run_launch(task_filter="testbed.complete-note", agent="random")
    assert alone.suite is None and alone.episodes.get().task.task_id == "testbed.complete-note"


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"suite": "nosuch", "agent": "oracle"}, "unknown suite 'nosuch'"),
        ({"agent": "oracle"}, "a run needs a suite, a task filter, or both"),
        (
            {"suite": "testbed", "task_filter": "shop.*", "agent": "oracle"},
            "no task of suite 'testbed' matches 'shop.*'",
        ),
        ({"suite": "testbed", "task_filter": "a b", "agent": "oracle"}, "use task-id characters"),
        ({"suite": "testbed", "agent": "genius"}, "unknown agent 'genius'"),
        ({"suite": "testbed", "agent": "oracle", "attempts": 0}, "attempts must be a whole number from 1 to 100"),
        ({"suite": "testbed", "agent": "oracle", "attempts": "3"}, "attempts must be a whole number"),
        ({"suite": "testbed", "agent": "oracle", "priority": 11}, "priority must be a whole number from -10 to 10"),
        ({"suite": "testbed", "agent": "oracle", "faults": "no"}, "faults must be true or false"),
        (
            {"suite": "testbed", "agent": "oracle", "agent_settings": {"timeout": 5}},
            "applies to http and openai agents, not oracle",
        ),
        (
            {"suite": "testbed", "agent": "http:http://127.0.0.1:9/act", "agent_settings": {"timeout": 0}},
            "from 1 to 600",
        ),
        (
            {"suite": "testbed", "agent": "http:http://127.0.0.1:9/act", "agent_settings": {"colour": 1}},
            "unknown agent setting 'colour'",
        ),
        ({"suite": "testbed", "agent": "openai:m", "agent_settings": {"max_failures": 2.5}}, "must be a whole number"),
        ({"suite": "testbed", "agent": "oracle", "agent_settings": [1]}, "must be a JSON object"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(fields, message):
    with pytest.raises(RunError, match=message):
        run_launch(**fields)
    assert not Run.objects.exists() and not Episode.objects.exists()


def test_valid_agent_settings_are_kept_on_the_run_and_its_episodes():
    run = run_launch(
        suite="testbed",
        task_filter="*.complete-*",
        agent="openai:some-model",
        agent_settings={"timeout": 20, "temperature": 0.5, "max_failures": 3},
    )
    assert run.agent_settings == {"timeout": 20.0, "temperature": 0.5, "max_failures": 3}
    episode = run.episodes.get()
    assert episode.agent_settings == run.agent_settings
    agent = agent_for(episode)  # what the worker builds: the settings reach the agent
    assert (agent.timeout, agent.temperature, agent.max_failures) == (20.0, 0.5, 3)


def test_faults_off_leaves_the_world_without_its_tasks_faults(settings):
    with_faults = run_launch(suite="testbed", task_filter="*.complete-*", agent="oracle")
    without = run_launch(suite="testbed", task_filter="*.complete-*", agent="oracle", faults=False)
    assert with_faults.episodes.get().faults is True
    episode = without.episodes.get()
    assert episode.faults is False and not episode.world.faults


def test_workers_take_the_higher_priority_run_first():
    low = run_launch(suite="testbed", task_filter="*.complete-*", agent="oracle", priority=-2)
    high = run_launch(suite="testbed", task_filter="*.complete-*", agent="oracle", priority=5)
    first = episode_claim_next(queue="celery", worker="w:1")
    second = episode_claim_next(queue="celery", worker="w:1")
    assert first == high.episodes.get().pk and second == low.episodes.get().pk


def test_cancel_takes_queued_episodes_out_so_no_worker_can_claim_them():
    run = run_launch(suite="testbed", agent="oracle", attempts=2)
    running = run.episodes.order_by("pk").first()
    assert episode_claim(episode_id=running.pk, worker="w:1")
    cancelled = run_cancel(run_id=run.pk)
    assert cancelled.status == Run.Status.CANCELLED and cancelled.finished_at is not None
    statuses = dict(run.episodes.values_list("pk", "status"))
    assert statuses.pop(running.pk) == Episode.Status.RUNNING  # it stops by itself at its next step
    assert set(statuses.values()) == {Episode.Status.CANCELLED}
    assert episode_claim_next(queue="celery", worker="w:2") is None
    assert run_cancelled(run.pk) and not run_cancelled(None)
    progress = run_progress(cancelled)
    assert (progress["cancelled"], progress["running"], progress["eta_seconds"]) == (3, 1, 0.0)
    # a cancelled run stays cancelled when its last episode ends
    Episode.objects.filter(pk=running.pk).update(status=Episode.Status.CANCELLED)
    assert runs_finish(run_ids=[run.pk]) == [] and Run.objects.get(pk=run.pk).status == Run.Status.CANCELLED


def test_an_ended_run_cannot_be_cancelled_and_an_unknown_one_is_named():
    run = run_launch(suite="testbed", task_filter="*.complete-*", agent="oracle")
    Episode.objects.filter(run=run).update(status=Episode.Status.SUCCEEDED)
    assert runs_finish(run_ids=[run.pk]) == [run.pk]
    with pytest.raises(RunError, match=f"run {run.pk} is already done"):
        run_cancel(run_id=run.pk)
    with pytest.raises(RunError, match="no run 999999"):
        run_cancel(run_id=999999)


def test_progress_counts_failures_and_estimates_the_time_left_from_the_pace_so_far():
    run = run_create(suite="testbed", agent="oracle", attempts=2)
    episodes = run_episodes_create(run_id=run.pk)
    start = timezone.now() - timedelta(seconds=20)
    Episode.objects.filter(pk=episodes[0].pk).update(
        status=Episode.Status.SUCCEEDED, started_at=start, finished_at=start + timedelta(seconds=10)
    )
    Episode.objects.filter(pk=episodes[1].pk).update(
        status=Episode.Status.TIMED_OUT, started_at=start, finished_at=start + timedelta(seconds=20)
    )
    Episode.objects.filter(pk=episodes[2].pk).update(status=Episode.Status.RUNNING, started_at=start)
    progress = run_progress(run)
    assert (progress["succeeded"], progress["failed"], progress["running"], progress["queued"]) == (1, 1, 1, 1)
    # two ended in about 20 s: the two left take about 20 s more
    assert 18 <= progress["eta_seconds"] <= 25
