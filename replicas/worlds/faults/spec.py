"""Validation of fault specs: what a task or a variant arms in a world.

A spec is `{"name": ..., "params": {...}, "trigger": {...}}`; the trigger is one of
`{"requests": N, "route": "<regex>"}`, `{"step": K}`, `{"clock": "<ISO time>" | "+10m"}`.
The shape is docs/schemas/fault.schema.json (built from the library by schema.py); what
a schema cannot say is checked here: clock times parse, and the replica can apply the
data fault. Errors name the entry and the problem, e.g.
`faults[1].params.delay_ms: 9000 is above the maximum 5000`.
"""

from datetime import UTC, datetime, timedelta

from ..schema_errors import schema_errors, schema_validator
from .data import data_fault_applier
from .library import DATA, LIBRARY
from .schema import FILENAME, RELATIVE_CLOCK

UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_RELATIVE = timedelta(days=366)
ROOT = "faults"


class FaultSpecError(ValueError):
    """A fault spec that cannot be armed; the message starts with the path of the problem."""


def fault_spec_errors(specs, *, replica: str | None = None) -> list[tuple[str, str]]:
    """Every problem of a list of fault specs, as (json_path, message) pairs for the authoring UI.

    Paths start at `faults` (`faults[1].params.delay_ms`). With `replica`, data faults
    are also checked against what that replica can apply.
    """
    errors = [(_rooted(path), message) for path, message in schema_errors(schema_validator(FILENAME), specs)]
    if errors:
        return errors
    for i, spec in enumerate(specs):
        where = f"{ROOT}[{i}]"
        clock = (spec.get("trigger") or {}).get("clock")
        if clock is not None:
            try:
                parse_clock(clock, where=f"{where}.trigger.clock")
            except FaultSpecError as exc:
                errors.append((f"{where}.trigger.clock", str(exc).split(": ", 1)[1]))
        if replica is not None and LIBRARY[spec["name"]].kind == DATA:
            if data_fault_applier(replica, spec["name"]) is None:
                errors.append((f"{where}.name", f"replica {replica!r} cannot apply the data fault {spec['name']!r}"))
    return errors


def validate_faults(specs, *, replica: str | None = None) -> list[dict]:
    """The specs, checked and normalised (defaults filled in); raises FaultSpecError on the first problem."""
    errors = fault_spec_errors(specs, replica=replica)
    if errors:
        path, message = errors[0]
        raise FaultSpecError(f"{path}: {message}")
    return [_normalised(spec) for spec in specs]


def _rooted(path: str) -> str:
    return f"{ROOT}{path}" if not path or path.startswith("[") else f"{ROOT}.{path}"


def _normalised(spec: dict) -> dict:
    fault = LIBRARY[spec["name"]]
    given = spec.get("params", {})
    params = {key: given.get(key, param.default) for key, param in fault.params.items()}
    trigger = spec.get("trigger")
    trigger = dict(trigger) if trigger is not None else (dict(fault.default_trigger) if fault.default_trigger else None)
    if trigger is not None and "requests" in trigger and "route" not in trigger and fault.kind == "request":
        # "the 2nd call times out" means the 2nd call to the faulty route
        trigger["route"] = params["route"]
    return {"name": spec["name"], "params": params, "trigger": trigger}


def parse_clock(value, *, where: str = "clock", start: datetime | None = None) -> datetime | timedelta:
    """An absolute world-clock time, or (for "+10m") an offset; with `start`, always absolute."""
    if not isinstance(value, str):
        raise FaultSpecError(f'{where}: must be an ISO time or an offset like "+10m", not {value!r}')
    match = RELATIVE_CLOCK.fullmatch(value)
    if match:
        offset = timedelta(seconds=int(match[1]) * UNIT_SECONDS[match[2]])
        if offset > MAX_RELATIVE:
            raise FaultSpecError(f"{where}: {value!r} is more than a year ahead")
        return start + offset if start is not None else offset
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise FaultSpecError(f'{where}: {value!r} is neither an ISO time nor an offset like "+10m"') from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)
