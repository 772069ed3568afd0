"""ReplicaGym as a SkyRL-gym text environment (`skyrl_gym.envs.base_text_env.BaseTextEnv`).

SkyRL makes the env with `(env_config, extras)`, where extras are the dataset row's fields: here `task`,
`seed`, `variation`, `mode`, `screenshots`, `full_every` choose the episode and `max_turns` bounds it.
`init(prompt)` starts the episode and gives the prompt with the first observation appended; `step(reply)`
takes the action the model's reply ends with (`actions.action_in_reply`) and answers the next observation
as a user message, the reward at the end; `close()` ends the connection (and a running episode).
The server and token come from REPLICAGYM_URL and REPLICAGYM_TOKEN, or env_config's `url` and `token`.
Register it with `skyrl_gym.register(id="replicagym", entry_point="replicagym_client.skyrl_env:ReplicaGymTextEnv")`.
"""

from typing import Any

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

from .actions import reply_action
from .client import RESET_FIELDS, ReplicaGymClient

DEFAULT_MAX_TURNS = 20


class ReplicaGymTextEnv(BaseTextEnv):
    def __init__(self, env_config: Any = None, extras: dict | None = None):
        super().__init__()
        config = dict(env_config or {})
        extras = dict(extras or {})
        self.client = ReplicaGymClient(config.get("url"), config.get("token"))
        self.reset_fields = {key: extras[key] for key in RESET_FIELDS if extras.get(key) is not None}
        self.reset_fields.setdefault("mode", "text")
        self.max_turns = int(extras.get("max_turns", DEFAULT_MAX_TURNS))
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, not {self.max_turns}")
        self.last = None

    def init(self, prompt):
        self.last = self.client.reset(**self.reset_fields)
        first = {"role": "user", "content": self.last.message(with_goal=True)}
        return [*prompt, first], {"episode": self.last.observation.get("metadata", {}).get("episode")}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        if self.last is None:
            raise RuntimeError("call init() before step()")
        self.turns += 1
        chosen, note = reply_action(action)
        self.last = self.client.step(chosen)
        if not self.last.done and self.turns >= self.max_turns:
            self.last = self.client.finish()  # out of turns: the episode is judged as it stands
        return BaseTextEnvStepOutput(
            observations=[] if self.last.done else [{"role": "user", "content": note + self.last.message()}],
            reward=(self.last.reward or 0.0) if self.last.done else 0.0,
            done=self.last.done,
            metadata={"action": chosen},
            postprocessed_action=chosen,
        )

    def close(self):
        self.client.close()
