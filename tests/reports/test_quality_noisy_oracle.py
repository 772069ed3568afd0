"""The noisy oracle: the reference solution with seeded slips (wrong element, skipped step, early stop)."""

from types import SimpleNamespace

import pytest

from episodes.agents import AgentError, NoisyOracleAgent, agent_from_spec

REFERENCE = [
    'fill("#id_email", "a@b.c")',
    'fill("#id_password", "pw")',
    "click(\"role=button[name='Sign in']\")",
    'check("#id_done")',
    "click(\"role=button[name='Save']\")",
]
AXTREE = "\n".join(["[a1] link 'Notes'", "[a2] button 'Save'", "[a3] textbox 'Title'", "[a4] checkbox 'Done'"])
TASK = {"task_id": "t", "instruction": "x", "reference_solution": REFERENCE}


def play(agent, steps=20) -> list:
    obs = SimpleNamespace(axtree=AXTREE, step=0)
    actions = []
    for _ in range(steps):
        action = agent.act(obs)
        if action is None:
            break
        actions.append(action)
    return actions


def test_rate_zero_plays_the_reference_and_rate_one_slips_at_every_step():
    assert play(NoisyOracleAgent(REFERENCE, rate=0)) == REFERENCE
    agent = NoisyOracleAgent(REFERENCE, rate=1, seed=3)
    actions = play(agent)
    assert not set(actions) & set(REFERENCE)
    assert agent.slips and all(s["slip"] in ("wrong_element", "skipped_step", "early_stop") for s in agent.slips)
    wrong = [s["action"] for s in agent.slips if s["slip"] == "wrong_element"]
    assert wrong == actions and all(a.startswith('click("a') for a in actions)


def test_the_same_seeds_give_the_same_slips_and_other_episode_seeds_other_ones():
    runs = {}
    for episode_seed in range(8):
        first = play(agent_from_spec("noisy-oracle:0.2:7", task=TASK, seed=episode_seed))
        assert play(agent_from_spec("noisy-oracle:0.2:7", task=TASK, seed=episode_seed)) == first
        runs[episode_seed] = tuple(first)
    assert len(set(runs.values())) > 3  # attempts of a run (episode seeds 0..k-1) slip differently
    assert tuple(REFERENCE) in runs.values()  # and at this rate some attempts play it clean


def test_reset_replays_the_same_episode():
    agent = agent_from_spec("noisy-oracle:0.5:1", task=TASK, seed=2)
    first, slips = play(agent), list(agent.slips)
    agent.reset({"task_id": "t"})
    assert play(agent) == first and agent.slips == slips


def test_all_three_slips_occur_and_a_wrong_click_never_targets_the_intended_element():
    kinds = set()
    for episode_seed in range(30):
        agent = agent_from_spec("noisy-oracle:0.3", task=TASK, seed=episode_seed)
        play(agent)
        kinds |= {s["slip"] for s in agent.slips}
    assert kinds == {"wrong_element", "skipped_step", "early_stop"}
    on_bid = NoisyOracleAgent(['click("a2")'], rate=1, seed=0)
    for _ in range(20):
        on_bid.reset()
        action = on_bid.act(SimpleNamespace(axtree=AXTREE))
        assert action != 'click("a2")'


@pytest.mark.parametrize(
    "spec, message",
    [
        ("noisy-oracle:lots", "slip rate between 0 and 1"),
        ("noisy-oracle:1.5", "between 0 and 1"),
        ("noisy-oracle:nan", "between 0 and 1"),
        ("noisy-oracle:0.2:x", "integer seed"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(AgentError, match=message):
        agent_from_spec(spec, task=TASK)


def test_a_task_without_reference_cannot_have_a_noisy_oracle():
    with pytest.raises(AgentError, match="no reference solution"):
        agent_from_spec("noisy-oracle", task={"task_id": "t", "reference_solution": []})
