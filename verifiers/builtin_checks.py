"""Python checks every replica can use, for rules the JSON kinds cannot state."""

import re
from decimal import Decimal

from .checks import register_check
from .conditions import ConditionError, check_condition, condition_holds
from .fields import KEY_FIELD, tables
from .values import to_decimal

_TABLE_FIELDS = {
    "type": "object",
    "properties": {
        "table": {"type": "string"},
        "fields": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    },
    "required": ["table", "fields"],
    "additionalProperties": False,
}


def _known(args: dict, replica: str, names) -> dict:
    known = tables(replica)
    if args["table"] not in known:
        raise ValueError(f"unknown model {args['table']!r}")
    fields = known[args["table"]]
    for name in names:
        if name not in fields:
            raise ValueError(f"unknown field {name!r} of {args['table']}")
    return fields


def _validate_unique(args, *, replica):
    _known(args, replica, args["fields"])


@register_check("no_duplicate_additions", args_schema=_TABLE_FIELDS, validate_args=_validate_unique)
def no_duplicate_additions(inputs, *, table, fields):
    """No two rows added to `table` share the values of `fields` (e.g. a refund issued twice for one payment)."""
    added = inputs.diff.get("tables", {}).get(table, {}).get("added", {})
    seen = {}
    for key, row in added.items():
        values = tuple(key if f == KEY_FIELD else repr(row.get(f)) for f in fields)
        if values in seen:
            return False, f"{table} rows {seen[values]} and {key} were both added with the same {', '.join(fields)}"
        seen[values] = key
    return True, f"{len(added)} row(s) added to {table}, no two alike"


_SUM_ARGS = {
    "type": "object",
    "properties": {
        "table": {"type": "string"},
        "field": {"type": "string"},
        "where": {"type": "object"},
        "rows": {"enum": ["added", "final"]},
        "equals": {},
    },
    "required": ["table", "field", "equals"],
    "additionalProperties": False,
}


def _validate_sum(args, *, replica):
    fields = _known(args, replica, [args["field"], *args.get("where", {})])
    if fields[args["field"]].kind not in ("decimal", "int", "float"):
        raise ValueError(f"field {args['field']!r} is not a number")
    for name, raw in args.get("where", {}).items():
        try:
            check_condition(raw, fields[name])
        except ConditionError as e:
            raise ValueError(f"where.{name}: {e}")
    to_decimal(args["equals"])


@register_check("sum_equals", args_schema=_SUM_ARGS, validate_args=_validate_sum)
def sum_equals(inputs, *, table, field, equals, where=None, rows="added"):
    """The amounts in `field` of the rows (added by the episode, or all final rows) matching `where` add up to
    `equals`.
    """
    fields = tables(inputs.replica)[table]
    source = (
        inputs.diff.get("tables", {}).get(table, {}).get("added", {})
        if rows == "added"
        else inputs.final["tables"].get(table, {})
    )
    total, counted = Decimal(0), 0
    for key, row in source.items():
        if all(
            condition_holds(raw, fields[n], key if n == KEY_FIELD else row.get(n), row=row)
            for n, raw in (where or {}).items()
        ):
            if row.get(field) is not None:
                total += to_decimal(row[field])
                counted += 1
    expected = to_decimal(equals)
    return total == expected, f"{counted} row(s) of {table} add up to {total}, expected {expected}"


_TEXT_ARGS = {
    "type": "object",
    "properties": {
        "table": {"type": "string"},
        "field": {"type": "string"},
        "where": {"type": "object"},
        "rows": {"enum": ["added", "final"]},
        "require": {"type": "array", "items": {"type": "string"}},
        "forbid": {"type": "array", "items": {"type": "string"}},
        "min_words": {"type": "integer", "minimum": 1},
    },
    "required": ["table", "field"],
    "anyOf": [{"required": ["require"]}, {"required": ["forbid"]}, {"required": ["min_words"]}],
    "additionalProperties": False,
}


def _validate_text(args, *, replica):
    fields = _known(args, replica, [args["field"], *args.get("where", {})])
    if fields[args["field"]].kind != "text":
        raise ValueError(f"field {args['field']!r} is not text")
    for name, raw in args.get("where", {}).items():
        try:
            check_condition(raw, fields[name])
        except ConditionError as e:
            raise ValueError(f"where.{name}: {e}")
    for key in ("require", "forbid"):
        for i, pattern in enumerate(args.get(key, [])):
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"{key}[{i}]: not a regular expression: {e}")


@register_check("text_facts", args_schema=_TEXT_ARGS, validate_args=_validate_text)
def text_facts(inputs, *, table, field, where=None, rows="added", require=(), forbid=(), min_words=1):
    """Text that carries a decision, checked for its facts rather than by one pattern.

    Of the rows of `table` (added by the episode, or all final rows) matching `where`
    (the channel: a public reply, an internal note, on the right ticket), one must state
    every `require` pattern and have at least `min_words` words, and none may state a
    `forbid` pattern (a refund claimed that was never made says so in any row). Patterns
    are searched case-insensitively.
    """
    fields = tables(inputs.replica)[table]
    source = (
        inputs.diff.get("tables", {}).get(table, {}).get("added", {})
        if rows == "added"
        else inputs.final["tables"].get(table, {})
    )
    texts = [
        row.get(field) or ""
        for key, row in source.items()
        if all(
            condition_holds(raw, fields[n], key if n == KEY_FIELD else row.get(n), row=row)
            for n, raw in (where or {}).items()
        )
    ]
    if not texts:
        return False, f"no {rows} row of {table} matches"
    for i, pattern in enumerate(forbid):
        if any(re.search(pattern, t, re.IGNORECASE) for t in texts):
            return False, f"forbidden claim {i} ({pattern!r}) is stated"
    for text in texts:
        missing = [p for p in require if not re.search(p, text, re.IGNORECASE)]
        if not missing and len(text.split()) >= min_words:
            return True, f"a row of {len(texts)} states every required fact, none forbidden"
    return False, f"no row of {len(texts)} states every required fact in {min_words}+ words"
