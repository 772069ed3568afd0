"""JSON Schemas of the OpenEnv gateway's action, observation and state (GET /schema, OpenEnv's SchemaResponse),
and its OpenAPI document (GET /openapi.json), which holds the reset and step bodies too."""

from episodes.engine.observation import FULL_EVERY_MAX, OBSERVATION_MODES

from .sessions import FINISH_ACTION, MAX_ACTION, MAX_EPISODE_ID, MAX_SEED, MAX_TIMEOUT_S

_TEXT = {"type": "string"}

ACTION_SCHEMA = {
    "title": "Action",
    "description": "The action object: `action` is one action string of the engine's grammar (BrowserGym style), e.g. "
    'click("a51"), fill("a12", "text"), send_msg_to_user("..."), report_infeasible("..."). It is the data '
    'of a WebSocket step message ({"type": "step", "data": {"action": "click(\'a51\')"}}) and the `action` '
    'of an HTTP step (POST /step {"action": {"action": "click(\'a51\')"}}, OpenEnv\'s StepRequest). OpenEnv\'s '
    f"BrowserGymAction names it `action_str`, taken too. `{FINISH_ACTION}` ends the episode as it stands (verified, "
    "rewarded), like the WebSocket's finish message and POST /finish.",
    "type": "object",
    "properties": {
        "action": {"type": "string", "minLength": 1, "maxLength": MAX_ACTION},
        "action_str": {"type": "string", "minLength": 1, "maxLength": MAX_ACTION, "description": "BrowserGym's name."},
        "metadata": {"type": "object", "default": {}, "description": "OpenEnv's Action.metadata; accepted, not used."},
    },
    "oneOf": [{"required": ["action"]}, {"required": ["action_str"]}],
    "additionalProperties": False,
}

STEP_SCHEMA = {
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
    "title": "Reset",
    "type": "object",
    "properties": {
        "task": {
            "type": "string",
            "minLength": 1,
            "maxLength": 160,
            "description": "Task id, <replica>.<slug>, in the token's suites (default: one of them, the same for the "
            "same seed).",
        },
        "seed": {
            "type": ["integer", "null"],
            "minimum": 0,
            "maximum": MAX_SEED,
            "description": "World seed (default: drawn per episode); without a variation, the task's fixed "
            "picks on it.",
        },
        "variation": {
            "type": ["integer", "null"],
            "minimum": 0,
            "maximum": MAX_SEED,
            "description": "The episode's variation (default: drawn): the same one gives the same world and "
            "answer key.",
        },
        "episode_id": {
            "type": ["string", "null"],
            "minLength": 1,
            "maxLength": MAX_EPISODE_ID,
            "description": "Your own id for the episode (OpenEnv's); the state's episode_id is then this.",
        },
        "mode": {
            "enum": list(OBSERVATION_MODES),
            "default": "full",
            "description": "The observation's `text` and `axtree_txt`: full, the whole AX tree; text, a pruned one; "
            "diff, what changed since the last step (the whole pruned tree every full_every steps).",
        },
        "screenshots": {
            "type": "boolean",
            "default": False,
            "description": "Capture a screenshot at each observation (base64 PNG); off, none is taken.",
        },
        "full_every": {"type": "integer", "minimum": 1, "maximum": FULL_EVERY_MAX, "default": 5},
    },
    "additionalProperties": False,
}

OBSERVATION_SCHEMA = {
    "title": "Observation",
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "The page's URL, the world shown on http://world.test."},
        "title": _TEXT,
        "instruction": _TEXT,
        "goal": {"type": "string", "description": "BrowserGym's name for the instruction."},
        "text": {"type": "string", "description": "What an agent of the episode's mode is given: header and page."},
        "axtree_txt": {"type": "string", "description": "The page's tree in the mode (pruned but in full mode)."},
        "pruned_html": _TEXT,
        "error": {"type": "string", "description": "The last action's error, empty if none."},
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
        "last_action_error": {"type": "boolean", "description": "Whether the last action failed (BrowserGym's)."},
        "metadata": {
            "type": "object",
            "properties": {
                "episode": {"type": "integer"},
                "mode": {"enum": list(OBSERVATION_MODES)},
                "session_id": {"type": "string", "description": "The HTTP session (HTTP replies only)."},
            },
            "required": ["episode", "mode"],
        },
        "html": {"type": ["string", "null"]},
        "viewport": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
    },
    "required": [
        "url",
        "title",
        "axtree",
        "step",
        "text",
        "goal",
        "axtree_txt",
        "error",
        "last_action_error",
        "metadata",
    ],
}

STATE_SCHEMA = {
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
            "description": "Whether the episode passed, once it ended (never which assertions held, nor "
            "expected values).",
        },
        "rewards": {"type": ["object", "null"], "additionalProperties": {"type": "number"}},
    },
    "required": ["episode_id", "episode", "task", "step_count", "status", "done"],
}

STEP_REPLY_SCHEMA = {
    "title": "StepReply",
    "description": "What a reset, a step and a finish return (OpenEnv's ResetResponse and StepResponse).",
    "type": "object",
    "properties": {
        "observation": OBSERVATION_SCHEMA,
        "reward": {
            "type": ["number", "null"],
            "description": "The episode's reward once it ended (episode_reward); null while it runs.",
        },
        "done": {"type": "boolean", "description": "Whether the episode ended."},
    },
    "required": ["observation", "reward", "done"],
    "additionalProperties": False,
}

SCHEMAS = {"action": ACTION_SCHEMA, "observation": OBSERVATION_SCHEMA, "state": STATE_SCHEMA}


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _reply(schema: dict) -> dict:
    return {"200": _json(schema, "OK"), "4XX": _json({"type": "object"}, '{"detail": "<why>"}')}


def openapi_document() -> dict:
    """The OpenAPI document of the HTTP endpoints; its info.version is OpenEnv's HTTP API version it follows."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "ReplicaGym OpenEnv server", "version": "1.0.0"},
        "paths": {
            "/reset": {
                "post": {"requestBody": _json(RESET_SCHEMA, "ResetRequest"), "responses": _reply(STEP_REPLY_SCHEMA)}
            },
            "/step": {
                "post": {"requestBody": _json(STEP_SCHEMA, "StepRequest"), "responses": _reply(STEP_REPLY_SCHEMA)}
            },
            "/finish": {"post": {"responses": _reply(STEP_REPLY_SCHEMA)}},
            "/state": {"get": {"responses": _reply(STATE_SCHEMA)}},
            "/health": {"get": {"responses": _reply({"type": "object"})}},
            "/metadata": {"get": {"responses": _reply({"type": "object"})}},
            "/schema": {"get": {"responses": _reply({"type": "object"})}},
        },
    }
