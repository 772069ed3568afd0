"""ReplicaGym as a Prime Intellect verifiers environment: `load_environment()` gives a `MultiTurnEnv` with its Rubric.

This follows verifiers' v0 interface (`import verifiers as vf`: MultiTurnEnv with `setup_state`,
`env_response`, `@vf.stop` and `@vf.cleanup` methods; `vf.Rubric(funcs=..., weights=...)`; a module-level
`load_environment`), which verifiers 0.3.x still serves at the top level. Each rollout is one episode on
its own connection: `setup_state` starts it (the dataset row's `info["replicagym"]` holds task, seed, ... for
the reset: verifiers reads `info["task"]` as its own task payload) and appends the first observation to the prompt;
`env_response` takes the action the model's last
message ends with and answers the next observation; the rubric's one reward is the episode's, ending a
still-running episode as it stands. The server and token come from REPLICAGYM_URL and REPLICAGYM_TOKEN.
"""

import verifiers as vf

from .actions import instructions, reply_action
from .client import RESET_FIELDS, AsyncReplicaGymClient

STATE_KEY = "replicagym"  # the rollout state's entry: {"client", "last"}
INFO_KEY = "replicagym"  # a dataset row's info entry: the episode's reset fields


async def episode_reward(state, **kwargs) -> float:
    """The episode's reward (ending it first if the rollout stopped before the episode did)."""
    episode = state.get(STATE_KEY)
    if episode is None or episode["last"] is None:
        return 0.0
    if not episode["last"].done:
        episode["last"] = await episode["client"].finish()
    return episode["last"].reward or 0.0


class ReplicaGymEnv(vf.MultiTurnEnv):
    def __init__(self, *, mode: str = "text", **kwargs):
        super().__init__(**kwargs)
        self.mode = mode

    async def setup_state(self, state, **kwargs):
        chosen = (state.get("info") or {}).get(INFO_KEY) or {}
        fields = {key: chosen[key] for key in RESET_FIELDS if chosen.get(key) is not None}
        fields.setdefault("mode", self.mode)
        client = AsyncReplicaGymClient()
        state[STATE_KEY] = {"client": client, "last": None}
        first = await client.reset(**fields)
        state[STATE_KEY]["last"] = first
        state["prompt"] = [*state["prompt"], {"role": "user", "content": first.message(with_goal=True)}]
        return state

    async def env_response(self, messages, state, **kwargs):
        episode = state[STATE_KEY]
        reply = messages[-1]["content"] if messages and messages[-1].get("role") == "assistant" else ""
        action, note = reply_action(reply if isinstance(reply, str) else "")
        episode["last"] = await episode["client"].step(action)
        response = [{"role": "user", "content": note + episode["last"].message()}]
        if episode["last"].done:
            state["final_env_response"] = response
        return response

    @vf.stop
    async def episode_done(self, state, **kwargs) -> bool:
        episode = state.get(STATE_KEY)
        return bool(episode and episode["last"] is not None and episode["last"].done)

    @vf.cleanup
    async def close_episode(self, state, **kwargs):
        episode = state.get(STATE_KEY)
        if episode is not None:
            await episode["client"].close()


def load_environment(
    tasks: list[str] | None = None, *, episodes: int = 8, mode: str = "text", max_turns: int = 20, **kwargs
) -> ReplicaGymEnv:
    """`episodes` rows cycling over `tasks` (default: the token's tasks, the server's pick), seeds 0, 1, 2, ..."""
    from datasets import Dataset

    if episodes < 1 or max_turns < 1:
        raise ValueError(f"episodes and max_turns must be at least 1, not {episodes} and {max_turns}")
    names = list(tasks or [None])
    rows = [
        {
            "prompt": [{"role": "system", "content": instructions()}],
            "info": {INFO_KEY: {"task": names[i % len(names)], "seed": i}},
        }
        for i in range(episodes)
    ]
    rubric = vf.Rubric(funcs=[episode_reward], weights=[1.0])
    return ReplicaGymEnv(dataset=Dataset.from_list(rows), rubric=rubric, mode=mode, max_turns=max_turns, **kwargs)
