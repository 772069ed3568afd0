"""The trainer adapters: TRL's environment_factory (its tools through transformers' get_json_schema, as TRL reads
them), SkyRL-gym's BaseTextEnv (the real skyrl-gym) and verifiers' MultiTurnEnv (a contract test: see
verifiers_contract.py), each playing real episodes against the OpenEnv server."""

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
import skyrl_gym
from replicagym_client.trl_env import ReplicaGymToolEnv, reward
from transformers.utils import get_json_schema

from tests.clients.conftest import run_async
from tests.clients.verifiers_contract import stub_verifiers
from verifiers.actions import ACTIONS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))  # the examples' scripted policy

from policy import NotePolicy  # noqa: E402
from verifiers_episodes import play_rollout  # noqa: E402

# sqlite_only: the trainers' adapters over the OpenEnv server; the server and its episodes are tested on both
# backends (tests/gateways)
pytestmark = pytest.mark.sqlite_only


def served(test):
    """A test against the OpenEnv server, whose episodes drive a real Chromium."""
    return pytest.mark.browser(pytest.mark.django_db(transaction=True)(test))


TOOLS = {
    "click",
    "fill",
    "select_option",
    "check",
    "uncheck",
    "press",
    "hover",
    "scroll",
    "goto",
    "go_back",
    "send_msg_to_user",
    "report_infeasible",
}


def trl_tools(cls) -> list:
    """The methods TRL's GRPOTrainer offers as tools: public functions of the class but reset and get_reward."""
    return [
        member
        for name, member in inspect.getmembers(cls, predicate=inspect.isfunction)
        if name not in ("reset", "get_reward") and not name.startswith("_")
    ]


def test_every_trl_tool_is_an_action_of_the_servers_grammar_with_a_schema_transformers_accepts():
    tools = trl_tools(ReplicaGymToolEnv)
    assert {tool.__name__ for tool in tools} == TOOLS  # nothing else public: TRL would offer it to the model
    assert TOOLS <= set(ACTIONS)
    for tool in tools:
        schema = get_json_schema(tool)["function"]
        assert schema["name"] == tool.__name__ and schema["description"], tool.__name__
        parameters = schema["parameters"]["properties"]
        wanted = [p for p in inspect.signature(tool).parameters if p != "self"]
        assert list(parameters) == wanted and parameters.keys() == set(schema["parameters"].get("required", []))
        assert all(p["description"] for p in parameters.values()), tool.__name__


@served
def test_trl_env_needs_no_arguments_and_reward_ends_an_unfinished_episode(server):
    env = ReplicaGymToolEnv()  # as TRL makes it: configured from REPLICAGYM_URL and REPLICAGYM_TOKEN
    # TRL passes the whole dataset row: its own columns (prompt) go unused
    text = env.reset(prompt=[{"role": "user", "content": "Do the task."}], task="testbed.complete-note", seed=3)
    assert text.startswith("Goal: Sign in with ") and "URL: http://world.test/login" in text
    policy = NotePolicy(goal=text.partition("\n")[0].removeprefix("Goal: "))
    name, args = policy.next_call(text)
    after = getattr(env, name)(*args)
    assert "value='member" in after  # the email typed, seen on the next observation
    assert reward(environments=[env]) == [0.0]  # the model stopped: the episode is judged as it stands
    assert env._client.state()["done"] is True
    assert env.click("a1").startswith("There is no running episode")


@served
def test_skyrl_env_plays_an_episode_through_init_step_and_close(server):
    if "replicagym-test" not in skyrl_gym.registry:
        skyrl_gym.register(id="replicagym-test", entry_point="replicagym_client.skyrl_env:ReplicaGymTextEnv")
    env = skyrl_gym.make(
        "replicagym-test", env_config={}, extras={"task": "testbed.rename-note", "seed": 4, "max_turns": 10}
    )
    messages, metadata = env.init([{"role": "system", "content": "You operate a browser."}])
    assert messages[0]["role"] == "system" and messages[-1]["content"].startswith("Goal: Sign in with ")
    assert isinstance(metadata["episode"], int)
    idle = env.step("I am thinking about it.")
    assert idle["observations"][0]["content"].startswith("Your reply ended with no action")
    assert idle["done"] is False and idle["reward"] == 0.0 and idle["postprocessed_action"] == "noop()"
    policy = NotePolicy(goal=messages[-1]["content"].partition("\n")[0].removeprefix("Goal: "))
    out, turns = idle, 1
    while not out["done"]:
        out = env.step(policy.reply(out["observations"][0]["content"]))
        turns += 1
    env.close()
    assert out["reward"] == 1.0 and out["observations"] == [] and turns == 7


@served
def test_skyrl_env_out_of_turns_is_judged_as_it_stands(server):
    from replicagym_client.skyrl_env import ReplicaGymTextEnv

    env = ReplicaGymTextEnv(extras={"task": "testbed.complete-note", "seed": 5, "max_turns": 1})
    env.init([])
    out = env.step('click("a999999")')
    env.close()
    assert out["done"] is True and out["reward"] == 0.0
    with pytest.raises(ValueError, match="max_turns must be at least 1"):
        ReplicaGymTextEnv(extras={"max_turns": 0})


@served
def test_verifiers_env_follows_the_multiturn_contract_to_its_rubrics_reward(server, monkeypatch):
    module = stub_verifiers(monkeypatch)
    env = module.load_environment(["testbed.complete-note", "testbed.rename-note"], episodes=4)
    rows = env.dataset.to_list()
    assert [row["info"] for row in rows] == [
        {"replicagym": {"task": "testbed.complete-note", "seed": 0}},
        {"replicagym": {"task": "testbed.rename-note", "seed": 1}},
        {"replicagym": {"task": "testbed.complete-note", "seed": 2}},
        {"replicagym": {"task": "testbed.rename-note", "seed": 3}},
    ]
    assert rows[0]["prompt"][0]["role"] == "system" and "finish()" in rows[0]["prompt"][0]["content"]
    client = sys.modules["verifiers"].ClientConfig()
    done = run_async(play_rollout(env, rows[1], NotePolicy, client))
    sloppy = run_async(play_rollout(env, rows[0], lambda goal: NotePolicy(goal, sloppy=True), client))
    assert done["reward"] == 1.0 and done["turns"] == 6 and done["closed"]
    assert sloppy["reward"] == 0.0 and sloppy["closed"]
    with pytest.raises(ValueError, match="at least 1"):
        module.load_environment(episodes=0)


@served
def test_the_trl_example_plays_8_episodes_and_prints_their_rewards(server):
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "trl_episodes.py")],
        env={"PYTHONPATH": str(ROOT / "platform"), "PATH": "/usr/bin:/bin", **_server_env()},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 8 and all(line.startswith(f"episode {i + 1}: testbed.") for i, line in enumerate(lines))
    # the scripted policy stops without saving in every fourth episode
    assert [line.rsplit("reward=", 1)[1] for line in lines] == ["1.00", "1.00", "1.00", "0.00"] * 2


def _server_env() -> dict:
    return {key: os.environ[key] for key in ("REPLICAGYM_URL", "REPLICAGYM_TOKEN")}
