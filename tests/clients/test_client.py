"""The Django-free client package: its settings, action strings and reply parsing, and a real episode over the
OpenEnv WebSocket with the sync and the async client."""

import subprocess
import sys
from pathlib import Path

import pytest
from replicagym_client import AsyncReplicaGymClient, ReplicaGymClient, ReplicaGymError
from replicagym_client.actions import action_in_reply, action_string, reply_action
from replicagym_client.client import server_settings

from tests.clients.conftest import run_async
from verifiers.actions import parse_action

ROOT = Path(__file__).resolve().parents[2]
# sqlite_only: the Django-free client against the OpenEnv server; the server and its episodes are tested on both
# backends (tests/gateways)
pytestmark = pytest.mark.sqlite_only


def test_settings_come_from_arguments_or_the_environment_and_bad_ones_are_refused(monkeypatch):
    monkeypatch.delenv("REPLICAGYM_URL", raising=False)
    monkeypatch.delenv("REPLICAGYM_TOKEN", raising=False)
    assert server_settings("http://gym.example:8000/base/", "rg_abc") == ("ws://gym.example:8000/base/ws", "rg_abc")
    assert server_settings("https://gym.example", "rg_abc")[0] == "wss://gym.example/ws"
    with pytest.raises(ValueError, match="set REPLICAGYM_URL"):
        ReplicaGymClient(token="rg_abc")
    monkeypatch.setenv("REPLICAGYM_URL", "http://127.0.0.1:1")
    with pytest.raises(ValueError, match="set REPLICAGYM_TOKEN"):
        ReplicaGymClient()
    monkeypatch.setenv("REPLICAGYM_TOKEN", "rg_abc")
    assert ReplicaGymClient().ws_url == "ws://127.0.0.1:1/ws"
    for url in ("ftp://h/", "127.0.0.1:8000", "http://h/?x=1"):
        with pytest.raises(ValueError, match="base URL"):
            server_settings(url, "rg_abc")
    with pytest.raises(ValueError, match="agent token"):
        server_settings("http://h", "rg_a b")


def test_an_unknown_reset_field_is_refused_before_anything_is_sent():
    client = ReplicaGymClient("http://127.0.0.1:1", "rg_abc")  # nothing listens there: a send would fail otherwise
    with pytest.raises(ValueError, match="unknown reset fields: tsak"):
        client.reset(tsak="testbed.complete-note")
    with pytest.raises(ValueError, match="non-empty action string"):
        client.step("  ")


def test_an_unreachable_server_is_a_connection_error():
    with pytest.raises(ReplicaGymError, match="cannot reach the server") as refused:
        ReplicaGymClient("http://127.0.0.1:1", "rg_abc").state()
    assert refused.value.code == "CONNECTION_ERROR"


def test_action_strings_reach_the_servers_grammar_with_their_text_unchanged():
    text = "say \"hi\"\\n\nbye 'now'"
    parsed = parse_action(action_string("fill", "a12", text))
    assert (parsed.name, parsed.bid, parsed.value) == ("fill", "a12", text)
    assert parse_action(action_string("scroll", 0, -250.5)).delta_y == -250.5
    assert parse_action(action_string("select_option", "a3", ("Red", "Blue"))).options == ("Red", "Blue")
    with pytest.raises(ValueError, match="lower-case"):
        action_string("click); goto(", "a1")
    with pytest.raises(ValueError, match="an action argument"):
        action_string("click", {"bid": "a1"})


def test_the_action_a_reply_ends_with_is_found_in_a_fence_or_on_its_last_line():
    assert action_in_reply('I will sign in.\n```\nclick("a12")\n```') == 'click("a12")'
    assert action_in_reply("The title is set.\nNow save:\n`click('a7')`") == "click('a7')"
    assert action_in_reply('fill("a1", "x")\nthen I think I am done') is None
    assert reply_action("no action at all") == (
        "noop()",
        "Your reply ended with no action, so nothing was done. End it with one action call.\n\n",
    )


def test_the_package_imports_neither_django_nor_the_platform():
    """A trainer's process has only the client: run an import of every Django-free module with only platform/ on the
    path.
    """
    probe = (
        "import sys; import replicagym_client, replicagym_client.actions, replicagym_client.trl_env, "
        "replicagym_client.skyrl_env; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'replicagym', 'episodes', 'replicas')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd="/",
        env={"PYTHONPATH": str(ROOT / "platform"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_sync_client_plays_an_episode_to_its_reward(server):
    with ReplicaGymClient() as env:
        first = env.reset(task="testbed.complete-note", seed=0, mode="text")
        assert first.goal.startswith("Sign in with ") and not first.done and first.reward is None
        assert first.text.startswith("URL: http://world.test/login")  # the display origin, never the world's
        missed = env.step('click("a999999")')
        assert missed.observation["error"] and not missed.done
        assert env.state()["step_count"] == 1 and env.state()["status"] == "running"
        ended = env.finish()
        assert ended.done and ended.reward == 0.0  # nothing was done: the verdict fails
        assert env.state()["done"] is True
        second = env.reset(task="testbed.rename-note", seed=1)
        assert "rename note" in second.goal and not second.done  # the connection's next episode


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_async_client_plays_an_episode_and_refusals_are_errors_with_their_code(server, secret):
    async def play():
        async with AsyncReplicaGymClient() as env:
            with pytest.raises(ReplicaGymError, match="unknown task 'testbed.nope'") as unknown:
                await env.reset(task="testbed.nope")
            assert unknown.value.code == "VALIDATION_ERROR"
            first = await env.reset(task="testbed.complete-note", seed=2, mode="text")
            assert "[" in first.text and first.goal.startswith("Sign in with ")
            state = await env.state()
            ended = await env.finish()
            return state, ended

    state, ended = run_async(play())
    assert state["task"] == "testbed.complete-note" and state["status"] == "running"
    assert ended.done and ended.reward == 0.0
    with pytest.raises(ReplicaGymError, match="refused the connection") as refused:
        ReplicaGymClient(token=secret + "x").state()
    assert refused.value.code == "REFUSED"
