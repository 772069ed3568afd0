"""Python checks of the issue board's task verifiers (registered when a board spec is checked)."""

from verifiers.checks import register_check

_ARGS = {
    "type": "object",
    "properties": {"table": {"type": "string"}, "field": {"type": "string"}, "expected": {"type": "object"}},
    "required": ["table", "field", "expected"],
    "additionalProperties": False,
}


def _validate(args, *, replica):
    from verifiers.fields import tables

    known = tables(replica)
    if args["table"] not in known or args["field"] not in known[args["table"]]:
        raise ValueError(f"unknown field {args['field']!r} of {args['table']!r}")


@register_check("board_rows_hold", args_schema=_ARGS, validate_args=_validate)
def rows_hold(inputs, *, table, field, expected):
    """Each row named in `expected` (public key -> value) holds exactly that value at the end; lists compare as sets,
    so "its old labels plus one" is checked row by row."""
    rows = inputs.final["tables"].get(table, {})
    wrong = []
    for key, value in sorted(expected.items()):
        actual = rows.get(key, {}).get(field) if key in rows else "(missing)"
        same = (
            sorted(actual) == sorted(value) if isinstance(value, list) and isinstance(actual, list) else actual == value
        )
        if not same:
            wrong.append(f"{key}: {actual!r}, expected {value!r}")
    return not wrong, "; ".join(wrong[:5]) or f"{len(expected)} row(s) of {table} hold the expected {field}"


_ORDER_ARGS = {
    "type": "object",
    "properties": {
        "table": {"type": "string"},
        "keys": {"type": "array", "items": {"type": "string"}, "minItems": 2},
    },
    "required": ["table", "keys"],
    "additionalProperties": False,
}


def _validate_order(args, *, replica):
    from verifiers.fields import tables

    if args["table"] not in tables(replica):
        raise ValueError(f"unknown table {args['table']!r}")


@register_check("board_written_in_order", args_schema=_ORDER_ARGS, validate_args=_validate_order)
def written_in_order(inputs, *, table, keys):
    """The rows `keys` of `table` were first written by the trajectory's steps in this order (each by a later
    step than the one before it): "first free the column, then pull the card", which the end state cannot
    tell from the same moves made the other way round, with the column over its limit in between."""
    first = {}
    for pos, step in enumerate(inputs.trajectory):
        for write in step.get("writes") or []:
            if isinstance(write, dict) and write.get("table") == table and str(write.get("id")) in keys:
                first.setdefault(str(write["id"]), pos)
    missing = [k for k in keys if k not in first]
    if missing:
        return False, f"no step wrote {', '.join(missing)}"
    steps = [first[k] for k in keys]
    if any(a >= b for a, b in zip(steps, steps[1:], strict=False)):
        shown = ", ".join(f"{k} at step {first[k]}" for k in keys)
        return False, f"written out of order: {shown}"
    return True, f"{', '.join(keys)} written in this order"
