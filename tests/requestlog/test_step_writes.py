"""Each step knows the rows it wrote, for engine-driven episodes too, and error_recovery's repeat penalty reads them."""

import pytest

from episodes.creation import episode_create
from episodes.driver import EpisodeDriver
from episodes.models import Episode
from replicas.testbed.models import Note
from replicas.worlds.scoping import bound_world
from tests.episodes.fixtures import sync_test_pack
from verifiers.rewards import error_recovery, harmful_repeats

pytestmark = pytest.mark.django_db

TIMEOUT = {
    "seq": 1,
    "fault": "api_timeout",
    "index": 0,
    "event": "fired",
    "recovery": {"kind": "retry_succeeds", "route": "^/api/"},
}
RECOVERED = {**TIMEOUT, "seq": 2, "event": "recovered"}
# what a refund writes: a new row (a fresh id each time) and an update of the row it refunds
REFUND = {"table": "testbed.note", "op": "insert"}
PAYMENT = {"table": "testbed.member", "id": "100", "op": "update"}


class ClientSession:
    """The engine's browser session, reduced to its requests: each action is one request through the world's
    middleware.
    """

    def __init__(self, client, requests):
        self.client, self.requests, self.messages = client, dict(requests), []

    def step(self, action_text):
        method, path, *data = self.requests[action_text]
        response = getattr(self.client, method)(path, *data)
        return {"observation": {"url": path, "axtree": str(response.status_code)}, "error": ""}

    def load(self, start_page):
        self.client.get(start_page)
        return self

    def observe(self):
        return {"url": "", "axtree": ""}

    def close(self):
        pass


def test_an_engine_step_records_the_writes_of_the_requests_made_during_it(db, world_client, monkeypatch):
    sync_test_pack()
    episode = episode_create(task="testbed.open-note", agent="script", status=Episode.Status.RUNNING)
    with bound_world(episode.world):
        number = Note.objects.filter(done=False).order_by("public_id").first().public_id
    session = ClientSession(
        world_client(episode.world),
        {
            'click("a1")': ("get", "/notes"),
            'click("a2")': ("post", f"/notes/{number}", {"title": "Checked", "done": "on"}),
        },
    )
    monkeypatch.setattr("episodes.driver.session_open", lambda **kwargs: session.load(kwargs["start_page"]))
    driver = EpisodeDriver(episode)
    driver.open()
    driver.step('click("a1")')
    driver.step('click("a2")')
    read, take = episode.steps.order_by("index")
    assert read.writes == [] and [r["path"] for r in read.requests] == ["/notes"]
    assert take.writes == [{"table": "testbed.note", "id": str(number), "op": "update"}]
    assert [(r["method"], r["status"]) for r in take.requests] == [("POST", 302)]


def test_a_step_that_writes_again_what_an_earlier_step_wrote_after_a_fault_is_a_harmful_repeat():
    first = {"action": 'click("a51")', "error": "HTTP 504", "fault_events": [TIMEOUT], "writes": [REFUND, PAYMENT]}
    # another bid for the same button, after a reload: the writes say it is the same refund again
    again = {"action": 'click("a77")', "fault_events": [RECOVERED], "writes": [{**REFUND, "id": "RF-2"}, PAYMENT]}
    assert harmful_repeats([first, again], after=0) == [1]
    assert error_recovery(passed=True, trajectory=[first, again]) == 0.0


def test_retrying_a_write_that_never_happened_is_recovery_not_harm():
    first = {"action": 'click("a51")', "error": "HTTP 504", "fault_events": [TIMEOUT], "writes": []}
    retry = {"action": 'click("a51")', "fault_events": [RECOVERED], "writes": [REFUND, PAYMENT]}
    assert harmful_repeats([first, retry], after=0) == []
    assert error_recovery(passed=True, trajectory=[first, retry]) == 1.0


def test_writes_to_other_rows_after_a_fault_are_no_repeat():
    first = {"action": 'click("a51")', "fault_events": [TIMEOUT], "writes": [REFUND, PAYMENT]}
    solve = {
        "action": 'click("a60")',
        "fault_events": [RECOVERED],
        "writes": [{"table": "testbed.note", "id": "1", "op": "update"}],
    }
    assert harmful_repeats([first, solve], after=0) == []
