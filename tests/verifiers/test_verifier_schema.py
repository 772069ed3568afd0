"""docs/schemas/verifier.schema.json: every kind and key titled for the verifier builder; errors as JSON paths."""

import json

import jsonschema
import pytest

from replicas.worlds.schema_errors import SCHEMA_DIR
from verifiers.spec import SCHEMA_FILE, spec_errors

SCHEMA = json.loads((SCHEMA_DIR / SCHEMA_FILE).read_text())
KINDS = ["state", "diff", "page", "answer", "trajectory", "python", "conditional", "for_each"]


def test_the_schema_is_valid_and_covers_every_assertion_kind():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["properties"]["assertions"]["items"]["properties"]["kind"]["enum"] == KINDS
    for kind in KINDS:
        definition = SCHEMA["$defs"][kind]
        assert definition["title"] and definition["description"]
        for key, prop in definition["properties"].items():
            assert "$ref" in prop or (prop.get("title") and prop.get("description")), (kind, key)


@pytest.mark.django_db
def test_errors_name_the_exact_key_of_every_problem():
    spec = {
        "assertions": [
            {"name": "a", "kind": "state", "table": "testbed.note", "expect": {"count": -1}},
            {"name": "b", "kind": "page", "element": {"role": "button", "nmae": "Save"}},
            {"name": "c", "kind": "telepathy"},
        ]
    }
    errors = spec_errors(spec, replica="testbed")
    assert ("assertions[1].element.nmae", "unknown key 'nmae' (allowed: exact, label, name, role, text)") in errors
    assert ("assertions[2].kind", "unknown kind 'telepathy' (kinds: " + ", ".join(KINDS) + ")") in errors
    assert any(path == "assertions[0].expect.count" for path, _ in errors)


@pytest.mark.django_db
def test_a_well_formed_spec_is_then_checked_against_the_replica():
    spec = {"assertions": [{"name": "a", "kind": "state", "table": "testbed.noet", "expect": {"count": 1}}]}
    [(path, message)] = spec_errors(spec, replica="testbed")
    assert path == "assertions[0].table" and message.startswith("unknown model 'testbed.noet'")
    spec["assertions"][0]["table"] = "testbed.note"
    assert spec_errors(spec, replica="testbed") == []
