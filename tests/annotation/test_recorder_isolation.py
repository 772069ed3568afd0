"""The recorder reaches only recording sessions: a signed cookie for one world, never an agent's browser."""

import json

import pytest
from django.core import signing
from replicagym.annotation.models import Recording
from replicagym.annotation.services import item_claim, recording_start

from episodes.driver import session_open
from replicas.worlds.recording import COOKIE, RECORDING_PREFIX, recording_start_url, recording_token
from replicas.worlds.services import world_create

RECORDER = b"worlds/recorder.js"


@pytest.fixture
def recording(people, item):
    item_claim(item_id=item.pk, user=people["annie"])
    return recording_start(item_id=item.pk, user=people["annie"])


def host_of(world):
    return f"w-{world.token}.localhost:8000"


def start(client, recording):
    url = recording_start_url(world=recording.world, session=recording.pk, port=8000)
    return client.get(url.split(":8000", 1)[1], HTTP_HOST=host_of(recording.world))


def test_the_start_link_makes_a_recording_session_whose_pages_carry_the_recorder(client, recording):
    world = recording.world
    plain = client.get("/login", HTTP_HOST=host_of(world))
    assert plain.status_code == 200 and RECORDER not in plain.content and b"__replicagym" not in plain.content
    assert plain["X-Frame-Options"] == "DENY"
    assert client.get(RECORDING_PREFIX, HTTP_HOST=host_of(world)).status_code == 404

    answer = start(client, recording)
    assert answer.status_code == 302 and answer.url == RECORDING_PREFIX
    assert answer.cookies[COOKIE]["httponly"]
    page = client.get("/login", HTTP_HOST=host_of(world))
    assert RECORDER in page.content and b"window.__replicagym" in page.content  # the engine's own stamping helper
    assert page["X-Frame-Options"] == "SAMEORIGIN"  # the bar frames it; no other site may
    bar = client.get(RECORDING_PREFIX, HTTP_HOST=host_of(world))
    assert bar.status_code == 200 and b'id="rg-frame"' in bar.content
    assert recording.item.task.title.encode() in bar.content


def test_a_forged_expired_or_other_worlds_cookie_gets_nothing(client, recording, settings):
    world = recording.world
    bad_link = client.get(f"{RECORDING_PREFIX}start?t=nonsense", HTTP_HOST=host_of(world))
    assert bad_link.status_code == 404 and COOKIE not in bad_link.cookies
    # a cookie signed for another world is worth nothing here
    other = world_create(replica="testbed", seed=7, variant="small")
    client.cookies[COOKIE] = signing.dumps({"w": other.token, "s": recording.pk}, salt="replicagym.worlds.recording")
    assert RECORDER not in client.get("/login", HTTP_HOST=host_of(world)).content
    client.cookies[COOKIE] = signing.dumps({"w": world.token, "s": recording.pk}, salt="someone else's salt")
    assert RECORDER not in client.get("/login", HTTP_HOST=host_of(world)).content
    assert client.get(RECORDING_PREFIX, HTTP_HOST=host_of(world)).status_code == 404
    # a start link for another world does not open this one
    foreign = recording_start_url(world=other, session=recording.pk, port=8000).split("?", 1)[1]
    assert client.get(f"{RECORDING_PREFIX}start?{foreign}", HTTP_HOST=host_of(world)).status_code == 404


def test_steps_need_the_session_token_and_the_engines_grammar(client, recording):
    world = recording.world
    start(client, recording)

    def post(path, doc, token=True):
        headers = {"HTTP_X_RECORDING_TOKEN": recording_token(world=world, session=recording.pk)} if token else {}
        return client.post(
            RECORDING_PREFIX + path,
            json.dumps(doc),
            content_type="application/json",
            HTTP_HOST=host_of(world),
            **headers,
        )

    assert post("steps", {"action": 'click("12")'}, token=False).status_code == 403
    bad = post("steps", {"action": "click(12"})
    assert bad.status_code == 400 and "grammar" in bad.json()["error"]
    assert post("steps", {"action": "__import__('os')"}).status_code == 400
    assert post("steps", {"action": 'click("12")', "at_ms": -5}).status_code == 400
    assert recording.steps.count() == 0
    assert post("submit", {}).json()["error"].startswith("nothing was recorded")

    first = post("steps", {"action": 'click("12")', "url": "/notes/3", "at_ms": 100, "thought": "open it"})
    assert first.json() == {"index": 0, "action": 'click("12")', "thought": "open it"}
    assert post("steps", {"action": 'dblclick("12")', "replace": True, "at_ms": 300}).json()["index"] == 0
    assert post("steps", {"action": 'send_msg_to_user("done")', "at_ms": 900}).json()["index"] == 1
    assert list(recording.steps.values_list("action", "thought", "url")) == [
        ('dblclick("12")', "open it", "/notes/3"),
        ('send_msg_to_user("done")', "", ""),
    ]
    assert post("thought", {"index": 1, "thought": "tell them"}).json()["thought"] == "tell them"

    submitted = post("submit", {})
    assert submitted.status_code == 200 and submitted.json()["status"] == Recording.Status.REPLAYING
    recording.refresh_from_db()
    assert recording.replay.agent.startswith("replay:") and recording.replay.world_id != world.pk
    assert post("steps", {"action": 'click("1")'}).status_code == 400  # closed: nothing more is taken


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_agents_episode_never_carries_the_recorder(recording):
    """The engine's browser, in the very world being recorded, sees the world's pages as they are."""
    session = session_open(world=recording.world, start_page="/login", instruction="anything")
    try:
        assert session.page.evaluate("() => window.__rgRecorder === undefined")
        assert session.page.locator("script[src*='recorder.js']").count() == 0
        assert "recorder" not in session.page.content()
        seen = session.step("goto('/__recording__/')").observation  # the recorder's own path: not for agents
        assert seen.title == "Page not found" and "Recording bar" not in seen.axtree
    finally:
        session.close()
