"""Conditions on one field of a row: their grammar, their validation against the field's type, their test.

A condition is either a value (meaning `eq`) or an object of operators and options:
`"solved"`, `{"in": ["solved", "closed"]}`, `{"gte": "10.00", "lt": {"amount": "50", "currency": "USD"}}`,
`{"eq": "Refund issued", "case_insensitive": true}`. Typed values are objects too:
`{"amount": "49.99", "currency": "USD"}` (money), `{"clock": "+3d"}` (world clock relative),
`{"set": ["vip", "billing"]}` (order-free list), `{"date": "start_of_quarter"}` (a date computed on the
world clock: verifiers.values.calendar_date).
"""

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from .placeholders import PLACEHOLDER
from .values import (
    BadValue,
    check_calendar,
    computed_date,
    is_computed_date,
    is_date_only,
    normalize_text,
    parse_date,
    parse_datetime,
    parse_duration,
    to_decimal,
)

OPS = ("eq", "ne", "in", "not_in", "lt", "lte", "gt", "gte", "contains", "matches", "is_null")
OPTIONS = ("case_insensitive", "normalize_whitespace", "tolerance")

ORDERED = {"int", "float", "decimal", "datetime", "date"}
OPS_BY_KIND = {
    "int": {"eq", "ne", "in", "not_in", "lt", "lte", "gt", "gte", "is_null"},
    "float": {"eq", "ne", "in", "not_in", "lt", "lte", "gt", "gte", "is_null"},
    "decimal": {"eq", "ne", "in", "not_in", "lt", "lte", "gt", "gte", "is_null"},
    "datetime": {"eq", "ne", "in", "not_in", "lt", "lte", "gt", "gte", "is_null"},
    "date": {"eq", "ne", "in", "not_in", "lt", "lte", "gt", "gte", "is_null"},
    "bool": {"eq", "ne", "is_null"},
    "text": {"eq", "ne", "in", "not_in", "matches", "is_null"},
    "ref": {"eq", "ne", "in", "not_in", "matches", "is_null"},
    "json": {"eq", "ne", "contains", "is_null"},
}
OPTIONS_BY_KIND = {
    "text": {"case_insensitive", "normalize_whitespace"},
    "int": {"tolerance"},
    "float": {"tolerance"},
    "decimal": {"tolerance"},
    "datetime": {"tolerance"},
    "date": set(),
}


class ConditionError(ValueError):
    """A condition that does not fit its field; `path` is relative to the condition."""

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path = path


@dataclass
class Condition:
    ops: list = field(default_factory=list)  # [(op, expected)]
    options: dict = field(default_factory=dict)


def has_placeholder(value) -> bool:
    return isinstance(value, str) and PLACEHOLDER.search(value) is not None


def is_condition_object(raw) -> bool:
    return isinstance(raw, dict) and bool(raw) and set(raw) <= set(OPS) | set(OPTIONS) and bool(set(raw) & set(OPS))


def parse_condition(raw) -> Condition:
    if is_condition_object(raw):
        return Condition(
            ops=[(k, v) for k, v in raw.items() if k in OPS],
            options={k: v for k, v in raw.items() if k in OPTIONS},
        )
    return Condition(ops=[("eq", raw)])


# --- validation ---------------------------------------------------------------------------


def check_condition(raw, info, *, value_kind: str | None = None) -> None:
    """Raise ConditionError when `raw` cannot apply to a field described by `info`."""
    kind = value_kind or info.kind
    if isinstance(raw, dict) and not is_condition_object(raw) and not _is_literal(raw):
        unknown = sorted(set(raw) - set(OPS) - set(OPTIONS))
        if unknown:
            raise ConditionError(
                unknown[0], f"bad operator {unknown[0]!r} (operators: {', '.join(OPS)}; options: {', '.join(OPTIONS)})"
            )
        raise ConditionError("", "a condition needs at least one operator")
    cond = parse_condition(raw)
    for name, value in cond.options.items():
        if name not in OPTIONS_BY_KIND.get(kind, set()):
            raise ConditionError(name, f"option {name!r} does not apply to a {kind} field")
        if name == "tolerance":
            _check_tolerance(value, kind, name)
        elif not isinstance(value, bool):
            raise ConditionError(name, f"{name} must be true or false")
    for op, value in cond.ops:
        path = op if is_condition_object(raw) else ""
        if op not in OPS_BY_KIND[kind]:
            raise ConditionError(path, f"operator {op!r} does not apply to a {kind} field {info.name!r}")
        _check_operand(op, value, info, kind, path)


def _check_tolerance(value, kind, path):
    if has_placeholder(value):
        return
    if kind in ("datetime",):
        try:
            parse_duration(value)
        except BadValue as e:
            raise ConditionError(path, str(e))
        return
    try:
        if to_decimal(value) < 0:
            raise ConditionError(path, "tolerance must not be negative")
    except BadValue as e:
        raise ConditionError(path, str(e))


def _check_operand(op, value, info, kind, path):
    if op == "is_null":
        if not isinstance(value, bool):
            raise ConditionError(path, "is_null takes true or false")
        return
    if op == "matches":
        if not isinstance(value, str):
            raise ConditionError(path, "matches takes a regular expression string")
        if not has_placeholder(value):
            try:
                re.compile(value)
            except re.error as e:
                raise ConditionError(path, f"bad regular expression: {e}")
        return
    if op in ("in", "not_in"):
        if has_placeholder(value):
            return
        if not isinstance(value, list):
            raise ConditionError(path, f"{op} takes a list")
        for i, item in enumerate(value):
            _check_value(item, info, kind, f"{path}[{i}]" if path else f"[{i}]", op)
        return
    if op == "contains":
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, (dict, list)) and not has_placeholder(item):
                raise ConditionError(path, "contains takes a value (or a list of values) that the list must hold")
        return
    _check_value(value, info, kind, path, op)


def _is_literal(raw) -> bool:
    if not isinstance(raw, dict):
        return False
    keys = set(raw)
    return keys in ({"amount"}, {"amount", "currency"}, {"clock"}, {"set"}) or is_computed_date(raw)


def check_computed_date(value: dict, path: str) -> None:
    """A computed date's rule and arguments (ConditionError); arguments still {params} are checked once filled."""
    args = {k: v for k, v in value.items() if k != "date"}
    if has_placeholder(value["date"]) or any(has_placeholder(v) for v in args.values()):
        return
    try:
        check_calendar(value["date"], args)
    except BadValue as e:
        raise ConditionError(path, str(e))


def _check_value(value, info, kind, path, op):
    if has_placeholder(value) or value is None and op in ("eq", "ne"):
        return
    literal = _is_literal(value)
    if kind in ("int", "float"):
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind == "float" else int):
            raise ConditionError(
                path,
                f"expected {'a number' if kind == 'float' else 'an integer'} for {kind} field {info.name!r}, "
                f"got {json.dumps(value)}",
            )
    elif kind == "decimal":
        if literal and "amount" in value:
            if "currency" in value and info.currency_field is None:
                raise ConditionError(path, f"field {info.name!r} has no currency field alongside it")
            if (
                "currency" in value
                and not has_placeholder(value["currency"])
                and not (isinstance(value["currency"], str) and re.fullmatch(r"[A-Za-z]{3}", value["currency"]))
            ):
                raise ConditionError(path, f"currency must be a three-letter code, got {json.dumps(value['currency'])}")
            value = value["amount"]
            if has_placeholder(value):
                return
        try:
            to_decimal(value)
        except BadValue:
            raise ConditionError(path, f"expected an amount for decimal field {info.name!r}, got {json.dumps(value)}")
    elif kind in ("datetime", "date"):
        if literal and "clock" in value:
            try:
                parse_duration(value["clock"])
            except BadValue as e:
                raise ConditionError(path, str(e))
            return
        if is_computed_date(value):
            check_computed_date(value, path)
            return
        try:
            if not isinstance(value, str):
                raise BadValue(value)
            parse_datetime(value) if kind == "datetime" else parse_date(value)
        except BadValue:
            raise ConditionError(
                path,
                f'expected a {kind} (ISO 8601 or {{"clock": "+3d"}}) for field {info.name!r}, got {json.dumps(value)}',
            )
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ConditionError(path, f"expected true or false for field {info.name!r}, got {json.dumps(value)}")
    elif kind == "text":
        if not isinstance(value, str):
            raise ConditionError(path, f"expected a string for text field {info.name!r}, got {json.dumps(value)}")
        if info.choices and value not in info.choices:
            raise ConditionError(path, f"{value!r} is not a choice of field {info.name!r} ({', '.join(info.choices)})")
    elif kind == "ref":
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ConditionError(
                path, f"expected the public key of the row that {info.name!r} refers to, got {json.dumps(value)}"
            )
    elif kind == "json":
        if literal and "set" in value and not isinstance(value["set"], list):
            raise ConditionError(path, "set takes a list")


# --- evaluation ---------------------------------------------------------------------------


class _Incomparable(Exception):
    pass


def condition_holds(
    raw, info, actual, *, row=None, clock: datetime | None = None, value_kind: str | None = None
) -> bool:
    """Whether the field value `actual` (as in a snapshot) satisfies condition `raw`."""
    kind = value_kind or info.kind
    cond = parse_condition(raw)
    for op, expected in cond.ops:
        try:
            if not _op_holds(op, expected, actual, info, kind, cond.options, row or {}, clock):
                return False
        except (_Incomparable, BadValue):
            return False
    return True


def _op_holds(op, expected, actual, info, kind, options, row, clock) -> bool:
    if op == "is_null":
        return (actual is None) is bool(expected)
    if op == "matches":
        if actual is None:
            return False
        flags = re.IGNORECASE if options.get("case_insensitive") else 0
        return re.search(expected, str(actual), flags) is not None
    if op in ("in", "not_in"):
        hit = any(_equal(item, actual, info, kind, options, row, clock) for item in expected)
        return hit if op == "in" else not hit
    if op == "contains":
        if not isinstance(actual, list):
            return False
        wanted = expected if isinstance(expected, list) else [expected]
        return all(item in actual for item in wanted)
    if op == "eq":
        return _equal(expected, actual, info, kind, options, row, clock)
    if op == "ne":
        return not _equal(expected, actual, info, kind, options, row, clock)
    # ordered comparisons
    if actual is None:
        return False
    a, e = _ordered_pair(expected, actual, info, kind, row, clock)
    return {"lt": a < e, "lte": a <= e, "gt": a > e, "gte": a >= e}[op]


def _equal(expected, actual, info, kind, options, row, clock) -> bool:
    if expected is None or actual is None:
        return expected is None and actual is None
    if kind in ORDERED:
        a, e = _ordered_pair(expected, actual, info, kind, row, clock)
        tolerance = options.get("tolerance")
        if tolerance is None:
            return a == e
        if kind == "datetime":
            return abs(a - e) <= parse_duration(tolerance)
        return abs(a - e) <= to_decimal(tolerance)
    if kind == "text":
        flags = {k: bool(options.get(k)) for k in ("case_insensitive", "normalize_whitespace")}
        return normalize_text(str(actual), **flags) == normalize_text(str(expected), **flags)
    if kind == "ref":
        return str(actual) == str(expected)
    if kind == "json":
        if isinstance(expected, dict) and set(expected) == {"set"}:
            if not isinstance(actual, list):
                return False
            return {_canon(v) for v in expected["set"]} == {_canon(v) for v in actual}
        return actual == expected
    return actual == expected


def _canon(value) -> str:
    return json.dumps(value, sort_keys=True)


def _ordered_pair(expected, actual, info, kind, row, clock):
    """(actual, expected) as comparable values of the field's type."""
    if kind in ("int", "float", "decimal"):
        if isinstance(expected, dict) and "amount" in expected:
            currency = expected.get("currency")
            if currency is not None:
                held = row.get(info.currency_field) if info.currency_field else None
                if held is None or str(held).upper() != str(currency).upper():
                    raise _Incomparable
            expected = expected["amount"]
        return to_decimal(actual), to_decimal(expected)
    if kind == "datetime":
        a = actual if isinstance(actual, datetime) else parse_datetime(actual)
        if isinstance(expected, dict) and "clock" in expected:
            return a, _require_clock(clock) + parse_duration(expected["clock"])
        if is_computed_date(expected):
            # a computed date compares the calendar day (UTC), as an ISO date does
            return a.astimezone(UTC).date(), computed_date(expected, _require_clock(clock))
        if is_date_only(expected):
            # a date given for a date-time field compares the calendar day (UTC)
            return a.date(), date.fromisoformat(expected.strip())
        return a, parse_datetime(expected)
    if kind == "date":
        a = actual if isinstance(actual, date) else parse_date(actual)
        if isinstance(expected, dict) and "clock" in expected:
            return a, (_require_clock(clock) + parse_duration(expected["clock"])).date()
        if is_computed_date(expected):
            return a, computed_date(expected, _require_clock(clock))
        return a, parse_date(expected)
    raise _Incomparable


def _require_clock(clock):
    if clock is None:
        raise _Incomparable
    return clock
