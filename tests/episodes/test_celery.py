"""Celery tasks in real worker processes: stdlib `platform` inside workers, claims, sweeps."""

import json
import platform
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from episodes.creation import episode_create
from episodes.models import Episode, WorkerHeartbeat
from episodes.queue.claims import episode_claim, episode_sweep
from tests.episodes.celery_workers import celery_workers
from tests.episodes.fixtures import sync_test_pack
from tests.waiting import wait_until


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_ping_writes_a_heartbeat_showing_the_standard_library_platform_module():
    with celery_workers(1) as (app, queue):
        app.send_task("episodes.worker_ping", queue=queue)
        beat = wait_until(lambda: WorkerHeartbeat.objects.first(), timeout=60, what="a worker heartbeat row")
    assert beat.system == "Linux" == platform.system()
    assert beat.python == platform.python_version()
    # hostname:pid:instance, the instance drawn per process (a restarted worker may get the same pid)
    host, pid, instance = beat.name.split(":")
    assert beat.pid > 0 and (host, int(pid)) == (beat.hostname, beat.pid) and len(instance) == 8


@pytest.mark.django_db
def test_an_episode_is_claimed_exactly_once():
    sync_test_pack()
    episode = episode_create(task="testbed.open-note", agent="oracle")
    assert episode.status == "queued" and episode.initial_state.state_hash == episode.world.state_hash
    assert episode_claim(episode_id=episode.pk, worker="host-a:1") is True
    assert episode_claim(episode_id=episode.pk, worker="host-b:2") is False
    episode.refresh_from_db()
    assert episode.status == "running" and episode.claimed_by == "host-a:1" and episode.started_at is not None


@pytest.mark.django_db
def test_sweep_errors_running_episodes_of_no_queue_with_a_stale_heartbeat_and_leaves_live_ones():
    sync_test_pack()
    dead, alive, api = (episode_create(task="testbed.open-note", agent="oracle") for _ in range(3))
    for ep, worker in ((dead, "gone:1"), (alive, "here:2"), (api, "api:7")):
        episode_claim(episode_id=ep.pk, worker=worker)
    long_ago = timezone.now() - timedelta(minutes=30)
    Episode.objects.filter(pk__in=[dead.pk, api.pk]).update(heartbeat_at=long_ago)
    assert episode_sweep(stale_after=timedelta(minutes=5)) == {"requeued": [], "errored": [dead.pk]}
    statuses = dict(Episode.objects.values_list("pk", "status"))
    assert statuses == {dead.pk: "errored", alive.pk: "running", api.pk: "running"}
    error = Episode.objects.get(pk=dead.pk).error
    assert "worker gone:1 lost" in error and "no queue" in error


@pytest.mark.django_db
def test_sweep_command_prints_the_swept_ids(capsys):
    sync_test_pack()
    ep = episode_create(task="testbed.open-note", agent="oracle")
    episode_claim(episode_id=ep.pk, worker="gone:1")
    Episode.objects.filter(pk=ep.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    call_command("sweep_episodes", "--stale-seconds", "60")
    assert json.loads(capsys.readouterr().out) == {"errored": [ep.pk], "requeued": [], "runs_finished": []}


@pytest.mark.worker
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_two_workers_on_redis_run_20_episodes_each_recorded_exactly_once():
    from episodes.models import Run, Step
    from episodes.runs import run_create

    sync_test_pack()
    run = run_create(suite="smoke", agent="oracle", attempts=20, workers=2)
    with celery_workers(2) as (app, queue):
        app.send_task("episodes.run_start", args=[run.pk], queue=queue)
        wait_until(lambda: Run.objects.get(pk=run.pk).status == "done", timeout=240, what="the run to finish")
    episodes = list(Episode.objects.filter(run=run))
    assert len(episodes) == 20
    assert sorted(e.attempt for e in episodes) == list(range(20))
    assert all(e.status == "succeeded" for e in episodes), [
        (e.pk, e.status, e.error) for e in episodes if e.status != "succeeded"
    ]
    # each episode ran once: one claim, one step row (the oracle's one action), one verdict
    assert Step.objects.filter(episode__run=run).count() == 20
    assert all(e.claimed_by and e.started_at and e.finished_at for e in episodes)
    workers = {e.claimed_by.rsplit(":", 1)[0] + ":" + e.claimed_by.rsplit(":", 1)[1] for e in episodes}
    assert len(workers) >= 2, workers  # both workers took part
    beats = set(WorkerHeartbeat.objects.values_list("name", flat=True))
    assert workers <= beats


@pytest.mark.django_db
def test_run_episode_marks_the_episode_errored_when_the_soft_time_limit_hits(monkeypatch):
    from celery.exceptions import SoftTimeLimitExceeded

    from episodes import tasks
    from episodes.queue import workers

    sync_test_pack()
    episode = episode_create(task="testbed.open-note", agent="oracle")

    def too_slow(*, episode_id):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(tasks, "heartbeat_start", lambda: None)  # no heartbeat thread in the test process
    monkeypatch.setattr(workers, "episode_run", too_slow)
    assert tasks.run_episode.run(episode.pk) == "errored"
    episode.refresh_from_db()
    assert episode.status == "errored" and "time limit" in episode.error and episode.finished_at


@pytest.mark.django_db
def test_run_episode_skips_an_episode_another_worker_claimed(monkeypatch):
    from episodes import tasks
    from episodes.queue import workers

    sync_test_pack()
    episode = episode_create(task="testbed.open-note", agent="oracle")
    episode_claim(episode_id=episode.pk, worker="other-host:1")
    monkeypatch.setattr(tasks, "heartbeat_start", lambda: None)  # no heartbeat thread in the test process
    monkeypatch.setattr(workers, "episode_run", lambda **kw: pytest.fail("ran an episode claimed by another worker"))
    assert tasks.run_episode.run(episode.pk) == "skipped"
    episode.refresh_from_db()
    assert episode.status == "running" and episode.claimed_by == "other-host:1"


@pytest.mark.django_db
def test_run_fans_out_one_queued_episode_per_task_and_attempt_and_enqueues_them_on_commit(
    monkeypatch, django_capture_on_commit_callbacks, settings
):
    from celery import current_app

    from episodes.runs import run_create, run_episodes_create

    sync_test_pack()
    settings.EPISODE_QUEUE = "celery"
    sent = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args, **kw: sent.append((args, kw)))
    run = run_create(suite="testbed", agent="oracle", attempts=3)
    with django_capture_on_commit_callbacks(execute=True):
        episodes = run_episodes_create(run_id=run.pk, queue="q1")
    assert len(episodes) == 6 and all(e.status == "queued" for e in episodes)
    assert set(Episode.objects.values_list("queue", flat=True)) == {"q1"}
    assert sorted(args[0] for args, _ in sent) == sorted(e.pk for e in episodes)
    assert all(kw == {"queue": "q1"} for _, kw in sent)
    # a redelivered run_start fans out nothing new
    assert [e.pk for e in run_episodes_create(run_id=run.pk)] == [e.pk for e in episodes]
    assert Episode.objects.count() == 6


@pytest.mark.worker
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_episode_of_no_queue_leaves_it_running_until_the_sweep_marks_it_errored():
    import http.server
    import threading

    from tests.episodes.celery_workers import kill_workers

    asked, release = threading.Event(), threading.Event()

    class SlowAgent(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the stdlib's name
            asked.set()
            release.wait(timeout=60)  # the agent is "thinking" when the worker dies
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowAgent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sync_test_pack()
    episode = episode_create(task="testbed.open-note", agent=f"http:http://127.0.0.1:{server.server_port}/act")
    try:
        with celery_workers(1) as (app, queue):
            app.send_task("episodes.run_episode", args=[episode.pk], queue=queue)
            wait_until(asked.is_set, timeout=120, what="the worker to ask the agent for its first action")
            kill_workers(app)
    finally:
        release.set()
        server.shutdown()
    episode.refresh_from_db()
    assert episode.status == "running" and episode.claimed_by  # nobody is left to finish it
    assert episode_sweep(stale_after=timedelta(0)) == {"requeued": [], "errored": [episode.pk]}
    episode.refresh_from_db()
    assert episode.status == "errored" and " lost: no heartbeat" in episode.error
