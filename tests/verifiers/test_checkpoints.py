"""Checkpoints: ordered milestones that pay partial credit (TheAgentCompany's formula), never a pass."""

import pytest

from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.rewards import reward_signals
from verifiers.spec import SpecError, validate_spec

EMPTY = {"replica": "testbed", "tables": {}}


def said(word: str, **extra) -> dict:
    return {"name": f"said {word}", "kind": "answer", "type": "regex", "pattern": word, "match": "search", **extra}


SPEC = {
    "assertions": [said("alpha"), said("beta"), said("gamma", required=False)],
    "checkpoints": [
        {"name": "found it", "assertions": ["said alpha"]},
        {"name": "fixed it", "points": 2, "assertions": ["said beta"]},
        {"name": "told them", "assertions": ["said alpha", "said gamma"]},
    ],
}


def verdict(message: str, spec=SPEC):
    inputs = VerifierInputs(
        initial=EMPTY, final=EMPTY, messages=[message], replica="testbed", clock="2026-03-02T09:00:00Z"
    )
    return verify(spec, inputs)


@pytest.mark.parametrize(
    "message, reached, credit, passed",
    [
        ("nothing useful", [False, False, False], 0.0, False),
        ("alpha", [True, False, False], 0.5 * 1 / 4, False),
        ("alpha beta", [True, True, False], 0.5 * 3 / 4, True),  # passes without the optional milestone
        ("beta gamma", [False, True, False], 0.5 * 2 / 4, False),  # "told them" needs alpha too
        ("alpha beta gamma", [True, True, True], 1.0, True),
    ],
)
def test_each_checkpoint_is_reached_when_all_its_assertions_hold_and_credit_follows_the_formula(
    message, reached, credit, passed
):
    result = verdict(message)
    assert [c["reached"] for c in result.checkpoints] == reached
    assert [c["points"] for c in result.checkpoints] == [1, 2, 1]
    assert result.partial_completion == pytest.approx(credit) and result.passed is passed


def test_partial_credit_is_a_signal_of_its_own_paid_only_to_an_episode_the_agent_ended():
    partly = verdict("alpha").to_dict()
    signals = reward_signals(verdict=partly, trajectory=[], reference_steps=1)
    assert signals["partial_completion"] == pytest.approx(0.125)
    assert signals["task_completion"] == 0 and signals["episode_reward"] == 0  # a milestone is not a pass
    cut_off = reward_signals(verdict=partly, trajectory=[], reference_steps=1, ended_by_agent=False)
    assert cut_off["partial_completion"] == 0
    full = reward_signals(verdict=verdict("alpha beta gamma"), trajectory=[], reference_steps=1)
    assert full["partial_completion"] == 1 and full["episode_reward"] > 0


def test_a_task_without_checkpoints_has_no_partial_credit():
    plain = verdict("alpha beta", {"assertions": [said("alpha"), said("beta")]})
    assert plain.checkpoints == [] and plain.partial_completion is None
    assert "partial_completion" not in reward_signals(verdict=plain, trajectory=[], reference_steps=1)


@pytest.mark.parametrize(
    "checkpoints, path, words",
    [
        (
            [{"name": "x", "assertions": ["said delta"]}],
            "checkpoints[0].assertions[0]",
            "no assertion named 'said delta'",
        ),
        (
            [{"name": "x", "assertions": ["said alpha"]}, {"name": "x", "assertions": ["said beta"]}],
            "checkpoints[1].name",
            "duplicate",
        ),
        (
            [{"name": "x", "assertions": ["said alpha", "said alpha"]}],
            "checkpoints[0].assertions",
            "each assertion once",
        ),
        ([{"name": "x", "assertions": []}], "checkpoints[0].assertions", ""),
        ([{"name": "x", "points": 0, "assertions": ["said alpha"]}], "checkpoints[0].points", ""),
        ([{"name": "x", "assertions": ["said alpha"], "weight": 2}], "checkpoints[0].weight", ""),
    ],
)
def test_a_bad_checkpoint_is_refused_at_its_json_path(checkpoints, path, words):
    with pytest.raises(SpecError) as caught:
        validate_spec({**SPEC, "checkpoints": checkpoints}, replica="testbed")
    assert caught.value.path == path and words in caught.value.detail
