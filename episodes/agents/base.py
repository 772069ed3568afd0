"""The agent interface: `reset(task_info)` once per episode, then `act(observation) -> action text`."""

from typing import Any


class AgentError(ValueError):
    """An agent cannot be built from what was given (a bad spec, a missing file or setting)."""


def task_info(task: Any) -> dict:
    """What an agent may know of a task: never the answer key or the verifier."""
    if task is None:
        return {}
    if isinstance(task, dict):
        return {k: task[k] for k in ("task_id", "instruction", "start_page", "limits") if k in task}
    info = {}
    for key in ("task_id", "instruction", "start_page", "limits"):
        try:
            value = getattr(task, key)
        except (AttributeError, KeyError):
            continue
        info[key] = value
    return info


class Agent:
    """Picks one action string per step. `act` returns None when the agent has nothing more to do."""

    name = "agent"

    def __init__(self):
        self.task: dict = {}
        # Problems the agent met (a remote agent timing out, an unparsable reply): kept
        # for the trajectory, never raised into the episode loop.
        self.errors: list[str] = []

    def reset(self, task_info: dict | None = None) -> None:
        self.task = dict(task_info or {})
        self.errors = []

    @property
    def last_error(self) -> str:
        return self.errors[-1] if self.errors else ""

    def act(self, observation) -> str | None:
        raise NotImplementedError
