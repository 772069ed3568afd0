"""Claims fence their writes by the try number, and a restarted worker is never taken for the dead one it replaces
(no browser).
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from episodes import driver as driver_module
from episodes.creation import episode_create
from episodes.driver import EpisodeDriver, episode_run
from episodes.models import Episode, WorkerHeartbeat
from episodes.queue import heartbeat
from episodes.queue.claims import ClaimLost, episode_claim, episode_claim_next, episode_sweep
from episodes.runs import enqueue_episodes
from tests.episodes.browserless import BrowserlessSession
from tests.episodes.fixtures import sync_test_pack

pytestmark = pytest.mark.django_db
TASK = "testbed.open-note"
SWEEP = timedelta(minutes=1)


@pytest.fixture
def pack():
    return sync_test_pack()


def _queued():
    ep = episode_create(task=TASK, agent="oracle")
    enqueue_episodes([ep.pk], queue="q")
    return ep


def _silence(ep, worker):
    """`worker` (which claimed `ep`) falls silent: what a stopped or partitioned worker looks like to the sweep."""
    silent_since = timezone.now() - timedelta(minutes=5)
    Episode.objects.filter(pk=ep.pk).update(heartbeat_at=silent_since)
    host, pid = heartbeat.worker_identity(worker)
    WorkerHeartbeat.objects.update_or_create(
        name=worker, defaults={"hostname": host, "pid": pid, "system": "Linux", "python": "3", "seen_at": silent_since}
    )


def _driver(ep) -> EpisodeDriver:
    driver = EpisodeDriver(Episode.objects.select_related("task", "world").get(pk=ep.pk))
    driver.session = BrowserlessSession()
    return driver


def test_a_worker_presumed_lost_cannot_write_steps_once_its_episode_was_claimed_again(pack):
    ep = _queued()
    assert episode_claim(episode_id=ep.pk, worker="slow:1:a")
    slow = _driver(ep)
    slow.step("noop()")  # step 0 of try 1, then the worker stalls
    _silence(ep, "slow:1:a")
    assert episode_sweep(stale_after=SWEEP)["requeued"] == [ep.pk]
    assert episode_claim_next(queue="q", worker="fresh:2:b") == ep.pk
    fresh = _driver(ep)
    fresh.step("noop()")  # the new claim's step 0
    # the stalled worker wakes up and writes its step 1: refused, and nothing of it lands
    with pytest.raises(ClaimLost, match="no longer running under try 1"):
        slow.step("noop()")
    # without the fence the stalled worker's step 1 was written, and this one failed on the duplicate index
    fresh.step('send_msg_to_user("done")')
    steps = list(Episode.objects.get(pk=ep.pk).steps.order_by("index").values_list("index", "action"))
    assert steps == [(0, "noop()"), (1, 'send_msg_to_user("done")')]


def test_a_stalled_workers_episode_run_stops_at_its_next_step_and_leaves_the_new_claim_alone(pack, monkeypatch):
    monkeypatch.setattr(driver_module, "session_open", lambda **kw: BrowserlessSession())
    ep = _queued()
    assert episode_claim(episode_id=ep.pk, worker="slow:1:a")

    class StalledAgent:
        """Takes one step, then 'stalls' long enough for the sweep and another worker's claim, then acts again."""

        n = 0

        def act(self, obs):
            self.n += 1
            if self.n == 2:
                _silence(ep, "slow:1:a")
                assert episode_sweep(stale_after=SWEEP)["requeued"] == [ep.pk]
                assert episode_claim_next(queue="q", worker="fresh:2:b") == ep.pk
            return "noop()" if self.n < 3 else 'send_msg_to_user("Note #3 is open.")'

    ended = episode_run(episode_id=ep.pk, agent=StalledAgent())
    # the run gave up without finishing: the episode is the new claim's, with no step of the old one
    assert (ended.status, ended.claimed_by, ended.tries, ended.verdict) == ("running", "fresh:2:b", 2, None)
    assert ended.steps.count() == 0


def test_a_heartbeat_of_an_older_claim_does_not_keep_the_episode_alive(pack):
    ep = _queued()
    name = heartbeat.worker_name()
    assert episode_claim(episode_id=ep.pk, worker=name)
    with heartbeat.episode_heartbeat(ep.pk, 1):
        assert heartbeat.heartbeat_beat(name=name)  # the current claim beats
        _silence(ep, "other:9:c")  # only the episode's beat is old; this process is alive
        Episode.objects.filter(pk=ep.pk).update(tries=2)  # claimed again (the same worker took it back)
        assert not heartbeat.heartbeat_beat(name=name)
    assert Episode.objects.get(pk=ep.pk).heartbeat_at < timezone.now() - timedelta(minutes=4)


def test_a_worker_restarted_with_the_dead_ones_host_and_pid_has_another_name(monkeypatch):
    monkeypatch.setattr(heartbeat.os, "getpid", lambda: 4242)
    monkeypatch.setattr(heartbeat.socket, "gethostname", lambda: "box")
    monkeypatch.setitem(heartbeat._instance, "pid", None)  # a new process: its instance id is drawn afresh
    dead = heartbeat.worker_name()
    assert dead == heartbeat.worker_name()  # stable within one process
    monkeypatch.setitem(heartbeat._instance, "pid", None)
    restarted = heartbeat.worker_name()
    assert dead != restarted and dead.startswith("box:4242:") and restarted.startswith("box:4242:")
    assert heartbeat.worker_identity(restarted) == ("box", 4242)


def test_the_orphan_of_a_worker_restarted_with_the_same_host_and_pid_is_recovered_without_waiting_for_abandonment(
    pack, monkeypatch
):
    monkeypatch.setattr(heartbeat.os, "getpid", lambda: 4242)
    monkeypatch.setattr(heartbeat.socket, "gethostname", lambda: "box")
    monkeypatch.setitem(heartbeat._instance, "pid", None)
    ep = _queued()
    dead = heartbeat.worker_name()
    assert episode_claim(episode_id=ep.pk, worker=dead)
    _silence(ep, dead)  # killed mid-episode five minutes ago
    monkeypatch.setitem(heartbeat._instance, "pid", None)
    beat = heartbeat.heartbeat_write()  # the restarted worker's first beat, same host, same PID
    assert beat.hostname == "box" and beat.pid == 4242 and beat.name != dead
    # with host:pid names that beat made the dead worker look alive until ABANDONED_AFTER (11 minutes)
    assert episode_sweep(stale_after=SWEEP)["requeued"] == [ep.pk]
