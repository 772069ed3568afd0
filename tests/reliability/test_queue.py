"""The episode queue: claims, the sweep of lost workers, finishing runs and collecting worlds (no browser)."""

import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from episodes import verdict
from episodes.creation import episode_create
from episodes.models import Episode, Run, Step, WorkerHeartbeat
from episodes.queue import claims, workers
from episodes.queue.claims import episode_claim, episode_claim_next, episode_sweep
from episodes.queue.workers import episode_execute, scheduler_tick
from episodes.runs import enqueue_episodes, run_create
from episodes.verdict import episode_finish
from replicas.worlds.models import World
from tests.episodes.fixtures import sync_test_pack

pytestmark = pytest.mark.django_db
TASK = "testbed.open-note"


@pytest.fixture
def pack():
    return sync_test_pack()


def _queued(n=1, *, queue="q", run=None):
    eps = [episode_create(task=TASK, agent="oracle", run=run, attempt=i) for i in range(n)]
    enqueue_episodes([e.pk for e in eps], queue=queue)
    return eps


def _lose(ep, worker="gone:1"):
    """Claim `ep` for a worker that then falls silent."""
    assert episode_claim(episode_id=ep.pk, worker=worker)
    silent_since = timezone.now() - timedelta(minutes=5)
    Episode.objects.filter(pk=ep.pk).update(heartbeat_at=silent_since)
    WorkerHeartbeat.objects.update_or_create(
        name=worker,
        defaults={
            "hostname": worker.split(":")[0],
            "pid": int(worker.split(":")[1]),
            "system": "Linux",
            "python": "3",
            "seen_at": silent_since,
        },
    )


def test_claim_next_takes_the_oldest_queued_episode_of_its_own_queue_once_each(pack):
    first, second = _queued(2, queue="q")
    (other,) = _queued(1, queue="elsewhere")
    assert episode_claim_next(queue="q", worker="h:1") == first.pk
    assert episode_claim_next(queue="q", worker="h:2") == second.pk
    assert episode_claim_next(queue="q", worker="h:3") is None
    assert Episode.objects.get(pk=other.pk).status == "queued"
    assert dict(Episode.objects.filter(queue="q").values_list("pk", "tries")) == {first.pk: 1, second.pk: 1}


def test_enqueue_on_the_embedded_default_marks_the_rows_and_sends_no_message(
    pack, monkeypatch, settings, django_capture_on_commit_callbacks
):
    from celery import current_app

    settings.EPISODE_QUEUE = "database"
    monkeypatch.setattr(current_app, "send_task", lambda *a, **kw: pytest.fail("sent a broker message"))
    with django_capture_on_commit_callbacks(execute=True):
        (ep,) = _queued(1, queue="desk")
    ep.refresh_from_db()
    assert ep.queue == "desk" and ep.status == "queued"


def test_sweep_puts_a_lost_workers_episode_back_with_a_fresh_world_and_no_steps(pack):
    (ep,) = _queued()
    _lose(ep)
    old_world = ep.world_id
    Step.objects.create(episode=ep, index=0, action="click('a1')")
    assert episode_sweep(stale_after=timedelta(minutes=1), max_tries=3) == {"requeued": [ep.pk], "errored": []}
    ep.refresh_from_db()
    assert (ep.status, ep.claimed_by, ep.started_at, ep.tries, ep.steps.count()) == ("queued", "", None, 1, 0)
    assert ep.world_id != old_world and not World.objects.filter(pk=old_world).exists()
    assert ep.world.state_hash == ep.initial_state.state_hash  # the next try starts from the task's initial state
    assert episode_claim_next(queue="q", worker="h:2") == ep.pk
    assert Episode.objects.get(pk=ep.pk).tries == 2


def test_sweep_errors_an_episode_whose_workers_were_lost_as_often_as_the_limit_of_tries(pack):
    (ep,) = _queued()
    _lose(ep)
    assert episode_sweep(stale_after=timedelta(minutes=1), max_tries=2) == {"requeued": [ep.pk], "errored": []}
    _lose(ep)
    assert episode_sweep(stale_after=timedelta(minutes=1), max_tries=2) == {"requeued": [], "errored": [ep.pk]}
    ep.refresh_from_db()
    assert ep.status == "errored" and ep.tries == 2 and ep.finished_at
    assert "worker gone:1 lost: no heartbeat for 300 s; after 2 tries" in ep.error


def test_sweep_leaves_an_episode_whose_heartbeat_is_fresh(pack):
    (ep,) = _queued()
    episode_claim(episode_id=ep.pk, worker="alive:1")
    assert episode_sweep(stale_after=timedelta(minutes=1)) == {"requeued": [], "errored": []}
    assert Episode.objects.get(pk=ep.pk).status == "running"


def test_sweep_gives_an_episode_of_a_process_without_heartbeats_the_time_an_agent_may_think(pack):
    # a gym client's episode beats only at its steps: minutes between them are a slow agent, not a lost worker
    (ep,) = _queued()
    episode_claim(episode_id=ep.pk, worker="gym-client:9")
    Episode.objects.filter(pk=ep.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))
    assert episode_sweep(stale_after=timedelta(minutes=1)) == {"requeued": [], "errored": []}
    Episode.objects.filter(pk=ep.pk).update(heartbeat_at=timezone.now() - claims.ABANDONED_AFTER - timedelta(minutes=1))
    assert episode_sweep(stale_after=timedelta(minutes=1)) == {"requeued": [ep.pk], "errored": []}


def test_a_failing_final_snapshot_errors_the_episode_instead_of_leaving_it_running(pack, monkeypatch):
    (ep,) = _queued()
    episode_claim(episode_id=ep.pk, worker="h:1")
    ep.refresh_from_db()

    def broken(world):
        raise OSError("disk full")

    monkeypatch.setattr(verdict, "episode_snapshot", broken)
    finished = episode_finish(episode=ep, messages=[], final_page=None)
    assert finished.status == "errored" and "final snapshot failed: OSError: disk full" in finished.error
    assert finished.finished_at is not None


def test_the_finish_of_a_worker_presumed_lost_changes_nothing_once_its_episode_was_claimed_again(pack):
    (ep,) = _queued()
    _lose(ep, worker="slow:1")
    ep.refresh_from_db()  # what the slow worker holds: its claim, try 1
    episode_sweep(stale_after=timedelta(minutes=1))
    assert episode_claim_next(queue="q", worker="h:2") == ep.pk
    late = episode_finish(episode=ep, messages=["Note #3 is open."], final_page=None)
    assert late.status == "running" and late.claimed_by == "h:2" and late.verdict is None


def test_episode_execute_errors_an_episode_whose_run_raises_and_finishes_its_run(pack, monkeypatch):
    run = run_create(suite="smoke", agent="oracle")
    (ep,) = _queued(run=run)
    episode_claim(episode_id=ep.pk, worker="h:1")

    def crash(*, episode_id):
        raise RuntimeError("browser vanished")

    monkeypatch.setattr(workers, "episode_run", crash)
    assert episode_execute(episode_id=ep.pk) == "errored"
    ep.refresh_from_db()
    assert ep.status == "errored" and "RuntimeError: browser vanished" in ep.error
    assert Run.objects.get(pk=run.pk).status == "done"


def test_scheduler_finishes_runs_whose_episodes_are_all_final_and_no_other(pack):
    ended, open_, empty = (run_create(suite="smoke", agent="oracle") for _ in range(3))
    (a,) = _queued(run=ended)
    (b,) = _queued(run=open_)
    Episode.objects.filter(pk=a.pk).update(status="failed")
    tick = scheduler_tick(stale_after=timedelta(minutes=1))
    assert tick["runs_finished"] == [ended.pk]
    statuses = dict(Run.objects.values_list("pk", "status"))
    assert statuses[ended.pk] == "done" and statuses[open_.pk] != "done" and statuses[empty.pk] != "done"
    assert Run.objects.get(pk=ended.pk).finished_at is not None
    assert b.pk


def test_scheduler_requeues_lost_episodes_and_finishes_the_run_of_one_it_gives_up_on(pack, settings):
    settings.EPISODE_MAX_TRIES = 1
    run = run_create(suite="smoke", agent="oracle")
    (ep,) = _queued(run=run)
    _lose(ep)
    tick = scheduler_tick(stale_after=timedelta(minutes=1))
    assert tick["errored"] == [ep.pk] and tick["runs_finished"] == [run.pk]


def test_scheduler_collects_unused_worlds_but_keeps_those_of_waiting_episodes(pack, make_world):
    idle = make_world()
    (waiting,) = _queued()
    World.objects.filter(pk__in=[idle.pk, waiting.world_id]).update(last_used_at=timezone.now() - timedelta(days=2))
    tick = scheduler_tick(stale_after=timedelta(minutes=1), gc_after=timedelta(hours=24))
    assert tick["worlds_collected"] == 1
    assert not World.objects.filter(pk=idle.pk).exists() and World.objects.filter(pk=waiting.world_id).exists()


def test_scheduler_once_prints_what_it_did(pack, capsys):
    (ep,) = _queued()
    _lose(ep)
    call_command("scheduler", "--once", "--stale-seconds", "60")
    out = json.loads(capsys.readouterr().out)
    assert out["requeued"] == [ep.pk] and out["errored"] == [] and out["runs_finished"] == []


def test_worker_command_refuses_to_run_beside_a_broker(settings):
    settings.EPISODE_QUEUE = "celery"
    with pytest.raises(CommandError, match="celery -A replicagym worker"):
        call_command("worker")
