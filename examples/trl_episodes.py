"""8 episodes through the TRL adapter, a scripted policy making the tool calls a model would.

TRL's GRPOTrainer does the same with `environment_factory=ReplicaGymToolEnv, reward_funcs=[reward]`:
it makes the env without arguments, resets it with a dataset row, calls its tool methods as the model
asks, then scores the rollout with `reward(environments=...)`.
Run (a server and a token: README, "Trainer adapters"):
    REPLICAGYM_URL=http://127.0.0.1:8000 REPLICAGYM_TOKEN=rg_... PYTHONPATH=platform .venv/bin/python
    examples/trl_episodes.py
"""

from policy import EPISODES, NotePolicy, episode_plan
from replicagym_client.trl_env import ReplicaGymToolEnv, reward


def main() -> list[float]:
    env = ReplicaGymToolEnv()
    rewards = []
    for i in range(EPISODES):
        task, seed, sloppy = episode_plan(i)
        text = env.reset(prompt=[{"role": "user", "content": "Do the task in the browser."}], task=task, seed=seed)
        policy = NotePolicy(goal=text.partition("\n")[0].removeprefix("Goal: "), sloppy=sloppy)
        calls = 0
        while (call := policy.next_call(text)) is not None:
            name, args = call
            text = getattr(env, name)(*args)
            calls += 1
        [score] = reward(environments=[env])
        rewards.append(score)
        print(f"episode {i + 1}: {task} seed={seed} tool calls={calls} reward={score:.2f}")
    return rewards


if __name__ == "__main__":
    main()
