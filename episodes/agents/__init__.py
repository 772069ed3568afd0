"""Agents: what picks the actions of an episode (see `agent_from_spec`)."""

from pathlib import Path

from ..engine.observation import OBSERVATION_SETTING
from .base import Agent, AgentError, task_info
from .noisy_oracle import NoisyOracleAgent, noisy_oracle_from_spec
from .random_agent import RandomAgent
from .remote import HttpAgent
from .scripted import OracleAgent, ReplayAgent, ScriptedAgent

__all__ = [
    "Agent",
    "AgentError",
    "HttpAgent",
    "NoisyOracleAgent",
    "OracleAgent",
    "RandomAgent",
    "ReplayAgent",
    "ScriptedAgent",
    "agent_from_spec",
]

SPECS = "oracle, nothing, negative:N, noisy-oracle[:RATE[:SEED]], random, replay:FILE, http:URL, openai:MODEL"


def agent_from_spec(
    spec: str, *, task=None, seed: int = 0, settings: dict | None = None, fenced: bool = False
) -> Agent:
    """Build (and reset) the agent named by `spec`; AgentError says what is wrong.

    `settings` go to the remote agents' constructors (timeout, max_failures, temperature:
    a run's agent settings, checked by episodes.runs.agent_settings_validate). `fenced`: the
    spec came from outside (the UI, the API), so an http agent must be at an allow-listed,
    public endpoint (episodes.agents.endpoints).
    """
    # the observation mode is the engine's, not an agent constructor's
    settings = {k: v for k, v in (settings or {}).items() if k != OBSERVATION_SETTING}
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"an agent spec is one of: {SPECS}")
    kind, _, arg = spec.strip().partition(":")
    if kind == "oracle" and not arg:
        if task is None:
            raise AgentError("the oracle agent needs a task (it plays the task's reference solution)")
        found = task.get("reference_solution") if isinstance(task, dict) else getattr(task, "reference_solution", None)
        actions = list(found or [])
        if not actions:
            raise AgentError("this task has no reference solution for the oracle agent to play")
        agent = OracleAgent(actions)
    elif kind == "nothing" and not arg:  # a task's self-check: doing nothing must fail
        agent = ScriptedAgent([])
    elif kind == "negative":  # a task's self-check: its Nth negative example, filled for this episode's world
        examples = (
            task.get("negative_examples") if isinstance(task, dict) else getattr(task, "negative_examples", None)
        ) or []
        try:
            index = int(arg)
            example = examples[index] if index >= 0 else None
        except (ValueError, IndexError):
            example = None
        if example is None:
            raise AgentError(
                f"negative:N needs the index of one of the task's {len(examples)} negative examples, not {arg!r}"
            )
        agent = ScriptedAgent(list(example["actions"]))
    elif kind == "noisy-oracle":
        agent = noisy_oracle_from_spec(arg, oracle=agent_from_spec("oracle", task=task), episode_seed=seed)
    elif kind == "random":
        if arg:
            try:
                seed = int(arg)
            except ValueError:
                raise AgentError(f"random:SEED needs an integer seed, not {arg!r}") from None
        agent = RandomAgent(seed)
    elif kind == "replay":
        if not arg:
            raise AgentError("replay:FILE needs the path of a trajectory file")
        if not Path(arg).is_file():
            raise AgentError(f"replay: no trajectory file at {arg}")
        agent = ReplayAgent(arg)
    elif kind == "http":
        if not arg:
            raise AgentError("http:URL needs the agent's URL, as in http:http://127.0.0.1:9000/act")
        agent = HttpAgent(arg, **settings, fenced=fenced)
    elif kind == "openai":
        if not arg:
            raise AgentError("openai:MODEL needs a model name, as in openai:gpt-4o")
        from .chat_model import OpenAIAgent  # not at the top: importing the SDK costs every process most of a second

        agent = OpenAIAgent(arg, **settings)
    else:
        raise AgentError(f"unknown agent {spec!r}; use one of: {SPECS}")
    agent.reset(task_info(task))
    return agent
