"""JSON Schema validation errors as (json_path, message) pairs, worded for the people who write the files.

Every published schema under docs/schemas/ is checked through here, so the task, fault
and verifier validators and the authoring UI word the same mistake the same way. A
schema may set `x-message` on a property to say what a value must be in its own words:
one text for every failed keyword about the value, or an object by keyword ({"type": ...,
"additionalProperties": ...}); `{value}` in it stands for the value found. A missing key is
always worded here, and an unknown key too unless an object names `additionalProperties`:
one text says what the value must be, not which keys it may hold.
"""

import functools
import json
from pathlib import Path

import jsonschema
from django.conf import settings
from jsonschema.exceptions import ValidationError, best_match

SCHEMA_DIR = Path(settings.BASE_DIR) / "docs" / "schemas"

TYPE_WORDS = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


@functools.cache
def schema_validator(filename: str) -> jsonschema.Draft202012Validator:
    """The validator of a published schema (docs/schemas/<filename>), formats checked (regex, date-time).

    Built on first use, once per process: checking the schema itself costs a tenth of a second, which a
    process that never validates (a replica server, most commands) should not pay at start.
    """
    schema = json.loads((SCHEMA_DIR / filename).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def json_path(parts) -> str:
    """`assertions[2].where.status` from ["assertions", 2, "where", "status"]."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _shown(value) -> str:
    return repr(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else json.dumps(value)


def _custom_message(schema, keyword: str, value) -> str | None:
    custom = schema.get("x-message") if isinstance(schema, dict) else None
    if isinstance(custom, dict):
        custom = custom.get(keyword)
    elif keyword in ("additionalProperties", "required"):
        return None
    return custom.replace("{value}", _shown(value)) if custom else None


def _needs_one_of(error: ValidationError) -> list[str] | None:
    # anyOf/oneOf of bare {"required": [key]} branches: "give one of these keys"
    branches = error.validator_value
    if all(isinstance(b, dict) and set(b) == {"required"} and len(b["required"]) == 1 for b in branches):
        return [b["required"][0] for b in branches]
    return None


def error_pairs(error: ValidationError, at: tuple = ()) -> list[tuple[str, str]]:
    """(json_path, message) for one jsonschema error, with `at` before every path; the path names the exact
    key or item at fault, so an error about several keys (unknown ones, missing ones) gives one pair per key."""
    parts = [*at, *error.absolute_path]
    value, keyword, schema = error.instance, error.validator, error.schema
    custom = _custom_message(schema, keyword, value)
    if keyword == "additionalProperties" and isinstance(value, dict):
        allowed = sorted(schema.get("properties", {}))
        known = ", ".join(allowed) or "none"
        extra = sorted(k for k in value if k not in allowed)
        return [(json_path([*parts, k]), f"{custom or f'unknown key {k!r}'} (allowed: {known})") for k in extra]
    if keyword == "required":
        missing = [k for k in error.validator_value if isinstance(value, dict) and k not in value]
        return [(json_path([*parts, k]), "required key is missing") for k in missing]
    return [_error_pair(error, at, custom)]


def _error_pair(error: ValidationError, at: tuple, custom: str | None) -> tuple[str, str]:
    parts = [*at, *error.absolute_path]
    value, keyword = error.instance, error.validator
    if keyword in ("anyOf", "oneOf") and (keys := _needs_one_of(error)):
        given = [k for k in keys if isinstance(value, dict) and k in value]
        if keyword == "oneOf" and given:
            return json_path(parts), f"give exactly one of {', '.join(keys)} (given: {', '.join(given)})"
        return json_path(parts), f"needs one of: {', '.join(keys)}"
    if keyword == "dependentRequired":
        dependent = next(
            k for k, needs in error.validator_value.items() if k in value and any(n not in value for n in needs)
        )
        return json_path([*parts, dependent]), custom or error.message
    if custom:
        return json_path(parts), custom
    if keyword == "type":
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        wanted = " or ".join(TYPE_WORDS.get(t, t) for t in types)
        return json_path(parts), f"must be {wanted}, not {_shown(value)}"
    if keyword == "minimum":
        return json_path(parts), f"{_shown(value)} is below the minimum {error.validator_value}"
    if keyword == "maximum":
        return json_path(parts), f"{_shown(value)} is above the maximum {error.validator_value}"
    if keyword == "enum":
        return json_path(parts), f"{_shown(value)} is not one of {', '.join(_shown(v) for v in error.validator_value)}"
    if keyword == "const":
        return json_path(parts), f"must be {_shown(error.validator_value)}, not {_shown(value)}"
    if keyword == "format" and error.validator_value == "regex":
        return json_path(parts), f"{_shown(value)} is not a valid regular expression"
    if keyword == "maxItems":
        return json_path(parts), f"at most {error.validator_value} items, not {len(value)}"
    if keyword == "minItems":
        return json_path(parts), f"at least {error.validator_value} item{'s' if error.validator_value != 1 else ''}"
    if keyword in ("anyOf", "oneOf") and error.context:
        return error_pairs(best_match(error.context), at)[0]
    return json_path(parts), error.message


def schema_errors(validator: jsonschema.Draft202012Validator, instance, *, at: tuple = ()) -> list[tuple[str, str]]:
    """Every problem the schema finds, as (json_path, message), in document order of the paths.

    `at` is where `instance` sits in the document the reader wrote: ("params",) for a task's template.
    """
    pairs = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path]):
        for pair in error_pairs(error, at):
            if pair not in pairs:
                pairs.append(pair)
    return pairs


def first_schema_error(validator: jsonschema.Draft202012Validator, instance) -> tuple[str, str] | None:
    """The most relevant problem (jsonschema's best_match), or None for a valid instance."""
    error = best_match(validator.iter_errors(instance))
    return None if error is None else error_pairs(error)[0]
