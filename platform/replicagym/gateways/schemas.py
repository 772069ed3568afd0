"""JSON Schemas of the OpenEnv gateway's action, observation and state (GET /schema)."""
from .sessions import MAX_ACTION, MAX_SEED

_TEXT = {"type": "string"}

ACTION_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Action",
    "description": 'One action string of the engine\'s grammar (BrowserGym style), e.g. click("a51"), fill("a12", "text"), '
                   'send_msg_to_user("..."), report_infeasible("...").',
    "type": "object",
    "properties": {"action": {"type": "string", "minLength": 1, "maxLength": MAX_ACTION}},
    "required": ["action"],
    "additionalProperties": False,
}

RESET_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Reset",
    "type": "object",
    "properties": {
        "task": {"type": "string", "minLength": 1, "maxLength": 160, "description": "Task id, <replica>.<slug>, in the token's suites."},
        "seed": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_SEED, "description": "World seed (default: the task's)."},
        "screenshot": {"type": "boolean", "default": False, "description": "Include each observation's screenshot (base64 PNG)."},
    },
    "required": ["task"],
    "additionalProperties": False,
}

OBSERVATION_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Observation",
    "type": "object",
    "properties": {
        "url": _TEXT, "title": _TEXT, "instruction": _TEXT,
        "axtree": {"type": "string", "description": "The accessibility tree as text; elements carry bids that actions name."},
        "screenshot": {"type": ["string", "null"], "contentEncoding": "base64", "contentMediaType": "image/png"},
        "focused_bid": {"type": ["string", "null"]},
        "tabs": {"type": "array", "items": {"type": "object", "properties": {"url": _TEXT, "title": _TEXT}}},
        "active_tab": {"type": "integer", "minimum": 0},
        "chat": {"type": "array", "items": {"type": "object", "properties": {"role": _TEXT, "message": _TEXT}}},
        "step": {"type": "integer", "minimum": 0},
        "elapsed_ms": {"type": "number", "minimum": 0},
        "last_action": _TEXT, "last_action_error": _TEXT,
        "html": {"type": ["string", "null"]},
        "viewport": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
    },
    "required": ["url", "title", "axtree", "step", "last_action_error"],
}

STATE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "State",
    "type": "object",
    "properties": {
        "episode_id": {"type": ["integer", "null"]},
        "task": {"type": ["string", "null"]},
        "step_count": {"type": "integer", "minimum": 0},
        "status": {"type": ["string", "null"], "enum": [None, "running", "succeeded", "failed", "errored", "timed_out", "cancelled"]},
        "done": {"type": "boolean"},
        "verdict": {"type": ["object", "null"], "description": "Which assertions held, once the episode ended (never expected values)."},
        "rewards": {"type": ["object", "null"], "additionalProperties": {"type": "number"}},
    },
    "required": ["episode_id", "task", "step_count", "status", "done"],
}

SCHEMAS = {"action": ACTION_SCHEMA, "observation": OBSERVATION_SCHEMA, "state": STATE_SCHEMA, "reset": RESET_SCHEMA}
