"""The verifier spec: its validation (docs/schemas/verifier.schema.json, then the replica's models) and answer keys.

`validate_spec(spec, replica=...)` refuses a bad spec with a SpecError whose message
starts with the JSON path of the problem, e.g.
`assertions[2].where.statuss: unknown field 'statuss' of <replica>.ticket`.
"""

import hashlib
import json
import re
import threading
from collections import OrderedDict

import jsonschema

from replicas.worlds.schema_errors import first_schema_error, schema_errors, schema_validator

from . import checks
from .actions import ACTIONS
from .conditions import ConditionError, check_computed_date, check_condition, has_placeholder
from .fields import FieldInfo, PathError, path_info, tables
from .placeholders import MissingParam, fill
from .values import BadValue, is_computed_date, parse_date, parse_duration, to_decimal

# string values read as regular expressions: a param spliced into one is escaped
REGEX_KEYS = {"matches", "pattern", "candidates", "url", "title", "args", "forbidden_pages", "fault", "event"}


class SpecError(ValueError):
    """A verifier spec that cannot be used; the message starts with the JSON path."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.detail = message
        super().__init__(f"{path or '(spec)'}: {message}")


SCHEMA_FILE = "verifier.schema.json"


def spec_errors(spec, *, replica: str) -> list[tuple[str, str]]:
    """Problems of a verifier spec as (json_path, message) pairs, for the authoring UI.

    Every problem docs/schemas/verifier.schema.json finds; when the shape is right, the
    first problem against the replica's models (unknown table, field, operator, check...).
    """
    errors = schema_errors(schema_validator(SCHEMA_FILE), spec)
    if errors:
        return errors
    try:
        _validate_semantics(spec, replica)
    except SpecError as exc:
        return [(exc.path, exc.detail)]
    return []


def validate_spec(spec: dict, *, replica: str, params: dict | None = None) -> None:
    """Refuse a spec that is malformed or does not fit the replica's models (SpecError).

    Placeholders (`"{ticket}"`) are accepted where values go; with `params` the spec
    is filled first and the filled values are checked too.
    """
    if params is not None:
        spec = fill_params(spec, params)
    key = _cache_key(spec, replica)
    with _VALID_LOCK:
        if key in _VALID:
            _VALID.move_to_end(key)
            return
    _validate(spec, replica)
    with _VALID_LOCK:
        _VALID[key] = True
        if len(_VALID) > _VALID_MAX:
            _VALID.popitem(last=False)


# Specs that passed, by content: every episode of a task verifies the same spec, and the
# schema walk costs far more (about 20 ms) than the assertions themselves.
_VALID: OrderedDict = OrderedDict()
_VALID_MAX = 512
_VALID_LOCK = threading.Lock()


def _cache_key(spec, replica: str):
    text = json.dumps(spec, sort_keys=True, default=str)
    return replica, hashlib.sha256(text.encode()).hexdigest()


def _validate(spec: dict, replica: str) -> None:
    error = first_schema_error(schema_validator(SCHEMA_FILE), spec)
    if error:
        raise SpecError(*error)
    _validate_semantics(spec, replica)


def _validate_semantics(spec: dict, replica: str) -> None:
    """What the schema cannot say: the replica's tables, fields and checks, names, regexes, answer keys."""
    known = tables(replica)
    checks.load_checks(replica)
    if not any(a.get("required", True) for a in spec["assertions"]):
        # a verdict of optional assertions only would pass whatever the agent did
        raise SpecError("assertions", "at least one assertion must be required")
    names = set()
    for path, assertion in assertion_paths(spec["assertions"]):
        if assertion["name"] in names:
            raise SpecError(f"{path}.name", f"duplicate assertion name {assertion['name']!r}")
        names.add(assertion["name"])
        _VALIDATE_KIND[assertion["kind"]](assertion, path, known, replica, spec)
    _validate_checkpoints(spec.get("checkpoints", []), names)
    for i, rule in enumerate(spec.get("allowed_changes", [])):
        path = f"allowed_changes[{i}]"
        fields = _table(known, rule["table"], f"{path}.table")
        for j, name in enumerate(rule.get("fields", [])):
            _field(fields, name, rule["table"], f"{path}.fields[{j}]")
        _check_where(rule.get("where", {}), replica, rule["table"], f"{path}.where")


def _validate_checkpoints(checkpoints: list, assertion_names: set) -> None:
    """Each checkpoint names assertions of the spec, once each, under a name of its own."""
    seen = set()
    for i, checkpoint in enumerate(checkpoints):
        path = f"checkpoints[{i}]"
        if checkpoint["name"] in seen:
            raise SpecError(f"{path}.name", f"duplicate checkpoint name {checkpoint['name']!r}")
        seen.add(checkpoint["name"])
        for j, name in enumerate(checkpoint["assertions"]):
            if name not in assertion_names:
                raise SpecError(
                    f"{path}.assertions[{j}]",
                    f"no assertion named {name!r} (assertions: {', '.join(sorted(assertion_names))})",
                )
        if len(set(checkpoint["assertions"])) != len(checkpoint["assertions"]):
            raise SpecError(f"{path}.assertions", "each assertion once")


def assertion_paths(assertions: list, path: str = "assertions"):
    """(JSON path, assertion) of every assertion, the parts of conditionals (when, then, else) and of
    for_each (assert) after their own."""
    for i, assertion in enumerate(assertions):
        at = f"{path}[{i}]"
        yield at, assertion
        if assertion.get("kind") == "conditional":
            yield f"{at}.when", assertion["when"]
            for branch in ("then", "else"):
                yield from assertion_paths(assertion.get(branch, []), f"{at}.{branch}")
        elif assertion.get("kind") == "for_each":
            yield from assertion_paths(assertion.get("assert", []), f"{at}.assert")


def _table(known, name, path) -> dict[str, FieldInfo]:
    if name not in known:
        raise SpecError(path, f"unknown model {name!r} (models: {', '.join(sorted(known))})")
    return known[name]


def _field(fields, name, table, path) -> FieldInfo:
    if name not in fields:
        raise SpecError(path, f"unknown field {name!r} of {table}")
    return fields[name]


def _check_cond(raw, info, path, **kwargs):
    try:
        check_condition(raw, info, **kwargs)
    except ConditionError as e:
        raise SpecError(f"{path}.{e.path}" if e.path else path, str(e))


def _check_where(where, replica, table, path):
    """Field names or relation paths (`ticket__organization__name`), each with a condition fitting its field."""
    for name, raw in where.items():
        try:
            info = path_info(replica, table, name)
        except PathError as e:
            raise SpecError(f"{path}.{name}", str(e))
        _check_cond(raw, info, f"{path}.{name}")


def _check_count(count, path):
    if not isinstance(count, dict) or "min" not in count or "max" not in count:
        return
    # a bound still a {param} is compared once filled (the schema has checked each is an integer or one)
    if not (has_placeholder(count["min"]) or has_placeholder(count["max"])) and count["min"] > count["max"]:
        raise SpecError(path, "min is greater than max")


def _check_regex(pattern, path):
    if has_placeholder(pattern):
        return
    try:
        re.compile(pattern)
    except re.error as e:
        raise SpecError(path, f"bad regular expression: {e}")


def _validate_state(a, path, known, replica, spec):
    _table(known, a["table"], f"{path}.table")
    _check_where(a.get("where", {}), replica, a["table"], f"{path}.where")
    expect = a["expect"]
    if "count" in expect:
        _check_count(expect["count"], f"{path}.expect.count")
    _check_where(expect.get("fields", {}), replica, a["table"], f"{path}.expect.fields")


def _validate_diff(a, path, known, replica, spec):
    if a.get("only_allowed"):
        if "allowed_changes" not in spec:
            raise SpecError(
                f"{path}.only_allowed", "only_allowed needs the spec's allowed_changes (an empty list allows nothing)"
            )
        return
    fields = _table(known, a["table"], f"{path}.table")
    _check_where(a.get("where", {}), replica, a["table"], f"{path}.where")
    if "count" in a:
        _check_count(a["count"], f"{path}.count")
    changes = a.get("changes", {})
    if changes and a["op"] != "changed":
        raise SpecError(f"{path}.changes", f"changes (from/to) apply to changed rows, not {a['op']} ones; use where")
    for name, fromto in changes.items():
        info = _field(fields, name, a["table"], f"{path}.changes.{name}")
        for side in ("from", "to"):
            if side in fromto:
                _check_cond(fromto[side], info, f"{path}.changes.{name}.{side}")


def _validate_page(a, path, known, replica, spec):
    for key in ("url", "title"):
        if key in a:
            _check_regex(a[key], f"{path}.{key}")
    if ("value" in a or "checked" in a or "state" in a) and "element" not in a:
        raise SpecError(path, "state, value and checked need an element")
    if "value" in a:
        kind = {"text": "text", "number": "decimal", "money": "decimal", "date": "date"}[a.get("as", "text")]
        _check_cond(a["value"], FieldInfo("value", kind, nullable=True), f"{path}.value")


def _validate_answer(a, path, known, replica, spec):
    kind = a["type"]
    needs = {"number": "expected", "money": "expected", "date": "expected", "one_of": "values", "regex": "pattern"}[
        kind
    ]
    if needs not in a:
        raise SpecError(path, f"an answer of type {kind} needs {needs!r}")
    misplaced = {"values", "pattern", "expected"} - {needs}
    for key in sorted(misplaced & set(a)):
        raise SpecError(f"{path}.{key}", f"{key!r} does not apply to an answer of type {kind}")
    if kind in ("number", "money", "date") and not has_placeholder(a["expected"]):
        _check_expected_answer(kind, a["expected"], f"{path}.expected")
    if kind == "regex":
        _check_regex(a["pattern"], f"{path}.pattern")
    _check_answer_strictness(a, path, kind)
    if "tolerance" in a and not has_placeholder(a["tolerance"]):
        if kind not in ("number", "money"):
            raise SpecError(f"{path}.tolerance", f"tolerance does not apply to an answer of type {kind}")
        try:
            if to_decimal(a["tolerance"]) < 0:
                raise BadValue(a["tolerance"])
        except BadValue:
            raise SpecError(f"{path}.tolerance", f"tolerance must be a number >= 0, not {json.dumps(a['tolerance'])}")


def _check_answer_strictness(a, path, kind):
    """Strict (one candidate, the right one) unless the task says otherwise, and why."""
    match = a.get("match")
    if kind in ("number", "money", "date"):
        if match not in (None, "one", "any"):
            raise SpecError(
                f"{path}.match", f'an answer of type {kind} matches "one" (the default) or "any", not {match!r}'
            )
        if "candidates" in a:
            raise SpecError(f"{path}.candidates", f"the candidates of an answer of type {kind} are its {kind} values")
        if match == "any" and not str(a.get("reason", "")).strip():
            raise SpecError(
                f"{path}.reason",
                f'a loose {kind} answer ("match": "any" accepts the right value among others) must state its reason',
            )
        return
    if match not in (None, "full", "search"):
        raise SpecError(
            f"{path}.match", f'an answer of type {kind} matches "full" (the default) or "search", not {match!r}'
        )
    if "candidates" in a:
        if match != "search":
            raise SpecError(
                f"{path}.candidates", 'candidates apply to "match": "search" (a full match is one candidate)'
            )
        _check_regex(a["candidates"], f"{path}.candidates")


def _check_expected_answer(kind, expected, epath):
    try:
        if kind == "number":
            if isinstance(expected, bool) or not isinstance(expected, (int, float, str)):
                raise BadValue(expected)
            to_decimal(expected)
        elif kind == "money":
            amount = expected
            if isinstance(expected, dict):
                if set(expected) - {"amount", "currency"} or "amount" not in expected:
                    raise SpecError(epath, 'expected money as "49.99" or {"amount": "49.99", "currency": "USD"}')
                amount = expected["amount"]
            if not has_placeholder(amount):
                if isinstance(amount, bool) or not isinstance(amount, (int, float, str)):
                    raise BadValue(amount)
                to_decimal(amount)
        elif kind == "date":
            if isinstance(expected, dict) and set(expected) == {"clock"}:
                parse_duration(expected["clock"])
            elif is_computed_date(expected):
                try:
                    check_computed_date(expected, "")
                except ConditionError as e:
                    raise SpecError(epath, str(e))
            elif isinstance(expected, str):
                parse_date(expected)
            else:
                raise BadValue(expected)
    except BadValue:
        raise SpecError(epath, f"{json.dumps(expected)} is not a {kind}")


def _validate_trajectory(a, path, known, replica, spec):
    for key in ("forbidden_actions", "order"):
        for i, event in enumerate(a.get(key, [])):
            for field in ("args", "fault", "event"):
                if field in event:
                    _check_regex(event[field], f"{path}.{key}[{i}].{field}")
    for i, pattern in enumerate(a.get("forbidden_pages", [])):
        _check_regex(pattern, f"{path}.forbidden_pages[{i}]")
    for i, requirement in enumerate(a.get("written_by", [])):
        where = f"{path}.written_by[{i}]"
        if requirement["action"] not in ACTIONS:
            raise SpecError(
                f"{where}.action", f"unknown action {requirement['action']!r} (actions: {', '.join(sorted(ACTIONS))})"
            )
        for j, write in enumerate(requirement["writes"]):
            _table(known, write["table"], f"{where}.writes[{j}].table")
        for field in ("args", "fault"):
            if field in requirement:
                _check_regex(requirement[field], f"{where}.{field}")


def _validate_python(a, path, known, replica, spec):
    check = checks.get_check(a["check"])
    if check is None:
        raise SpecError(
            f"{path}.check", f"unknown python check {a['check']!r} (registered: {', '.join(checks.names()) or 'none'})"
        )
    if check.args_schema is not None:
        error = first_schema_error(jsonschema.Draft202012Validator(check.args_schema), a.get("args", {}))
        if error is not None:
            where, message = error
            raise SpecError(f"{path}.args" + (where if not where or where.startswith("[") else f".{where}"), message)
    if check.validate_args is not None:
        try:
            check.validate_args(a.get("args", {}), replica=replica)
        except ValueError as e:
            raise SpecError(f"{path}.args", str(e))


def _validate_conditional(a, path, known, replica, spec):
    # one level: a branch that branches again is a second task; the parts count as the conditional does
    for where, nested in [("when", a["when"])] + [
        (f"{branch}[{i}]", n) for branch in ("then", "else") for i, n in enumerate(a.get(branch, []))
    ]:
        if nested["kind"] in ("conditional", "for_each"):
            raise SpecError(f"{path}.{where}.kind", f"a conditional's parts cannot be {nested['kind']}")
        if "required" in nested:
            raise SpecError(f"{path}.{where}.required", "a conditional's parts count as the conditional does")


def _validate_for_each(a, path, known, replica, spec):
    # one level, like conditionals: each part is judged once per item and counts as the for_each does
    if isinstance(a["in"], list) and not all(isinstance(v, (str, int)) for v in a["in"]):
        raise SpecError(f"{path}.in", "items must be strings or integers (public keys, values)")
    for i, nested in enumerate(a["assert"]):
        if nested["kind"] == "for_each":
            raise SpecError(f"{path}.assert[{i}].kind", "a for_each's parts cannot be for_each")
        if "required" in nested:
            raise SpecError(f"{path}.assert[{i}].required", "a for_each's parts count as the for_each does")
        if "{" + a["as"] + "}" not in json.dumps({k: v for k, v in nested.items() if k != "name"}):
            raise SpecError(f"{path}.assert[{i}]", f"does not use {{{a['as']}}}: it would judge every item alike")


_VALIDATE_KIND = {
    "for_each": _validate_for_each,
    "conditional": _validate_conditional,
    "state": _validate_state,
    "diff": _validate_diff,
    "page": _validate_page,
    "answer": _validate_answer,
    "trajectory": _validate_trajectory,
    "python": _validate_python,
}


# --- answer keys ----------------------------------------------------------------------------


def fill_params(spec, params: dict, *, strict: bool = True):
    """A copy of `spec` with `{name}` placeholders replaced from `params` (the task's answer key),
    by the one filling rule (verifiers.placeholders); values spliced into regular expressions
    are escaped. A placeholder with no param raises SpecError naming its path.

    With `strict=False` (a spec that may have been filled already: verify() is given
    either) placeholders with no param are left as they are and braces are not
    unescaped, so filling twice changes nothing more.
    """
    try:
        return fill(spec, params, regex_keys=REGEX_KEYS, strict=strict)
    except MissingParam as exc:
        raise SpecError(exc.path, exc.message) from None
