"""Agents: the oracle and replay scripts, the seeded random baseline, HTTP and OpenAI-compatible agents."""

import dataclasses
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest

from episodes.agents import (
    AgentError,
    HttpAgent,
    OracleAgent,
    RandomAgent,
    ReplayAgent,
    agent_from_spec,
)
from episodes.agents.chat_model import OpenAIAgent, extract_action
from episodes.agents.random_agent import interactive_elements
from episodes.engine.observation import Observation
from episodes.trajectory import FORMAT, VERSION
from verifiers.actions import parse_action

AXTREE = """RootWebArea 'Ticket #8001', focused
\t[2] navigation 'Main'
\t\t[3] link 'Home'
\t\t[4] link 'Views'
\t[6] main
\t\t[7] heading 'Refund request', level=1
\t\t[11] textbox 'Subject', required
\t\t[14] combobox 'Priority', value='Low', expanded=False
\t\t\tMenuListPopup
\t\t\t\t[15] option 'Low', selected
\t\t\t\t[16] option 'Normal'
\t\t\t\t[17] option 'Urgent'
\t\t[20] checkbox 'Notify requester', checked='false'
\t\t[24] button 'Submit as Solved'
\t\t[25] button 'Disabled', disabled
\t\t[26] button 'Say \\'hi\\''"""


def make_obs(step=0, axtree=AXTREE) -> Observation:
    return Observation(
        url="http://w-abc.localhost:8000/agent/tickets/8001",
        title="Ticket #8001",
        screenshot=b"\x89PNG fake",
        axtree=axtree,
        focused_bid=None,
        tabs=[{"index": 0, "url": "http://w-abc.localhost:8000/", "active": True}],
        active_tab=0,
        instruction="Solve ticket #8001",
        chat=[{"role": "user", "message": "Solve ticket #8001"}],
        step=step,
        elapsed_ms=12.5,
    )


# --- scripted agents ----------------------------------------------------------------


def test_oracle_plays_the_reference_solution_then_stops():
    agent = OracleAgent(['click("a1")', 'fill("#q", "x")'])
    assert [agent.act(make_obs()), agent.act(make_obs()), agent.act(make_obs())] == [
        'click("a1")',
        'fill("#q", "x")',
        None,
    ]
    agent.reset({})
    assert agent.act(make_obs()) == 'click("a1")'


def test_oracle_refuses_a_malformed_reference_solution():
    with pytest.raises(AgentError, match=r"reference solution step 2 \('click\(a1\)'\)"):
        OracleAgent(['click("a1")', "click(a1)"])


def _write_trajectory(path, actions):
    header = {"format": FORMAT, "version": VERSION, "task": "testbed.demo"}
    lines = [json.dumps(header)] + [json.dumps({"index": i, "action": a}) for i, a in enumerate(actions)]
    path.write_text("\n".join(lines) + "\n")


def test_replay_agent_replays_a_trajectory_file(tmp_path):
    path = tmp_path / "episode.jsonl"
    _write_trajectory(path, ['click("12")', "scroll(0, 200)"])
    agent = ReplayAgent(path)
    assert [agent.act(make_obs()) for _ in range(3)] == ['click("12")', "scroll(0, 200)", None]
    assert agent.header["task"] == "testbed.demo"


def test_replay_agent_reports_a_bad_file(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"format": "something-else"}\n')
    with pytest.raises(AgentError, match="not a replicagym-trajectory header"):
        ReplayAgent(path)


# --- random ---------------------------------------------------------------------------


def test_random_agent_is_reproducible_for_a_seed_and_acts_on_enabled_elements():
    def run(seed):
        agent = RandomAgent(seed)
        agent.reset({"instruction": "x"})
        return [agent.act(make_obs(step=i)) for i in range(40)]

    first, again, other = run(3), run(3), run(4)
    assert first == again
    assert first != other
    used = set()
    for text in first:
        action = parse_action(text)
        if hasattr(action, "bid"):
            used.add(action.bid)
    assert "25" not in used  # the disabled button
    assert used <= {"3", "4", "11", "14", "20", "24", "26"}
    assert any(a.startswith('select_option("14", ') for a in first)


def test_random_agent_reset_restarts_its_sequence():
    agent = RandomAgent(9)
    first = [agent.act(make_obs(step=i)) for i in range(5)]
    agent.reset({})
    assert [agent.act(make_obs(step=i)) for i in range(5)] == first


def test_interactive_elements_reads_names_and_options():
    elements = {e["bid"]: e for e in interactive_elements(AXTREE)}
    assert elements["14"]["options"] == ["Low", "Normal", "Urgent"]
    assert elements["26"]["name"] == "Say 'hi'"
    assert "25" not in elements and "7" not in elements


# --- remote agents against fake servers on loopback ---------------------------------------


class _FakeServer:
    def __init__(self, respond):
        self.requests = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status, payload = respond(self.path, body)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake_server():
    servers = []

    def start(respond):
        server = _FakeServer(respond)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def test_http_agent_posts_the_observation_and_returns_the_action(fake_server):
    server = fake_server(lambda path, body: (200, {"action": 'click("24")'}))
    agent = HttpAgent(server.url + "/act")
    agent.reset({"task_id": "testbed.demo", "instruction": "Solve ticket #8001"})
    assert agent.act(make_obs()) == 'click("24")'
    sent = json.loads(server.requests[0]["body"])
    assert server.requests[0]["path"] == "/act"
    assert sent["task"] == {"task_id": "testbed.demo", "instruction": "Solve ticket #8001"}
    assert sent["observation"]["axtree"] == AXTREE
    assert sent["observation"]["screenshot"] == "iVBORyBmYWtl"  # base64 of the fake PNG bytes
    assert agent.errors == []


def test_http_agent_null_action_means_done(fake_server):
    server = fake_server(lambda path, body: (200, {"action": None}))
    assert HttpAgent(server.url).act(make_obs()) is None


@pytest.mark.parametrize(
    ("status", "payload", "error"),
    [
        (500, {"detail": "boom"}, "HTTP 500"),
        (200, b"not json", "reply is not JSON"),
        (200, {"act": "noop()"}, 'reply has no "action"'),
        (200, {"action": 3}, '"action" must be a string or null'),
        (200, [1, 2], "reply is not a JSON object"),
    ],
)
def test_http_agent_failures_become_noop_with_an_error_note(fake_server, status, payload, error):
    server = fake_server(lambda path, body: (status, payload))
    agent = HttpAgent(server.url)
    assert agent.act(make_obs()) == "noop()"
    assert error in agent.last_error


def test_http_agent_timeout_becomes_noop_and_repeated_failures_end_the_episode(fake_server):
    def slow(path, body):
        time.sleep(1.0)  # the fake agent is slow on purpose; the HTTP agent must give up first
        return 200, {"action": "noop()"}

    server = fake_server(slow)
    agent = HttpAgent(server.url, timeout=0.2, max_failures=2)
    assert agent.act(make_obs()) == "noop()"
    assert "did not answer in time" in agent.last_error or "timed out" in agent.last_error
    assert agent.act(make_obs()) is None
    assert agent.last_error == "giving up after 2 failures in a row"


def test_http_agent_unreachable_becomes_noop():
    agent = HttpAgent("http://127.0.0.1:9/act", timeout=2)
    assert agent.act(make_obs()) == "noop()"
    assert agent.last_error.startswith("cannot reach the agent")


def test_openai_agent_sends_screenshot_and_axtree_and_parses_the_reply(fake_server, settings):
    reply = {
        "choices": [{"message": {"role": "assistant", "content": 'The ticket needs solving.\n```\nclick("24")\n```'}}]
    }
    server = fake_server(lambda path, body: (200, reply))
    settings.OPENAI_BASE_URL = server.url + "/v1"
    settings.OPENAI_API_KEY = "sk-test"
    agent = OpenAIAgent("gpt-test")
    agent.reset({"instruction": "Solve ticket #8001"})
    assert agent.act(make_obs()) == 'click("24")'
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert {k.lower(): v for k, v in request["headers"].items()}["authorization"] == "Bearer sk-test"
    sent = json.loads(request["body"])
    assert sent["model"] == "gpt-test"
    user = sent["messages"][1]["content"]
    assert "[24] button 'Submit as Solved'" in user[0]["text"] and "Solve ticket #8001" in user[0]["text"]
    assert user[1]["image_url"]["url"] == "data:image/png;base64,iVBORyBmYWtl"
    assert 'click(bid, button="left", modifiers=[])' in sent["messages"][0]["content"]
    agent.act(make_obs(step=1))
    assert 'click("24")' in json.loads(server.requests[1]["body"])["messages"][1]["content"][0]["text"]


def test_openai_agent_sends_no_image_for_an_episode_observed_without_screenshots(fake_server, settings):
    settings.OPENAI_BASE_URL = fake_server(lambda path, body: (200, {})).url + "/v1"
    agent = OpenAIAgent("gpt-test")
    content = agent.messages_for(dataclasses.replace(make_obs(), screenshot=b""))[1]["content"]
    assert [part["type"] for part in content] == ["text"] and "[24] button 'Submit as Solved'" in content[0]["text"]


def test_openai_agent_reply_without_an_action_becomes_noop(fake_server, settings):
    server = fake_server(lambda path, body: (200, {"choices": [{"message": {"content": "I am not sure."}}]}))
    settings.OPENAI_BASE_URL = server.url
    agent = OpenAIAgent("gpt-test")
    assert agent.act(make_obs()) == "noop()"
    assert agent.last_error.startswith("no action found in the model's reply")


def test_extract_action_takes_the_last_valid_action_line():
    assert extract_action('Thinking...\nclick("12")\nthen fill("3", "x")\n`fill("3", "x")`') == 'fill("3", "x")'
    assert extract_action('```python\nsend_msg_to_user("Done")\n```') == 'send_msg_to_user("Done")'
    assert extract_action("click(a1)") is None
    assert extract_action("") is None


# --- the factory -----------------------------------------------------------------------------


def test_agent_from_spec_builds_each_kind(tmp_path, settings):
    task = SimpleNamespace(
        task_id="testbed.demo", instruction="Do it", start_page="/", limits={}, reference_solution=['click("a1")']
    )
    oracle = agent_from_spec("oracle", task=task)
    assert isinstance(oracle, OracleAgent) and oracle.task == {
        "task_id": "testbed.demo",
        "instruction": "Do it",
        "start_page": "/",
        "limits": {},
    }
    assert isinstance(agent_from_spec("random", task=task, seed=5), RandomAgent)
    assert agent_from_spec("random:11", task=task).seed == 11
    path = tmp_path / "t.jsonl"
    _write_trajectory(path, ["noop()"])
    assert isinstance(agent_from_spec(f"replay:{path}"), ReplayAgent)
    assert agent_from_spec("http:http://127.0.0.1:9000/act").url == "http://127.0.0.1:9000/act"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9001/v1"
    assert agent_from_spec("openai:gpt-4o").model == "gpt-4o"


@pytest.mark.parametrize(
    ("spec", "task", "message"),
    [
        ("", None, "an agent spec is one of"),
        ("genius", None, "unknown agent 'genius'"),
        ("oracle", None, "the oracle agent needs a task"),
        ("oracle", SimpleNamespace(reference_solution=[]), "has no reference solution"),
        ("random:x", None, "needs an integer seed"),
        ("replay:", None, "needs the path of a trajectory file"),
        ("replay:/nonexistent/t.jsonl", None, "no trajectory file at /nonexistent/t.jsonl"),
        ("http:", None, "needs the agent's URL"),
        ("http://127.0.0.1/act", None, "must be an http(s) URL"),
        ("http:ftp://x/act", None, "must be an http(s) URL"),
        ("openai:", None, "needs a model name"),
    ],
)
def test_agent_from_spec_refuses_bad_specs_clearly(spec, task, message):
    with pytest.raises(AgentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        agent_from_spec(spec, task=task)
