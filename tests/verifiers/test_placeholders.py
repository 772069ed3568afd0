"""One placeholder rule for every part of a task: the catalogue and the verifier fill alike."""

import pytest

from catalogue.models import Task
from verifiers.placeholders import MissingParam, fill, fill_text
from verifiers.spec import SpecError, fill_params


def test_instruction_actions_and_verifier_read_literal_braces_the_same_way():
    params = {"n": 8001, "name": "a.b"}
    task = Task(
        spec={
            "instruction": "Reply {{as is}} on #{n}",
            "reference_solution": ['fill("#x", "{{n}} {n}")'],
            "verifier": {"assertions": [{"kind": "answer", "text": "{{as is}} #{n}"}]},
        },
        params=params,
    )
    assert task.instruction == "Reply {as is} on #8001"
    assert task.reference_solution == ['fill("#x", "{n} 8001")']
    assert task.verifier["assertions"][0]["text"] == "{as is} #8001"


def test_values_spliced_under_regex_keys_are_escaped_and_whole_placeholders_keep_their_type():
    spec = {"matches": "^{name}$", "title": "{name}", "count": "{n}", "note": "{name}!"}
    assert fill_params(spec, {"name": "a.b", "n": 3}) == {
        "matches": r"^a\.b$",
        "title": "a.b",
        "count": 3,
        "note": "a.b!",
    }
    assert fill_text("{n}", {"n": 3}) == "3"


def test_a_missing_param_names_its_path_strictly_and_is_left_alone_otherwise():
    with pytest.raises(MissingParam, match=r"steps\[1\]: no param 'who'"):
        fill({"steps": ["ok", "ask {who}"]}, {})
    with pytest.raises(SpecError, match="no param 'who'"):
        fill_params({"text": "{who}"}, {})
    assert fill({"a": "{who} {{x}}"}, {}, strict=False) == {"a": "{who} {{x}}"}
