"""JSON Schemas of the OpenEnv gateway's action, observation and state (GET /schema)."""

from .sessions import MAX_ACTION, MAX_EPISODE_ID, MAX_SEED, MAX_TIMEOUT_S

_TEXT = {"type": "string"}

ACTION_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Action",
    "description": "The action object: `action` is one action string of the engine's grammar (BrowserGym style), e.g. "
    'click("a51"), fill("a12", "text"), send_msg_to_user("..."), report_infeasible("..."). It is the data '
    'of a WebSocket step message ({"type": "step", "data": {"action": "click(\'a51\')"}}) and the `action` '
    'of an HTTP step (POST /step {"action": {"action": "click(\'a51\')"}}, OpenEnv\'s StepRequest).',
    "type": "object",
    "properties": {
        "action": {"type": "string", "minLength": 1, "maxLength": MAX_ACTION},
        "metadata": {"type": "object", "default": {}, "description": "OpenEnv's Action.metadata; accepted, not used."},
    },
    "required": ["action"],
    "additionalProperties": False,
}

STEP_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "StepRequest",
    "description": "The body of POST /step (OpenEnv's StepRequest). timeout_s and request_id are checked, not used: "
    "the task's limits bound a step.",
    "type": "object",
    "properties": {
        "action": ACTION_SCHEMA,
        "timeout_s": {"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT_S},
        "request_id": {"type": ["string", "null"], "maxLength": MAX_EPISODE_ID},
    },
    "required": ["action"],
    "additionalProperties": False,
}

RESET_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Reset",
    "type": "object",
    "properties": {
        "task": {
            "type": "string",
            "minLength": 1,
            "maxLength": 160,
            "description": "Task id, <replica>.<slug>, in the token's suites.",
        },
        "seed": {
            "type": ["integer", "null"],
            "minimum": 0,
            "maximum": MAX_SEED,
            "description": "World seed (default: drawn per episode); without a variation, the task's fixed picks on it.",
        },
        "variation": {
            "type": ["integer", "null"],
            "minimum": 0,
            "maximum": MAX_SEED,
            "description": "The episode's variation (default: drawn): the same one gives the same world and answer key.",
        },
        "episode_id": {
            "type": ["string", "null"],
            "minLength": 1,
            "maxLength": MAX_EPISODE_ID,
            "description": "Your own id for the episode (OpenEnv's); the state's episode_id is then this.",
        },
        "screenshot": {
            "type": "boolean",
            "default": False,
            "description": "Include each observation's screenshot (base64 PNG).",
        },
    },
    "required": ["task"],
    "additionalProperties": False,
}

OBSERVATION_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Observation",
    "type": "object",
    "properties": {
        "url": _TEXT,
        "title": _TEXT,
        "instruction": _TEXT,
        "axtree": {
            "type": "string",
            "description": "The accessibility tree as text; elements carry bids that actions name.",
        },
        "screenshot": {"type": ["string", "null"], "contentEncoding": "base64", "contentMediaType": "image/png"},
        "focused_bid": {"type": ["string", "null"]},
        "tabs": {"type": "array", "items": {"type": "object", "properties": {"url": _TEXT, "title": _TEXT}}},
        "active_tab": {"type": "integer", "minimum": 0},
        "chat": {"type": "array", "items": {"type": "object", "properties": {"role": _TEXT, "message": _TEXT}}},
        "step": {"type": "integer", "minimum": 0},
        "elapsed_ms": {"type": "number", "minimum": 0},
        "last_action": _TEXT,
        "last_action_error": _TEXT,
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
        "episode_id": {
            "type": ["string", "null"],
            "description": "OpenEnv's episode id: the reset's episode_id if given, else the platform's id as text.",
        },
        "episode": {
            "type": ["integer", "null"],
            "description": "The platform's episode id (REST API /api/episodes/<id>).",
        },
        "task": {"type": ["string", "null"]},
        "step_count": {"type": "integer", "minimum": 0},
        "status": {
            "type": ["string", "null"],
            "enum": [None, "running", "succeeded", "failed", "errored", "timed_out", "cancelled"],
        },
        "done": {"type": "boolean"},
        "verdict": {
            "type": ["object", "null"],
            "properties": {"passed": {"type": "boolean"}},
            "additionalProperties": False,
            "description": "Whether the episode passed, once it ended (never which assertions held, nor expected values).",
        },
        "rewards": {"type": ["object", "null"], "additionalProperties": {"type": "number"}},
    },
    "required": ["episode_id", "episode", "task", "step_count", "status", "done"],
}

SCHEMAS = {
    "action": ACTION_SCHEMA,
    "observation": OBSERVATION_SCHEMA,
    "state": STATE_SCHEMA,
    "reset": RESET_SCHEMA,
    "step": STEP_SCHEMA,
}
