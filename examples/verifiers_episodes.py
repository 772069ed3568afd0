"""8 episodes through the verifiers adapter, a scripted policy writing the replies a model would.

verifiers' trainer and `vf-eval` run the same hooks of the environment `load_environment()` returns,
in this order (`MultiTurnEnv.rollout`): setup_state, then a model turn and env_response until
is_completed, then cleanup and the rubric's score_rollout; here the model's turn is the policy's.
It needs the verifiers library (0.3.x, whose top level still serves MultiTurnEnv), in an environment
without this project's own `verifiers` package on the path (a trainer's):
    REPLICAGYM_URL=http://127.0.0.1:8000 REPLICAGYM_TOKEN=rg_... PYTHONPATH=platform python
    examples/verifiers_episodes.py
"""

import asyncio

from policy import EPISODES, TASKS, NotePolicy, episode_plan


async def play_rollout(env, row: dict, policy, client) -> dict:
    """One rollout of a dataset row; `policy(goal)` makes the policy whose `reply(text)` is the model's turn.

    `client` is the model client's config the library's state records (no request goes to it)."""
    state = await env.init_state(row, client, "scripted-policy")
    state = await env.setup_state(state) or state
    messages = list(state["prompt"])
    player = policy(messages[-1]["content"].partition("\n")[0].removeprefix("Goal: "))
    while not await env.is_completed(state):
        reply = {"role": "assistant", "content": player.reply(messages[-1]["content"])}
        state["trajectory"].append({"prompt": list(messages), "completion": [reply]})
        messages.append(reply)
        if await env.is_completed(state):  # max_turns: the last reply gets no answer
            break
        messages += await env.env_response(messages, state)
    state["completion"] = messages[len(state["prompt"]) :]
    await env.rubric.score_rollout(state)
    client = state["replicagym"]["client"]
    await env.cleanup(state)
    return {"reward": state["reward"], "turns": len(state["trajectory"]), "closed": client._ws is None}


def main() -> list[float]:
    # imported here, not above: play_rollout stays importable where the library is not (the contract test's stand-in)
    from replicagym_client.verifiers_env import INFO_KEY, load_environment

    import verifiers as vf

    env = load_environment(list(TASKS), episodes=EPISODES)
    rewards = []
    for i, row in enumerate(env.dataset.to_list()):
        task, seed, sloppy = row["info"][INFO_KEY]["task"], row["info"][INFO_KEY]["seed"], episode_plan(i)[2]
        player = lambda goal, sloppy=sloppy: NotePolicy(goal, sloppy)  # noqa: E731
        done = asyncio.run(play_rollout(env, row, player, vf.ClientConfig()))
        rewards.append(done["reward"])
        print(f"episode {i + 1}: {task} seed={seed} turns={done['turns']} reward={done['reward']:.2f}")
    return rewards


if __name__ == "__main__":
    main()
