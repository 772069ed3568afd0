"""The task language's params where literals go: a count or a range bound from the task's params."""

import pytest

from verifiers.engine import verify
from verifiers.spec import SpecError, validate_spec

pytestmark = pytest.mark.django_db


def _notes_spec(count):
    return {"assertions": [{"name": "n", "kind": "state", "table": "testbed.note", "expect": {"count": count}}]}


def _verdict(before, spec, params):
    return verify(spec, before.inputs(params=params)).assertions[0]


def test_a_count_from_a_param_counts_exactly_and_one_off_fails(before):
    held = len(before.initial["tables"]["testbed.note"])
    spec = _notes_spec("{n}")
    validate_spec(spec, replica="testbed")  # the template: a {param} where the count goes
    assert _verdict(before, spec, {"n": held})["passed"]
    for wrong in (held - 1, held + 1):
        result = _verdict(before, spec, {"n": wrong})
        assert not result["passed"]
        assert result["detail"].startswith(f"{held} row(s) of testbed.note match, expected {wrong}")


def test_count_bounds_from_params(before):
    held = len(before.initial["tables"]["testbed.note"])
    spec = _notes_spec({"min": "{lo}", "max": "{hi}"})
    validate_spec(spec, replica="testbed")
    assert _verdict(before, spec, {"lo": held, "hi": held + 2})["passed"]
    assert not _verdict(before, spec, {"lo": held + 1, "hi": held + 2})["passed"]
    assert not _verdict(before, spec, {"lo": 0, "hi": held - 1})["passed"]


@pytest.mark.parametrize("value", ["3", 2.5, True, -1, None, [3]])
def test_a_count_param_that_fills_to_no_count_is_refused_with_its_path(value):
    spec = _notes_spec("{n}")
    with pytest.raises(SpecError, match=r"^assertions\[0\]\.expect\.count: must be a count"):
        validate_spec(spec, replica="testbed", params={"n": value})
    with pytest.raises(SpecError, match=r"^assertions\[0\]\.expect\.count\.max: must be an integer >= 0"):
        validate_spec(_notes_spec({"max": "{n}"}), replica="testbed", params={"n": value})


def test_a_count_that_is_text_but_no_placeholder_is_refused():
    with pytest.raises(SpecError, match=r"expect\.count: must be a count"):
        validate_spec(_notes_spec("{n} rows"), replica="testbed")


def test_min_above_max_is_refused_once_filled():
    spec = _notes_spec({"min": "{lo}", "max": "{hi}"})
    validate_spec(spec, replica="testbed")
    with pytest.raises(SpecError, match="min is greater than max"):
        validate_spec(spec, replica="testbed", params={"lo": 3, "hi": 2})


def test_an_unfilled_count_at_episode_time_fails_its_assertion(before):
    result = _verdict(before, _notes_spec("{n}"), {})
    assert not result["passed"] and "count {n} is not filled" in result["detail"]


def test_a_range_bound_from_a_param_is_typed_once_filled(before):
    spec = {
        "assertions": [
            {
                "name": "n",
                "kind": "state",
                "table": "testbed.note",
                "where": {"estimate_hours": {"gte": "{least}"}},
                "expect": {"count": {"min": 0}},
            },
            {
                "name": "m",
                "kind": "state",
                "table": "testbed.member",
                "where": {"public_id": {"lt": "{below}"}},
                "expect": {"count": {"min": 1}},
            },
        ]
    }
    validate_spec(spec, replica="testbed")
    with pytest.raises(SpecError, match=r"^assertions\[1\]\.where\.public_id\.lt: expected an integer"):
        validate_spec(spec, replica="testbed", params={"least": "1.5", "below": "many"})
    lowest = min(int(k) for k in before.initial["tables"]["testbed.member"])
    filled = {"least": "0", "below": lowest}
    assert not verify(spec, before.inputs(params=filled)).assertions[1]["passed"]
    assert verify(spec, before.inputs(params={**filled, "below": lowest + 1})).assertions[1]["passed"]


def test_a_pack_task_whose_count_param_fills_to_text_is_refused_at_import():
    from replicagym.catalogue.packs import filled_errors

    task = {"verifier": _notes_spec("{stale_count}")}
    assert filled_errors(task, {"stale_count": 2}, "testbed") == []
    assert filled_errors(task, {"stale_count": "two"}, "testbed") == [
        (
            "verifier.assertions[0].expect.count",
            "must be a count: an integer >= 0, a {param} holding one, or {min, max} of those; not 'two'",
        )
    ]
