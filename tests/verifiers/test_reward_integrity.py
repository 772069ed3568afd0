"""Reward signals pay only for a completed task: under any weights, doing nothing or failing earns 0.

The trajectories here used to earn reward: `action_precision` and `error_recovery` read 1.0 on an
empty trajectory and `collateral` 1.0 on an untouched world, so weights on them paid a do-nothing
episode; a verdict that held after the time limit paid 1.0 (issue 25).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifiers.engine import Verdict
from verifiers.rewards import SIGNALS, reward_signals, validate_weights

# sqlite_only: pure functions of their arguments, no database; PostgreSQL would repeat them as they are
pytestmark = pytest.mark.sqlite_only

NOTHING_DONE = Verdict(assertions=[], passed=False, partial=0.5, collateral_ok=True)
CLICK = 'click("a12")'


def _zero(signals: dict) -> bool:
    return signals == {**dict.fromkeys(SIGNALS, 0.0), "episode_reward": 0.0}


@pytest.mark.parametrize(
    "weights",
    [
        {"action_precision": 1},
        {"error_recovery": 1},
        {"action_precision": 1, "error_recovery": 1},
        {"collateral": 1},
        {"task_completion": 0.1, "action_precision": 0.45, "error_recovery": 0.45},
    ],
)
def test_an_empty_trajectory_that_failed_earns_nothing_under_weights_on_precision_and_recovery(weights):
    signals = reward_signals(verdict=NOTHING_DONE, trajectory=[], reference_steps=3, weights=weights)
    assert _zero(signals), signals


def test_a_passing_verdict_of_an_episode_that_did_not_end_by_the_agents_stop_earns_nothing():
    right = Verdict(assertions=[], passed=True, partial=1.0, collateral_ok=True)
    steps = [{"index": 0, "action": 'send_msg_to_user("done")', "error": "", "url": "", "fault_events": []}]
    assert reward_signals(verdict=right, trajectory=steps, reference_steps=1)["episode_reward"] == 1.0
    late = reward_signals(verdict=right, trajectory=steps, reference_steps=1, ended_by_agent=False)
    assert _zero(late), late
    # the stored form of a verdict (recomputed with other weights) follows the same rule
    assert _zero(
        reward_signals(
            verdict=right.to_dict(),
            trajectory=steps,
            reference_steps=1,
            ended_by_agent=False,
            weights={"efficiency": 1},
        )
    )


def test_a_completed_task_keeps_its_signals_meaningful():
    right = Verdict(assertions=[], passed=True, partial=1.0, collateral_ok=True)
    steps = [
        {
            "index": i,
            "action": CLICK,
            "error": "no element" if i == 0 else "",
            "url": "",
            "fault_events": [],
            "changed": True,
        }
        for i in range(4)
    ]
    signals = reward_signals(
        verdict=right, trajectory=steps, reference_steps=2, weights={"task_completion": 1, "action_precision": 1}
    )
    assert signals["action_precision"] == 0.75 and signals["efficiency"] == 0.5 and signals["error_recovery"] == 1.0
    assert signals["episode_reward"] == 0.875
    assert reward_signals(verdict=right, trajectory=[], reference_steps=1)["action_precision"] == 1.0


weight_values = st.one_of(st.integers(min_value=0, max_value=1000), st.floats(min_value=0, max_value=1e6))
weights_strategy = st.dictionaries(st.sampled_from(SIGNALS), weight_values, min_size=1).filter(
    lambda w: sum(w.values()) > 0
)


def _step(action, error, changed, faults):
    return {
        "index": 0,
        "action": action,
        "error": error,
        "url": "",
        "changed": changed,
        "fault_events": [{"kind": "timeout"}] if faults else [],
        "state_changed": changed,
    }


steps_strategy = st.lists(
    st.builds(
        _step,
        st.sampled_from([CLICK, "noop()", 'send_msg_to_user("x")']),
        st.sampled_from(["", "no element"]),
        st.booleans(),
        st.booleans(),
    ),
    max_size=6,
)


# no deadline: the functions are pure and fast, but this 2-core machine is shared, and a slow example is no bug
@settings(deadline=None)
@given(weights=weights_strategy, collateral_ok=st.booleans(), partial=st.floats(min_value=0, max_value=1))
def test_property_a_do_nothing_episode_earns_nothing_under_any_valid_weights(weights, collateral_ok, partial):
    validate_weights(weights)
    verdict = Verdict(assertions=[], passed=False, partial=partial, collateral_ok=collateral_ok)
    assert reward_signals(verdict=verdict, trajectory=[], reference_steps=2, weights=weights)["episode_reward"] == 0.0


@settings(deadline=None)
@given(weights=weights_strategy, steps=steps_strategy, passed=st.booleans())
def test_property_a_failed_or_late_episode_earns_nothing_whatever_it_did(weights, steps, passed):
    verdict = Verdict(assertions=[], passed=passed, partial=1.0, collateral_ok=True)
    # failed (any steps), or passed but not ended by the agent's own stop within its limits
    signals = reward_signals(
        verdict=verdict, trajectory=steps, reference_steps=2, weights=weights, ended_by_agent=not passed
    )
    assert _zero(signals)
