"""The OpenEnv gateway: a client loop over the WebSocket (reset, steps, state), the HTTP endpoints, token scope."""
import json

import httpx
import pytest
from replicagym.accounts.tokens import token_create
from replicagym.catalogue.packs import task_current
from replicagym.gateways.openenv import openenv_app
from replicagym.gateways.schemas import SCHEMAS
from websockets.exceptions import InvalidStatus
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
    ws.send(json.dumps({"type": kind, "data": data or {}}))
    return json.loads(ws.recv(timeout=120))


def test_a_websocket_client_loop_resets_steps_and_reads_the_state(server, secret):
    status = task_current("testbed.open-note").params["status"]
    url = server.replace("http://", "ws://") + "/ws"
    with connect(url, additional_headers={"Authorization": f"Bearer {secret}"}, open_timeout=30) as ws:
        reply = _send(ws, "reset", {"task": "testbed.open-note"})
        assert reply["type"] == "observation"
        obs = reply["data"]["observation"]
        assert obs["instruction"] == "Open note #3 and tell me its status." and obs["url"].endswith("/notes/3")
        assert "[" in obs["axtree"] and obs["screenshot"] is None and reply["data"]["done"] is False
        reply = _send(ws, "step", {"action": 'click("a999999")'})
        assert reply["data"]["observation"]["last_action_error"] and reply["data"]["done"] is False
        state = _send(ws, "state")["data"]
        assert state["step_count"] == 1 and state["status"] == "running" and state["task"] == "testbed.open-note"
        reply = _send(ws, "step", {"action": f'send_msg_to_user("Note #3 is {status}.")'})
        assert reply["data"]["done"] is True and reply["data"]["reward"] > 0.5
        state = _send(ws, "state")["data"]
        assert state["status"] == "succeeded" and state["verdict"]["passed"] is True
        # the agent view: assertion names and outcomes only, never the expected values
        assert [set(a) for a in state["verdict"]["assertions"]] == [{"name", "passed", "required"}]
        assert "expected" not in json.dumps(state) and "params" not in json.dumps(state)
        assert _send(ws, "step", {"action": "noop()"})["type"] == "error"
        assert _send(ws, "dance")["data"]["message"].startswith("unknown message type")
        ws.send(json.dumps({"type": "close"}))
    episode = Episode.objects.get(pk=state["episode_id"])
    assert episode.owner.username == "rl-agent" and episode.steps.count() == 2


def test_closing_the_connection_ends_its_episode(server, secret):
    url = server.replace("http://", "ws://") + "/ws"
    with connect(url, additional_headers={"Authorization": f"Bearer {secret}"}, open_timeout=30) as ws:
        assert _send(ws, "reset", {"task": "testbed.open-note", "seed": 11})["type"] == "observation"
        state = _send(ws, "state")["data"]
    # the server ends it as it sees the connection go
    episode = wait_for(lambda: Episode.objects.filter(pk=state["episode_id"]).exclude(status="running").first(),
                       timeout=60, what="the episode to end with its connection")
    assert episode.world_seed == 11
    assert episode.status == "failed" and "closed before the episode ended" in episode.error


def test_http_endpoints_schema_health_metadata_and_a_loop(server, secret):
    auth = {"Authorization": f"Bearer {secret}"}
    with httpx.Client(base_url=server, headers=auth, timeout=120) as client:
        assert client.get("/health").json() == {"status": "healthy"}
        schema = client.get("/schema").json()
        assert schema == json.loads(json.dumps(SCHEMAS))
        assert schema["action"]["required"] == ["action"] and "axtree" in schema["observation"]["properties"]
        assert schema["state"]["properties"]["step_count"]["type"] == "integer"
        assert client.get("/metadata").json()["tasks"] == ["testbed.open-note"]
        assert client.post("/step", json={"action": "noop()"}).status_code == 409
        reset = client.post("/reset", json={"task": "testbed.open-note", "screenshot": True}).json()
        assert reset["observation"]["screenshot"] and reset["done"] is False
        step = client.post("/step", json={"action": "noop()"}).json()
        assert step["observation"]["step"] == 1 and step["reward"] is None
        state = client.get("/state").json()
        assert state["step_count"] == 1 and state["status"] == "running"


def test_bad_tokens_scopes_and_inputs_are_refused_and_change_nothing(server, secret, django_user_model):
    with httpx.Client(base_url=server, timeout=60) as client:
        assert client.get("/schema").status_code == 401
        assert client.post("/reset", json={"task": "testbed.open-note"}, headers={"Authorization": "Bearer rg_nope"}).status_code == 401
        auth = {"Authorization": f"Bearer {secret}"}
        out_of_scope = client.post("/reset", json={"task": "testbed.report-owner"}, headers=auth)
        assert out_of_scope.status_code == 403 and "smoke" in out_of_scope.json()["error"]
        for body, message in (({"task": "testbed.nope"}, "unknown task"), ({"task": "testbed.open-note", "seed": -1}, "seed"),
                              ({"task": "testbed.open-note", "colour": 1}, "unknown reset field"), ({}, "needs task")):
            reply = client.post("/reset", json=body, headers=auth)
            assert reply.status_code in (400, 404) and message in reply.json()["error"]
        assert client.post("/reset", content=b"[1", headers=auth).json()["error"] == "the request body is not JSON"
    assert not Episode.objects.exists()
    with pytest.raises(InvalidStatus):
        connect(server.replace("http://", "ws://") + "/ws", open_timeout=30)
