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
        same = sorted(actual) == sorted(value) if isinstance(value, list) and isinstance(actual, list) else actual == value
        if not same:
            wrong.append(f"{key}: {actual!r}, expected {value!r}")
    return not wrong, "; ".join(wrong[:5]) or f"{len(expected)} row(s) of {table} hold the expected {field}"
