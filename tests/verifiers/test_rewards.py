"""Reward signals: each in [0, 1], as documented in verifiers.rewards."""

import pytest

from verifiers.engine import Verdict
from verifiers.rewards import RewardWeightsError, reward_signals


def verdict(passed=True, collateral_ok=True):
    return Verdict(assertions=[], passed=passed, partial=1.0 if passed else 0.0, collateral_ok=collateral_ok)


def step(action, *, error=None, changed=True, state_changed=None, faults=()):
    s = {"index": 0, "action": action, "error": error, "url": "", "fault_events": list(faults), "changed": changed}
    if state_changed is not None:
        s["state_changed"] = state_changed
    return s


CLICK = "click(\"role=button[name='Refund']\")"


def test_a_clean_success_scores_one_everywhere():
    signals = reward_signals(verdict=verdict(), trajectory=[step('fill("a1", "x")'), step(CLICK)], reference_steps=2)
    assert signals == {
        "task_completion": 1.0,
        "efficiency": 1.0,
        "error_recovery": 1.0,
        "action_precision": 1.0,
        "collateral": 1.0,
        "episode_reward": 1.0,
    }


def test_efficiency_is_reference_over_taken_and_zero_on_failure():
    four = [step(CLICK)] * 4
    assert reward_signals(verdict=verdict(), trajectory=four, reference_steps=2)["efficiency"] == 0.5
    assert reward_signals(verdict=verdict(), trajectory=four[:1], reference_steps=2)["efficiency"] == 1.0
    assert reward_signals(verdict=verdict(False), trajectory=four, reference_steps=2)["efficiency"] == 0.0


def test_action_precision_counts_steps_without_error_that_changed_something():
    steps = [
        step(CLICK),
        step(CLICK, error="no element"),
        step("noop()", changed=False),
        step('send_msg_to_user("x")', changed=False),
    ]
    assert reward_signals(verdict=verdict(), trajectory=steps, reference_steps=1)["action_precision"] == pytest.approx(
        1 / 3
    )


def test_error_recovery_retrying_a_write_that_failed_is_recovery():
    steps = [
        step(CLICK, error="HTTP 500", state_changed=False, faults=[{"kind": "http_500"}]),
        step(CLICK, state_changed=True),
    ]
    assert reward_signals(verdict=verdict(), trajectory=steps, reference_steps=1)["error_recovery"] == 1.0


def test_error_recovery_repeating_a_write_that_went_through_is_harm():
    steps = [
        step(CLICK, error="Timeout", state_changed=True, faults=[{"kind": "timeout"}]),
        step(CLICK, state_changed=True),
    ]
    assert reward_signals(verdict=verdict(), trajectory=steps, reference_steps=1)["error_recovery"] == 0.0


def test_error_recovery_is_the_fraction_of_faults_recovered_and_zero_on_failure():
    steps = [
        step(CLICK, state_changed=True, faults=[{"kind": "slow"}]),
        step('fill("a1", "x")', state_changed=False),
        step(CLICK, state_changed=True, faults=[{"kind": "timeout"}]),
        step(CLICK, state_changed=True),
    ]
    # the first write went through, then repeating it after either fault is harm: 0 of 2
    assert reward_signals(verdict=verdict(), trajectory=steps, reference_steps=1)["error_recovery"] == 0.0
    steps = [
        step('fill("a1", "x")', faults=[{"kind": "modal"}]),
        step(CLICK, state_changed=True, faults=[{"kind": "slow"}]),
    ]
    assert reward_signals(verdict=verdict(), trajectory=steps, reference_steps=1)["error_recovery"] == 1.0
    assert reward_signals(verdict=verdict(False), trajectory=steps, reference_steps=1)["error_recovery"] == 0.0
    # no fault met, but the task failed: nothing to credit (it read 1.0, and paid a do-nothing episode under weights)
    assert reward_signals(verdict=verdict(False), trajectory=[step(CLICK)], reference_steps=1)["error_recovery"] == 0.0


def test_episode_reward_defaults_to_completion_times_collateral():
    assert reward_signals(verdict=verdict(), trajectory=[], reference_steps=1)["episode_reward"] == 1.0
    assert (
        reward_signals(verdict=verdict(collateral_ok=False), trajectory=[], reference_steps=1)["episode_reward"] == 0.0
    )
    assert reward_signals(verdict=verdict(), trajectory=[], reference_steps=1, collateral_ok=False)["collateral"] == 0.0


def test_weights_give_a_weighted_mean_gated_by_collateral_unless_weighted():
    steps = [step(CLICK)] * 4
    weights = {"task_completion": 3, "efficiency": 1}
    assert (
        reward_signals(verdict=verdict(), trajectory=steps, reference_steps=2, weights=weights)["episode_reward"]
        == 0.875
    )
    assert (
        reward_signals(verdict=verdict(collateral_ok=False), trajectory=steps, reference_steps=2, weights=weights)[
            "episode_reward"
        ]
        == 0.0
    )
    weights = {"task_completion": 1, "collateral": 1}
    assert (
        reward_signals(verdict=verdict(collateral_ok=False), trajectory=steps, reference_steps=2, weights=weights)[
            "episode_reward"
        ]
        == 0.5
    )


@pytest.mark.parametrize(
    "weights", [{"speed": 1}, {"task_completion": -1}, {"task_completion": 0}, {"efficiency": True}, []]
)
def test_bad_weights_are_refused(weights):
    with pytest.raises(RewardWeightsError):
        reward_signals(verdict=verdict(), trajectory=[], reference_steps=1, weights=weights)


def test_without_write_flags_no_repeat_is_called_harmful():
    bare = [
        {"index": 0, "action": CLICK, "error": "", "url": "", "fault_events": [{"kind": "timeout"}], "changed": True},
        {"index": 1, "action": CLICK, "error": "", "url": "", "fault_events": [], "changed": True},
    ]
    signals = reward_signals(verdict=verdict(), trajectory=bare, reference_steps=1)
    assert signals["error_recovery"] == 1.0 and signals["action_precision"] == 1.0


def library_event(seq, event, *, fault="api_timeout", index=0, kind="retry_succeeds"):
    return {
        "seq": seq,
        "fault": fault,
        "index": index,
        "event": event,
        "params": {},
        "at_request": seq,
        "at_step": 0,
        "clock": "2026-03-02T09:00:00Z",
        "route": "/api/v2/billing/payments/ch_1/refunds",
        "detail": {},
        "recovery": {"kind": kind},
    }


def test_faults_of_the_library_count_once_when_fired_and_follow_its_recovery_judgement():
    armed_only = [step(CLICK, faults=[library_event(1, "armed")])]
    assert reward_signals(verdict=verdict(), trajectory=armed_only, reference_steps=1)["error_recovery"] == 1.0
    fired = step(
        CLICK, error="HTTP 504", state_changed=False, faults=[library_event(1, "armed"), library_event(2, "fired")]
    )
    retried = step(CLICK, state_changed=True, faults=[library_event(3, "recovered")])
    assert reward_signals(verdict=verdict(), trajectory=[fired, retried], reference_steps=1)["error_recovery"] == 1.0
    gave_up = step('send_msg_to_user("done")')
    assert reward_signals(verdict=verdict(), trajectory=[fired, gave_up], reference_steps=1)["error_recovery"] == 0.0


def test_the_order_of_library_fault_events_uses_what_happened():
    from verifiers.engine import verify
    from verifiers.inputs import VerifierInputs

    empty = {"replica": "testbed", "tables": {}}
    steps = [
        step(CLICK, faults=[library_event(1, "armed"), library_event(2, "fired")]),
        step(CLICK, faults=[library_event(3, "recovered")]),
    ]

    def order(*events):
        spec = {"assertions": [{"name": "o", "kind": "trajectory", "order": list(events)}]}
        return verify(spec, VerifierInputs(initial=empty, final=empty, trajectory=steps, replica="testbed")).passed

    assert order({"fault": "api_timeout"}, {"action": "click"})  # fired at step 0, retried at step 1
    assert not order({"action": "click"}, {"action": "click"}, {"fault": "api_timeout"})  # only armed/recovered later
    assert order({"action": "click"}, {"fault": "api_timeout", "event": "recovered"})


def test_rewards_can_be_recomputed_from_a_stored_verdict_with_other_weights():
    stored = verdict().to_dict()
    steps = [step(CLICK)] * 4
    signals = reward_signals(
        verdict=stored, trajectory=steps, reference_steps=2, weights={"task_completion": 1, "efficiency": 1}
    )
    assert signals["episode_reward"] == 0.75
    assert (
        reward_signals(verdict={**stored, "collateral_ok": False}, trajectory=steps, reference_steps=2)[
            "episode_reward"
        ]
        == 0.0
    )
