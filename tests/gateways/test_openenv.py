"""The OpenEnv gateway: a client loop over the WebSocket (reset, steps, state), the HTTP endpoints, token scope
and quotas. The messages are the exact shapes OpenEnv's client and server use (openenv-core 0.3.0,
openenv/core/env_client.py and env_server/types.py): WS {"type": "reset", "data": {kwargs}}, {"type": "step",
"data": <action object>}, {"type": "state"}, {"type": "close"}; errors {"type": "error", "data": {"message",
"code"}}; HTTP POST /step {"action": {...}, "timeout_s", "request_id"}, POST /reset {"seed", "episode_id", ...}.
(openenv-core itself is not a dependency: it needs gradio, whose Pillow pin conflicts with ours.)"""

import json
import re

import httpx
import pytest
from replicagym.accounts.models import AgentToken
from replicagym.accounts.tokens import token_create, token_revoke
from replicagym.catalogue.packs import task_current
from replicagym.gateways.openenv import openenv_app
from replicagym.gateways.schemas import SCHEMAS
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from episodes.models import Episode
from tests.episodes.celery_workers import wait_for
from tests.episodes.fixtures import sync_test_pack
from tests.gateways.server import asgi_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def secret(django_user_model):
    sync_test_pack()
    user = django_user_model.objects.create_user(username="rl-agent", password="pw-123456")
    return token_create(user=user, suites=["smoke"], expires_days=1).secret


@pytest.fixture
def server():
    with asgi_server(openenv_app()) as url:
        yield url


def _send(ws, kind, data=None):
    """A message as OpenEnv's EnvClient builds it: state and close carry no data."""
    ws.send(json.dumps({"type": kind} if data is None else {"type": kind, "data": data}))
    return json.loads(ws.recv(timeout=120))


def _ws(server, secret):
    return connect(
        server.replace("http://", "ws://") + "/ws",
        additional_headers={"Authorization": f"Bearer {secret}"},
        open_timeout=30,
    )


def test_a_websocket_client_loop_resets_steps_and_reads_the_state(server, secret):
    status = task_current("testbed.open-note").params["status"]
    with _ws(server, secret) as ws:
        reply = _send(ws, "reset", {"task": "testbed.open-note", "episode_id": "grpo-7/rollout-0"})
        assert reply["type"] == "observation"
        obs = reply["data"]["observation"]
        assert obs["instruction"] == "Open note #3 and tell me its status." and obs["url"].endswith("/notes/3")
        assert "[" in obs["axtree"] and obs["screenshot"] is None and reply["data"]["done"] is False
        # a step's data is the action object (GenericEnvClient.step({"action": ...}) sends it as it is)
        reply = _send(ws, "step", {"action": 'click("a999999")', "metadata": {}})
        assert reply["data"]["observation"]["last_action_error"] and reply["data"]["done"] is False
        state = _send(ws, "state")["data"]
        assert state["step_count"] == 1 and state["status"] == "running" and state["task"] == "testbed.open-note"
        assert state["episode_id"] == "grpo-7/rollout-0" and isinstance(state["episode"], int)
        reply = _send(ws, "step", {"action": f'send_msg_to_user("Note #3 is {status}.")'})
        assert reply["data"]["done"] is True and reply["data"]["reward"] > 0.5
        state = _send(ws, "state")["data"]
        assert state["status"] == "succeeded" and state["verdict"]["passed"] is True
        # the agent view: whether it passed and the signals, never the assertions or the expected values
        assert state["verdict"] == {"passed": True} and state["rewards"]["episode_reward"] > 0.5
        assert "expected" not in json.dumps(state) and "params" not in json.dumps(state)
        ended = _send(ws, "step", {"action": "noop()"})
        assert ended == {
            "type": "error",
            "data": {"message": "the episode has ended: send reset for a new one", "code": "SESSION_ERROR"},
        }
        assert _send(ws, "dance")["data"] == {
            "message": "unknown message type 'dance' (types: reset, step, state, close)",
            "code": "UNKNOWN_TYPE",
        }
        ws.send("{nope")
        assert json.loads(ws.recv(timeout=30))["data"]["code"] == "INVALID_JSON"
        bare = _send(ws, "step", {"act": "noop()"})["data"]
        assert bare["code"] == "VALIDATION_ERROR" and "unknown action field(s) act" in bare["message"]
        ws.send(json.dumps({"type": "close"}))
    episode = Episode.objects.get(pk=state["episode"])
    assert episode.owner.username == "rl-agent" and episode.steps.count() == 2


def test_closing_the_connection_ends_its_episode(server, secret):
    with _ws(server, secret) as ws:
        assert _send(ws, "reset", {"task": "testbed.open-note", "seed": 11})["type"] == "observation"
        state = _send(ws, "state")["data"]
    # the server ends it as it sees the connection go
    episode = wait_for(
        lambda: Episode.objects.filter(pk=state["episode"]).exclude(status="running").first(),
        timeout=60,
        what="the episode to end with its connection",
    )
    assert episode.world_seed == 11
    assert episode.status == "failed" and "closed before the episode ended" in episode.error


def test_a_token_revoked_while_its_websocket_is_open_steps_nothing_more_and_ends_its_episode(server, secret):
    with _ws(server, secret) as ws:
        assert _send(ws, "reset", {"task": "testbed.open-note"})["type"] == "observation"
        episode = _send(ws, "state")["data"]["episode"]
        token_revoke(token_id=AgentToken.objects.get().pk)
        refused = _send(ws, "step", {"action": "noop()"})["data"]
        assert refused["code"] == "SESSION_ERROR" and refused["message"].startswith("this token was revoked on")
        with pytest.raises(ConnectionClosed) as closed:  # the server closes the connection as it would refuse it
            ws.recv(timeout=30)
        assert closed.value.rcvd.code == 4401
    ended = Episode.objects.get(pk=episode)
    assert ended.status == "failed" and ended.error.startswith(
        "the agent token is no longer valid: this token was revoked"
    )
    assert ended.steps.count() == 0  # the refused step never ran


def test_http_endpoints_schema_health_metadata_and_a_loop(server, secret):
    auth = {"Authorization": f"Bearer {secret}"}
    with httpx.Client(base_url=server, headers=auth, timeout=120) as client:
        assert client.get("/health").json() == {"status": "healthy"}
        schema = client.get("/schema").json()
        assert schema == json.loads(json.dumps(SCHEMAS))
        assert schema["action"]["required"] == ["action"] and "axtree" in schema["observation"]["properties"]
        assert schema["step"]["properties"]["action"] == schema["action"]
        assert schema["state"]["properties"]["step_count"]["type"] == "integer"
        assert client.get("/metadata").json()["tasks"] == ["testbed.open-note"]
        assert client.post("/step", json={"action": {"action": "noop()"}}).status_code == 409
        reset = client.post(
            "/reset", json={"task": "testbed.open-note", "screenshot": True, "seed": 7, "episode_id": "eval-1"}
        ).json()
        assert reset["observation"]["screenshot"] and reset["done"] is False
        # OpenEnv's StepRequest: the action object, with its optional timeout_s and request_id
        step = client.post(
            "/step", json={"action": {"action": "noop()", "metadata": {}}, "timeout_s": 30.0, "request_id": "req-1"}
        ).json()
        assert step["observation"]["step"] == 1 and step["reward"] is None and step["done"] is False
        state = client.get("/state").json()
        assert state["step_count"] == 1 and state["status"] == "running" and state["episode_id"] == "eval-1"
        # the old bare-string form is refused, saying what to send; nothing stepped
        bare = client.post("/step", json={"action": "noop()"})
        assert bare.status_code == 422 and "not a bare string" in bare.json()["detail"]
        for body, message in (
            ({"action": {"action": ""}}, "step needs action"),
            ({"action": {"action": "noop()", "colour": 1}}, "unknown action field(s) colour"),
            ({"action": {"action": "noop()"}, "timeout_s": 0}, "timeout_s"),
            ({"action": {"action": "noop()"}, "render": True}, "unknown step field(s) render"),
            ({"action": {"action": "noop()"}, "request_id": 5}, "request_id"),
        ):
            reply = client.post("/step", json=body)
            assert reply.status_code == 422 and message in reply.json()["detail"], body
        assert client.get("/state").json()["step_count"] == 1


def test_an_idle_http_session_is_closed_and_its_episode_timed_out(secret):
    with (
        asgi_server(openenv_app(idle_seconds=1.5)) as url,
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {secret}"}, timeout=120) as client,
    ):
        assert client.post("/reset", json={"task": "testbed.open-note"}).status_code == 200
        episode = client.get("/state").json()["episode"]
        ended = wait_for(
            lambda: Episode.objects.filter(pk=episode).exclude(status="running").first(),
            timeout=60,
            what="the idle episode to be closed",
        )
        late = client.post("/step", json={"action": {"action": "noop()"}})
        assert late.status_code == 409 and "POST /reset first" in late.json()["detail"]
        assert client.get("/state").json()["episode"] is None  # the session is gone with its episode
    assert ended.status == "timed_out" and ended.error == "no request for 1.5 s: closed as idle"
    assert ended.steps.count() == 0


def test_bad_tokens_scopes_and_inputs_are_refused_and_change_nothing(server, secret, django_user_model):
    with httpx.Client(base_url=server, timeout=60) as client:
        assert client.get("/schema").status_code == 401
        assert (
            client.post(
                "/reset", json={"task": "testbed.open-note"}, headers={"Authorization": "Bearer rg_nope"}
            ).status_code
            == 401
        )
        auth = {"Authorization": f"Bearer {secret}"}
        out_of_scope = client.post("/reset", json={"task": "testbed.report-owner"}, headers=auth)
        assert out_of_scope.status_code == 403 and "smoke" in out_of_scope.json()["detail"]
        for body, message in (
            ({"task": "testbed.nope"}, "unknown task"),
            ({"task": "testbed.open-note", "seed": -1}, "seed"),
            ({"task": "testbed.open-note", "colour": 1}, "unknown reset field"),
            ({}, "needs task"),
            ({"task": "testbed.open-note", "episode_id": ""}, "episode_id"),
            ({"task": "testbed.open-note", "episode_id": "x" * 256}, "episode_id"),
            ({"task": "testbed.open-note", "episode_id": 5}, "episode_id"),
        ):
            reply = client.post("/reset", json=body, headers=auth)
            assert reply.status_code in (404, 422) and message in reply.json()["detail"], body
        not_json = client.post("/reset", content=b"[1", headers=auth)
        assert not_json.status_code == 422 and not_json.json()["detail"].startswith(
            "the request body: $: invalid JSON at line 1"
        )
    assert not Episode.objects.exists()
    with pytest.raises(InvalidStatus):
        connect(server.replace("http://", "ws://") + "/ws", open_timeout=30)


def test_websocket_starts_past_the_token_quota_are_refused_and_change_nothing(server, django_user_model):
    sync_test_pack()
    user = django_user_model.objects.create_user(username="rl-quota", password="pw-123456")
    secret = token_create(user=user, suites=["smoke"], expires_days=1, max_concurrent=1).secret
    with _ws(server, secret) as first, _ws(server, secret) as second:
        assert _send(first, "reset", {"task": "testbed.open-note"})["type"] == "observation"
        refused = _send(second, "reset", {"task": "testbed.open-note", "seed": 9})
        assert refused["type"] == "error" and refused["data"]["code"] == "CAPACITY_REACHED"
        assert "(limit 1)" in refused["data"]["message"] and refused["data"]["retry_after"] >= 1
        assert _send(second, "state")["data"]["episode"] is None  # nothing started there
        assert _send(first, "step", {"action": "noop()"})["data"]["done"] is False  # nor ended here
        # a reset on the connection holding the slot replaces its episode: that is not one more at once
        replaced = _send(first, "reset", {"task": "testbed.open-note", "seed": 8})
        assert replaced["type"] == "observation"
    episodes = list(Episode.objects.filter(owner=user).order_by("pk"))
    assert [e.world_seed for e in episodes] == [7, 8] and "reset before the episode ended" in episodes[0].error


def test_http_starts_past_the_hourly_quota_answer_429_with_retry_after(server, django_user_model):
    sync_test_pack()
    user = django_user_model.objects.create_user(username="rl-hourly", password="pw-123456")
    secret = token_create(user=user, suites=["smoke"], expires_days=1, max_per_hour=1).secret
    with httpx.Client(base_url=server, headers={"Authorization": f"Bearer {secret}"}, timeout=120) as client:
        assert client.post("/reset", json={"task": "testbed.open-note"}).status_code == 200
        refused = client.post("/reset", json={"task": "testbed.open-note", "seed": 9})
        assert refused.status_code == 429
        assert 3000 < int(refused.headers["Retry-After"]) <= 3600
        assert re.search(r"started 1 episodes in the last hour .*retry after \d+ s", refused.json()["detail"])
        # the refusal changed nothing: the running episode goes on
        assert client.post("/step", json={"action": {"action": "noop()"}}).json()["observation"]["step"] == 1
        assert client.get("/state").json()["status"] == "running"
    assert Episode.objects.filter(owner=user).count() == 1
