"""8 episodes through the SkyRL-gym adapter, a scripted policy writing the replies a model would.

SkyRL's generator does the same: `skyrl_gym.make` with the dataset row's extras, `init(prompt)`,
`step(reply)` until done, `close()`.
Run (a server and a token: README, "Trainer adapters"):
    REPLICAGYM_URL=http://127.0.0.1:8000 REPLICAGYM_TOKEN=rg_... PYTHONPATH=platform .venv/bin/python
    examples/skyrl_episodes.py
"""

import skyrl_gym
from policy import EPISODES, NotePolicy, episode_plan
from replicagym_client.actions import instructions

ENV_ID = "replicagym"


def main() -> list[float]:
    if ENV_ID not in skyrl_gym.registry:
        skyrl_gym.register(id=ENV_ID, entry_point="replicagym_client.skyrl_env:ReplicaGymTextEnv")
    rewards = []
    for i in range(EPISODES):
        task, seed, sloppy = episode_plan(i)
        env = skyrl_gym.make(ENV_ID, env_config={}, extras={"task": task, "seed": seed, "max_turns": 12})
        messages, _ = env.init([{"role": "system", "content": instructions()}])
        first = messages[-1]["content"]
        policy = NotePolicy(goal=first.partition("\n")[0].removeprefix("Goal: "), sloppy=sloppy)
        done, turns, score = False, 0, 0.0
        while not done:
            reply = policy.reply(messages[-1]["content"])
            out = env.step(reply)
            messages += [{"role": "assistant", "content": reply}, *out["observations"]]
            done, score, turns = out["done"], out["reward"], turns + 1
        env.close()
        rewards.append(score)
        print(f"episode {i + 1}: {task} seed={seed} turns={turns} reward={score:.2f}")
    return rewards


if __name__ == "__main__":
    main()
