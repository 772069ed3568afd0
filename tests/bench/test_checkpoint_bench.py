"""The dense-checkpoint bench section: the milestones it watches and the goal it is judged by (issue 32)."""

import pytest

from bench.checkpoints import CHECKPOINT_GOAL, watched_spec
from bench.report import checks, table

STATE = {"name": "closed", "kind": "state", "table": "testbed.note", "where": {"public_id": 1}, "expect": {"count": 1}}
SAID = {"name": "said", "kind": "answer", "type": "regex", "pattern": "x", "match": "search"}


def test_a_task_without_checkpoints_is_watched_on_each_assertion_reading_rows():
    spec, made_up = watched_spec({"assertions": [STATE, SAID]})
    assert made_up and spec["checkpoints"] == [{"name": "milestone 0", "assertions": ["closed"]}]
    own = {"assertions": [STATE], "checkpoints": [{"name": "own", "assertions": ["closed"]}]}
    assert watched_spec(own) == (own, False)
    with pytest.raises(ValueError, match="no assertion reading world rows"):
        watched_spec({"assertions": [SAID]})


def _section(added: float) -> dict:
    timing = {"n": 6, "median_ms": 200.0, "p95_ms": 400.0, "min_ms": 100.0, "max_ms": 400.0}
    return {
        "task": "testbed.complete-note",
        "episodes": 2,
        "synthetic_checkpoints": True,
        "milestones_reached": 2,
        "step": timing,
        "watch": {**timing, "median_ms": 1.0},
        "step_with_watch": {**timing, "median_ms": 200.0 * (1 + added)},
        "added_to_step_median": added,
        "watch_share_of_step_time": 0.01,
    }


@pytest.mark.parametrize("added, passed", [(0.02, True), (CHECKPOINT_GOAL, True), (0.25, False)])
def test_the_goal_is_what_the_watch_adds_to_a_step_median(added, passed):
    verdicts = {c["check"]: c["passed"] for c in checks({"checkpoints": _section(added)})}
    assert verdicts == {"dense checkpoints: added to a step's median time": passed}


def test_the_table_prints_the_three_medians_and_the_share():
    report = {"environment": {"database": "sqlite", "cores": 2}, "sections": {"checkpoints": _section(0.02)}}
    text = table(report)
    assert "checkpoint watch" in text and "step + watch" in text and "made up" in text
    assert "204.0 ms" in text  # the step median with the watch, 2 % above 200 ms
