"""The fault spec's JSON Schema, built from the fault library and published as docs/schemas/fault.schema.json.

The library (library.py) is the one definition of every fault; `manage.py schemas --write`
publishes this schema, which the spec validator (spec.py) and the authoring UI's fault
builder both read, and a test keeps the published file equal to what the library says.
"""

import re

from .library import LIBRARY

FILENAME = "fault.schema.json"
MAX_FAULTS = 20
MAX_REQUESTS = 100_000
MAX_STEP = 10_000
RELATIVE_CLOCK = re.compile(r"\+(\d{1,6})([smhd])")

TRIGGER = {
    "title": "Trigger",
    "description": (
        "When the fault fires; none: the fault's default trigger. Exactly one of requests (the Nth matching "
        "request, on `route` or the fault's own route), step (before the agent's Kth step, from 0) or clock "
        "(a world-clock time, ISO or an offset such as +10m from the world's start)."
    ),
    "type": ["object", "null"],
    "x-message": {
        "type": 'must be an object like {"requests": 3}, {"step": 5} or {"clock": "+10m"}, not {value}',
        "dependentRequired": "a route belongs to a requests trigger only",
    },
    "properties": {
        "requests": {
            "title": "After N requests",
            "description": "fires on the Nth matching request",
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_REQUESTS,
        },
        "route": {
            "title": "Counted route",
            "description": "regular expression of the requests counted (requests only)",
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "format": "regex",
        },
        "step": {
            "title": "Before step K",
            "description": "fires before the agent's Kth step (0: the first)",
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_STEP,
        },
        "clock": {
            "title": "At world time",
            "description": "an ISO time, or an offset like +10m, +2h, +1d (at most a year)",
            "type": "string",
            "examples": ["+10m", "2026-05-01T10:00:00+00:00"],
            "x-message": {"type": 'must be an ISO time or an offset like "+10m", not {value}'},
        },
    },
    "additionalProperties": False,
    # only an object needs one kind: null (no trigger, as validation normalises it) passes
    "if": {"type": "object"},
    "then": {"oneOf": [{"required": ["requests"]}, {"required": ["step"]}, {"required": ["clock"]}]},
    "dependentRequired": {"route": ["requests"]},
}


def _fault_branch(fault) -> dict:
    then = {"properties": {"params": {"$ref": f"#/$defs/params/{fault.name}"}}}
    if not fault.triggerable:
        then["properties"]["trigger"] = {
            "type": "null",
            "x-message": f"{fault.name} is applied at world creation and takes no trigger",
        }
    return {"if": {"properties": {"name": {"const": fault.name}}, "required": ["name"]}, "then": then}


def fault_schema() -> dict:
    """The JSON Schema of a list of fault specs (a task's `faults`, a variant's `faults` knob)."""
    names = sorted(LIBRARY)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://replicagym.local/schemas/fault.schema.json",
        "title": "ReplicaGym fault specs",
        "description": (
            "The faults armed in a world: a task's `faults`, a variant's `faults` knob. Generated from "
            "replicas/worlds/faults/library.py by `manage.py schemas --write`. Checked by "
            "replicas.worlds.faults.validate_faults together with what a schema cannot say: a clock "
            "trigger parses and is at most a year ahead, the replica can apply the data fault. Strings "
            "may hold {name} placeholders, filled from the task's params before this check."
        ),
        "type": "array",
        "maxItems": MAX_FAULTS,
        "x-message": {
            "type": "must be a list of fault specs, not {value}",
            "maxItems": f"at most {MAX_FAULTS} faults per world",
        },
        "items": {"$ref": "#/$defs/fault"},
        "$defs": {
            "fault": {
                "title": "Fault",
                "type": "object",
                "x-message": {"type": "must be an object with a name, not {value}"},
                # before `required`: a misspelt key ("nmae") is the error to show first
                "additionalProperties": False,
                "required": ["name"],
                "properties": {
                    "name": {
                        "title": "Fault",
                        "description": "which fault of the library",
                        "enum": names,
                        "x-message": {"enum": f"unknown fault {{value}} (known: {', '.join(names)})"},
                        "x-faults": {
                            n: {
                                "kind": LIBRARY[n].kind,
                                "description": LIBRARY[n].doc,
                                "triggerable": LIBRARY[n].triggerable,
                                "default_trigger": LIBRARY[n].default_trigger,
                            }
                            for n in names
                        },
                    },
                    "params": {
                        "title": "Parameters",
                        "description": "the fault's parameters; defaults fill the rest",
                        "type": "object",
                    },
                    "trigger": {"$ref": "#/$defs/trigger"},
                },
                "allOf": [_fault_branch(LIBRARY[n]) for n in names],
            },
            "params": {
                n: {
                    "title": f"Parameters of {n}",
                    "description": LIBRARY[n].doc,
                    "type": "object",
                    "properties": {key: param.schema(key) for key, param in LIBRARY[n].params.items()},
                    "additionalProperties": False,
                    "x-message": {"additionalProperties": f"unknown parameter of {n}"},
                }
                for n in names
            },
            "trigger": TRIGGER,
        },
    }
