"""docs/schemas/fault.schema.json: current with the fault library, complete for the fault builder, used by the
validator.
"""

import json

import jsonschema
import pytest
from django.core.management import CommandError, call_command

from replicas.worlds.faults import LIBRARY, fault_spec_errors, validate_faults
from replicas.worlds.faults.schema import FILENAME, fault_schema
from replicas.worlds.schema_errors import SCHEMA_DIR


def test_the_published_schema_is_the_one_the_library_builds():
    published = json.loads((SCHEMA_DIR / FILENAME).read_text())
    jsonschema.Draft202012Validator.check_schema(published)
    assert published == json.loads(json.dumps(fault_schema()))
    call_command("schemas", "--check")


def test_a_stale_published_schema_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr("verifiers.management.commands.schemas.SCHEMA_DIR", tmp_path)
    (tmp_path / FILENAME).write_text("{}\n")
    with pytest.raises(CommandError, match="out of date: fault.schema.json"):
        call_command("schemas", "--check")
    call_command("schemas", "--write")
    assert json.loads((tmp_path / FILENAME).read_text()) == json.loads(json.dumps(fault_schema()))


def test_every_fault_parameter_has_its_range_or_choices_default_title_and_description():
    params = fault_schema()["$defs"]["params"]
    assert set(params) == set(LIBRARY)
    for name, fault in LIBRARY.items():
        assert set(params[name]["properties"]) == set(fault.params)
        for key, prop in params[name]["properties"].items():
            assert prop["title"] and prop["description"], (name, key)
            assert "default" in prop
            if prop.get("type") == "integer":
                assert prop["minimum"] <= prop["default"] <= prop["maximum"], (name, key)
            if "enum" in prop:
                assert prop["default"] in prop["enum"], (name, key)


def test_errors_come_as_json_paths_for_the_ui():
    errors = fault_spec_errors(
        [
            {"name": "api_timeout", "params": {"delay_ms": 9000, "status": 500}},
            {"name": "session_expiry", "trigger": {"step": -1}},
            {"name": "interstitial", "trigger": {"clock": "soon"}},
        ]
    )
    assert ("faults[0].params.delay_ms", "9000 is above the maximum 5000") in errors
    assert ("faults[0].params.status", "500 is not one of 408, 504") in errors
    assert ("faults[1].trigger.step", "-1 is below the minimum 0") in errors
    assert fault_spec_errors([{"name": "interstitial", "trigger": {"clock": "soon"}}]) == [
        ("faults[0].trigger.clock", "'soon' is neither an ISO time nor an offset like \"+10m\"")
    ]
    assert fault_spec_errors([{"name": "server_error", "trigger": {"requests": 2, "route": "^/api/"}}]) == []


def test_normalised_specs_validate_again_unchanged():
    # a world's armed faults are validated again when armed: null triggers and filled defaults must pass
    specs = validate_faults(
        [
            {"name": "legacy_format"},
            {"name": "server_error", "params": {"route": "^/api/"}},
            {"name": "session_expiry", "trigger": {"clock": "+10m"}},
        ]
    )
    assert specs[0]["trigger"] is None and specs[1]["trigger"] == {"requests": 1, "route": "^/api/"}
    assert validate_faults(specs) == specs
