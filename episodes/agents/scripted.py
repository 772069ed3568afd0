"""Agents that play a fixed list of actions: the task's reference solution, or a recorded trajectory."""

from pathlib import Path

from verifiers.actions import ActionError, parse_action

from .base import Agent, AgentError


class ScriptedAgent(Agent):
    """Plays `actions` in order, then returns None (done)."""

    name = "scripted"

    def __init__(self, actions: list[str]):
        super().__init__()
        if not isinstance(actions, list | tuple) or not all(isinstance(a, str) for a in actions):
            raise AgentError("actions must be a list of action strings")
        self.actions = list(actions)
        self.position = 0

    def reset(self, task_info=None):
        super().reset(task_info)
        self.position = 0

    def act(self, observation) -> str | None:
        if self.position >= len(self.actions):
            return None
        action = self.actions[self.position]
        self.position += 1
        return action


class OracleAgent(ScriptedAgent):
    """The task's reference solution (params already filled in)."""

    name = "oracle"

    def __init__(self, actions: list[str]):
        super().__init__(actions)
        # A reference solution is authored, so a malformed line is the author's bug: say so now.
        for number, action in enumerate(self.actions, start=1):
            try:
                parse_action(action)
            except ActionError as exc:
                raise AgentError(f"reference solution step {number} ({action!r}): {exc}") from None


class ReplayAgent(ScriptedAgent):
    """Replays the actions of a trajectory file (the JSON-lines format of episodes.trajectory)."""

    name = "replay"

    def __init__(self, path: str | Path):
        from ..trajectory import TrajectoryError, trajectory_read

        try:
            trajectory = trajectory_read(path)
        except TrajectoryError as exc:
            raise AgentError(str(exc)) from None
        super().__init__(trajectory.actions)
        self.path = str(path)
        self.header = trajectory.header
