"""The OpenEnv gateway against the real openenv-core 0.3.0: its stock GenericEnvClient (the token in the URL),
its Pydantic models on every reply, `openenv validate --url`, BrowserGym's field names; a WebSocket and HTTP loop,
one session per connection and per HTTP session id (never per token), `finish`, observation modes, token scope
and quotas. Raw WebSocket messages are the shapes OpenEnv's client sends: {"type": "reset", "data": {kwargs}},
{"type": "step", "data": <action object>}, {"type": "state"}, {"type": "close"}."""

import base64
import json
import re
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from jsonschema import Draft202012Validator
from replicagym.accounts.models import AgentToken
from replicagym.accounts.tokens import token_create, token_revoke, token_tasks
from replicagym.gateways.mcp_server import mcp_server
from replicagym.gateways.openenv import openenv_app
from replicagym.gateways.schemas import SCHEMAS
from replicagym.gateways.sessions import GatewayError, GatewaySession
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from catalogue.packs import task_current, task_sync
from episodes.models import Episode
from tests.episodes.fixtures import sync_test_pack
from tests.gateways.server import asgi_server
from tests.waiting import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def secret(django_user_model):
    sync_test_pack()
    user = django_user_model.objects.create_user(username="rl-agent", password="pw-123456")
    return token_create(user=user, suites=["smoke"], expires_days=1).secret


@pytest.fixture(scope="module")
def oe():
    """openenv-core's clients and models (tests/gateways/openenv_clients.py), imported by the process that runs these
    tests only."""
    from tests.gateways import openenv_clients

    return openenv_clients


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


def _in_url(server, secret):
    """The base URL with the token as its password: all OpenEnv's stock client can be given."""
    return server.replace("http://", f"http://token:{secret}@")


OBSERVATION = Draft202012Validator(SCHEMAS["observation"])
STATE = Draft202012Validator(SCHEMAS["state"])


def _checked(reply: dict, model) -> dict:
    """`reply` (a {observation, reward, done} or a WS message) once openenv-core's model and our schema accept it."""
    model.model_validate(reply)
    data = reply.get("data", reply)
    if "observation" in data:
        OBSERVATION.validate(data["observation"])
    return reply


def test_a_websocket_client_loop_resets_steps_finishes_and_reads_the_state(server, secret, oe):
    status = task_current("testbed.open-note").params["status"]
    with _ws(server, secret) as ws:
        reply = _checked(
            _send(ws, "reset", {"task": "testbed.open-note", "episode_id": "grpo-7/rollout-0"}),
            oe.WSObservationResponse,
        )
        obs = reply["data"]["observation"]
        assert obs["instruction"] == obs["goal"] == "Open note #3 and tell me its status."
        # the world is shown on the display origin: its own (with the world's token) appears nowhere
        assert obs["url"] == "http://world.test/login?next=/notes/3" and "localhost" not in json.dumps(obs)
        assert "[" in obs["axtree"] and obs["axtree_txt"] == obs["axtree"] and obs["text"].startswith("URL: http")
        assert obs["screenshot"] is None and reply["data"]["done"] is False
        assert obs["last_action_error"] is False and obs["error"] == ""
        assert secret not in json.dumps(reply)
        # a step's data is the action object (GenericEnvClient.step({"action": ...}) sends it as it is)
        reply = _checked(_send(ws, "step", {"action": 'click("a999999")', "metadata": {}}), oe.WSObservationResponse)
        stepped = reply["data"]["observation"]
        assert stepped["last_action_error"] is True and "a999999" in stepped["error"] and reply["data"]["done"] is False
        state = _checked(_send(ws, "state"), oe.WSStateResponse)["data"]
        STATE.validate(state)
        assert state["step_count"] == 1 and state["status"] == "running" and state["task"] == "testbed.open-note"
        assert state["episode_id"] == "grpo-7/rollout-0" and isinstance(state["episode"], int)
        # BrowserGym's name for the action string
        reply = _send(ws, "step", {"action_str": f'send_msg_to_user("Note #3 is {status}.")'})
        assert reply["data"]["done"] is True and reply["data"]["reward"] > 0.5
        state = _send(ws, "state")["data"]
        assert state["status"] == "succeeded" and state["verdict"]["passed"] is True
        # the agent view: whether it passed and the signals, never the assertions or the expected values
        assert state["verdict"] == {"passed": True} and state["rewards"]["episode_reward"] > 0.5
        assert "expected" not in json.dumps(state) and "params" not in json.dumps(state)
        ended = _checked(_send(ws, "step", {"action": "noop()"}), oe.WSErrorResponse)
        assert ended["data"] == {"message": "the episode has ended: send reset for a new one", "code": "SESSION_ERROR"}
        # finish: the episode ends as it stands, verified; the reply is the last observation with its reward
        assert _send(ws, "reset", {"task": "testbed.open-note", "seed": 5})["type"] == "observation"
        finished = _checked(_send(ws, "finish"), oe.WSObservationResponse)["data"]
        assert finished["done"] is True and finished["reward"] == 0.0
        assert _send(ws, "state")["data"]["status"] == "failed"  # nothing answered: the task failed
        assert _send(ws, "finish")["data"]["code"] == "SESSION_ERROR"
        assert _send(ws, "dance")["data"] == {
            "message": "unknown message type 'dance' (types: reset, step, state, finish, close)",
            "code": "UNKNOWN_TYPE",
        }
        ws.send("{nope")
        assert json.loads(ws.recv(timeout=30))["data"]["code"] == "INVALID_JSON"
        for action, message in (
            ({"act": "noop()"}, "unknown action field(s) act"),
            ({"action": "noop()", "action_str": "noop()"}, "either action or action_str"),
        ):
            refused = _send(ws, "step", action)["data"]
            assert refused["code"] == "VALIDATION_ERROR" and message in refused["message"]
        ws.send(json.dumps({"type": "close"}))
    episode = Episode.objects.get(pk=state["episode"])
    assert episode.owner.username == "rl-agent" and episode.steps.count() == 2


def test_the_stock_generic_client_with_the_token_in_its_url_plays_an_episode_with_no_reset_arguments(
    server, secret, oe
):
    """OpenEnv's GenericEnvClient unchanged: credentials in the base URL reach the server as HTTP Basic; reset()
    with nothing runs the token's one task; finish() as an action ends the episode."""
    with oe.GenericEnvClient(base_url=_in_url(server, secret)).sync() as env:
        first = env.reset()
        assert first.observation["goal"] == "Open note #3 and tell me its status." and first.done is False
        assert env.state()["task"] == "testbed.open-note"
        stepped = env.step({"action": "noop()"})
        assert stepped.observation["step"] == 1 and stepped.reward is None
        finished = env.step({"action": "finish()"})
        assert finished.done is True and finished.reward == 0.0
        assert env.state()["status"] == "failed" and env.state()["step_count"] == 1  # finish() is no step
    with pytest.raises(ConnectionError):  # a wrong password is a refused handshake
        with oe.GenericEnvClient(base_url=_in_url(server, "rg_nope")).sync() as env:
            env.reset()


def test_two_clients_sharing_a_token_never_end_or_step_each_others_episodes(server, secret, oe):
    url = _in_url(server, secret)
    with oe.GenericEnvClient(base_url=url).sync() as one, oe.GenericEnvClient(base_url=url).sync() as two:
        with ThreadPoolExecutor(2) as pool:  # both connections open episodes at once
            started = list(pool.map(lambda env: env.reset(seed=3), (one, two)))
            mine, theirs = one.state()["episode"], two.state()["episode"]
            assert mine != theirs and all(not r.done for r in started)
            stepped = list(pool.map(lambda env: env.step({"action": "noop()"}), (one, two)))
        assert [r.observation["step"] for r in stepped] == [1, 1]
        assert one.step({"action": "finish()"}).done is True
        # the other's episode runs on, with its own steps only
        assert two.state()["status"] == "running" and two.state()["step_count"] == 1
        assert two.step({"action": "noop()"}).observation["step"] == 2
    assert Episode.objects.get(pk=mine).steps.count() == 1 and Episode.objects.get(pk=theirs).steps.count() == 2


def test_a_browsergym_client_loop_as_trl_writes_it_runs_unchanged(server, secret, oe):
    """TRL's browsergym example: reset(), prompt from goal and axtree_txt (error when last_action_error),
    BrowserGymAction(action_str=...) steps, the reward at done."""
    status = task_current("testbed.open-note").params["status"]
    with oe.BrowserGymEnv(base_url=_in_url(server, secret)).sync() as env:
        result = env.reset()
        obs = result.observation
        assert obs.goal == "Open note #3 and tell me its status." and "Sign in" in obs.axtree_txt
        assert obs.url == "http://world.test/login?next=/notes/3" and not obs.last_action_error
        result = env.step(oe.BrowserGymAction(action_str="click('a999999')"))
        assert result.observation.last_action_error and "a999999" in result.observation.error
        result = env.step(oe.BrowserGymAction(action_str=f"send_msg_to_user('Note #3 is {status}.')"))
        assert result.done and result.reward > 0.5
        assert env.state().step_count == 2


def test_observation_modes_and_screenshots_are_chosen_at_reset(server, secret):
    with _ws(server, secret) as ws:
        text = _send(ws, "reset", {"mode": "text", "screenshots": True})["data"]["observation"]
        assert len(text["axtree_txt"]) < len(text["axtree"]) and text["axtree_txt"] in text["text"]
        assert text["screenshot"] and text["metadata"]["mode"] == "text"
        diff = _send(ws, "reset", {"mode": "diff", "full_every": 2})["data"]["observation"]
        assert diff["screenshot"] is None and "Page:" in diff["text"]  # step 0: the whole (pruned) page
        same = _send(ws, "step", {"action": "noop()"})["data"]["observation"]
        assert "Page changes since the last step" in same["text"] and "(nothing changed)" in same["text"]
        again = _send(ws, "step", {"action": "noop()"})["data"]["observation"]
        assert "Page:" in again["text"] and "Page changes" not in again["text"]  # every 2 steps, the whole page
        episode = _send(ws, "state")["data"]["episode"]
        for reset, message in (
            ({"mode": "pixels"}, "unknown observation mode 'pixels'"),
            ({"screenshots": "yes"}, "'screenshots' must be true or false"),
            ({"full_every": 0}, "'full_every' must be from 1"),
        ):
            refused = _send(ws, "reset", reset)["data"]
            assert refused["code"] == "VALIDATION_ERROR" and message in refused["message"], reset
        assert _send(ws, "state")["data"]["episode"] == episode  # the refusals ended nothing
    assert Episode.objects.get(pk=episode).agent_settings == {
        "observation": {"screenshots": False, "mode": "diff", "full_every": 2}
    }


def test_a_reset_without_a_task_picks_one_of_the_tokens_by_the_seed(django_user_model):
    task_sync(replica="testbed")
    user = django_user_model.objects.create_user(username="rl-picker", password="pw-123456")
    token = token_create(user=user, suites=["testbed"], expires_days=1).token
    session = GatewaySession(token)
    picked = [session._task(None, seed).task_id for seed in range(40)]
    assert picked == [session._task(None, seed).task_id for seed in range(40)]  # the same seed, the same task
    in_scope = set(token_tasks(token).values_list("task_id", flat=True))
    assert set(picked) == in_scope and len(in_scope) > 1
    AgentToken.objects.filter(pk=token.pk).update(suites=["retired-suite"])  # a suite since removed
    with pytest.raises(GatewayError, match="hold no task"):
        GatewaySession(AgentToken.objects.get(pk=token.pk))._task(None, 1)


def test_closing_the_connection_ends_its_episode(server, secret):
    with _ws(server, secret) as ws:
        assert _send(ws, "reset", {"task": "testbed.open-note", "seed": 11})["type"] == "observation"
        state = _send(ws, "state")["data"]
    # the server ends it as it sees the connection go
    episode = wait_until(
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


def test_http_endpoints_pass_openenvs_models_and_a_loop_runs_in_its_session(server, secret, oe):
    auth = {"Authorization": f"Bearer {secret}"}
    with httpx.Client(base_url=server, headers=auth, timeout=120) as client:
        assert oe.HealthResponse.model_validate(client.get("/health").json()).status == "healthy"
        schema = client.get("/schema").json()
        assert oe.SchemaResponse.model_validate(schema) and schema == json.loads(json.dumps(SCHEMAS))
        assert {"axtree_txt", "goal", "text", "last_action_error"} <= set(schema["observation"]["required"])
        metadata = oe.EnvironmentMetadata.model_validate(client.get("/metadata").json())
        assert metadata.name == "replicagym" and metadata.readme_content.endswith("\n- testbed.open-note")
        assert client.post("/step", json={"action": {"action": "noop()"}}).status_code == 409  # no session yet
        # no body at all: one of the token's tasks
        reset = client.post("/reset")
        assert reset.status_code == 200, reset.text
        body = _checked(reset.json(), oe.ResetResponse)
        session_id = reset.headers["X-Session-Id"]
        assert body["observation"]["metadata"]["session_id"] == session_id and body["done"] is False
        assert client.get("/state").json()["task"] == "testbed.open-note"  # the cookie names the session
        # OpenEnv's StepRequest: the action object, with its optional timeout_s and request_id
        step = client.post(
            "/step", json={"action": {"action": "noop()", "metadata": {}}, "timeout_s": 30.0, "request_id": "req-1"}
        )
        step = _checked(step.json(), oe.StepResponse)
        assert step["observation"]["step"] == 1 and step["reward"] is None and step["done"] is False
        state = client.get("/state").json()
        assert oe.State.model_validate(state).step_count == 1 and state["status"] == "running"
        STATE.validate(state)
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
        finished = _checked(client.post("/finish").json(), oe.StepResponse)
        assert finished["done"] is True and finished["reward"] == 0.0
        assert client.get("/state").json()["status"] == "failed"
        assert client.post("/finish").status_code == 409


def test_http_clients_sharing_a_token_have_a_session_each(server, secret):
    auth = {"Authorization": f"Bearer {secret}"}
    with (
        httpx.Client(base_url=server, headers=auth, timeout=120) as one,
        httpx.Client(base_url=server, headers=auth, timeout=120) as two,
    ):
        with ThreadPoolExecutor(2) as pool:
            resets = list(pool.map(lambda c: c.post("/reset", json={"seed": 3}), (one, two)))
        ids = [r.headers["X-Session-Id"] for r in resets]
        assert ids[0] != ids[1]
        episodes = [one.get("/state").json()["episode"], two.get("/state").json()["episode"]]
        assert episodes[0] != episodes[1]
        assert one.post("/step", json={"action": {"action": "noop()"}}).json()["observation"]["step"] == 1
        assert one.post("/reset", json={"seed": 4}).status_code == 200  # ends one's episode only
        assert two.get("/state").json() | {"step_count": 0, "status": "running"} == two.get("/state").json()
        # the session id as a header, or a query parameter, names the same session without the cookie
        bare = httpx.Client(base_url=server, headers=auth, timeout=120)
        assert bare.get("/state", headers={"X-Session-Id": ids[1]}).json()["episode"] == episodes[1]
        assert bare.get("/state", params={"session_id": ids[1]}).json()["episode"] == episodes[1]
        lost = bare.post("/step", json={"action": {"action": "noop()"}})
        assert lost.status_code == 409 and "X-Session-Id" in lost.json()["detail"]
        bare.close()
    # another token's client naming this session finds nothing of it
    other_user = AgentToken.objects.get().user
    other = token_create(user=other_user, suites=["smoke"], expires_days=1).secret
    with httpx.Client(base_url=server, headers={"Authorization": f"Bearer {other}"}, timeout=60) as stranger:
        assert stranger.get("/state", headers={"X-Session-Id": ids[1]}).json()["episode"] is None
        refused = stranger.post("/step", json={"action": {"action": "noop()"}}, headers={"X-Session-Id": ids[1]})
        assert refused.status_code == 409
    assert Episode.objects.get(pk=episodes[1]).steps.count() == 0


def test_openenv_validate_passes_every_check(secret, oe):
    """The real `openenv validate --url` checks, with the token in the URL, against the server asgi.py serves."""
    server, _tools = mcp_server()
    with asgi_server(openenv_app(mcp=server.streamable_http_app())) as url:
        report = oe.validate_running_environment(_in_url(url, secret), timeout_s=30)
        # the mounted MCP server still answers MCP
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        listed = httpx.post(
            url + "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
            headers={"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {secret}"},
            timeout=30,
        )
    failed = [c for c in report["criteria"] if not c["passed"]]
    assert report["passed"] is True and not failed, failed
    assert report["summary"]["passed_count"] == report["summary"]["total_count"] == 6
    assert report["mode"] == "simulation" and report["standard_profile"] == "openenv-http/1.x"
    assert listed.status_code == 200 and '"name":"replicagym"' in listed.text.replace(" ", "")


def test_an_idle_http_session_is_closed_its_episode_timed_out_and_its_slot_free_at_once(django_user_model, monkeypatch):
    closing = GatewaySession.close

    def slow_close(self, *args):  # a closing that verifies for long, as one on a loaded machine does
        time.sleep(3)
        closing(self, *args)

    monkeypatch.setattr(GatewaySession, "close", slow_close)
    sync_test_pack()
    user = django_user_model.objects.create_user(username="rl-idle", password="pw-123456")
    secret = token_create(user=user, suites=["smoke"], expires_days=1, max_concurrent=1).secret
    app = openenv_app(idle_seconds=1.5)
    with (
        asgi_server(app) as url,
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {secret}"}, timeout=120) as client,
    ):
        assert client.post("/reset", json={"task": "testbed.open-note"}).status_code == 200
        episode = client.get("/state").json()["episode"]
        wait_until(lambda: not app.state.server.http.sessions, timeout=60, what="the idle session to be let go")
        late = client.post("/step", json={"action": {"action": "noop()"}})
        assert late.status_code == 409 and "closed, or never reset" in late.json()["detail"]
        assert client.get("/state").json()["episode"] is None  # the session is gone with its episode
        # the one slot is free for the next reset, though the closed episode may still be being verified
        again = client.post("/reset", json={"task": "testbed.open-note"})
        assert again.status_code == 200, again.text
    ended = Episode.objects.get(pk=episode)
    assert ended.status == "timed_out" and ended.error == "no request for 1.5 s: closed as idle"
    assert ended.steps.count() == 0


def test_bad_tokens_scopes_and_inputs_are_refused_and_change_nothing(server, secret, django_user_model):
    with httpx.Client(base_url=server, timeout=60) as client:
        assert client.get("/metadata").status_code == 401
        for header, message in (
            ("Bearer rg_nope", "invalid token"),
            ("Basic !!!", "base64 of 'user:rg_...'"),
            ("Basic " + base64.b64encode(b"token:rg_nope").decode(), "invalid token"),
            ("Digest rg_nope", "http://token:rg_...@host"),
        ):
            refused = client.post("/reset", json={"task": "testbed.open-note"}, headers={"Authorization": header})
            assert refused.status_code == 401 and message in refused.json()["detail"], header
        auth = {"Authorization": f"Bearer {secret}"}
        out_of_scope = client.post("/reset", json={"task": "testbed.report-owner"}, headers=auth)
        assert out_of_scope.status_code == 403 and "smoke" in out_of_scope.json()["detail"]
        for body, message in (
            ({"task": "testbed.nope"}, "unknown task"),
            ({"task": "testbed.open-note", "seed": -1}, "seed"),
            ({"task": "testbed.open-note", "colour": 1}, "unknown reset field"),
            ({"task": 5}, "task must be a task id"),
            ({"mode": "pixels"}, "unknown observation mode"),
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
