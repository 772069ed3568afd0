"""Validation of fault specs: what a task or a variant arms in a world.

A spec is `{"name": ..., "params": {...}, "trigger": {...}}`; the trigger is one of
`{"requests": N, "route": "<regex>"}`, `{"step": K}`, `{"clock": "<ISO time>" | "+10m"}`.
Errors name the entry and the problem, e.g. `faults[1].params.delay_ms: 9000 is above the maximum 5000`.
"""
import re
from datetime import UTC, datetime, timedelta

from .library import DATA, LIBRARY, ParamError, clean_route

MAX_FAULTS = 20
MAX_REQUESTS = 100_000
MAX_STEP = 10_000
RELATIVE_CLOCK = re.compile(r"\+(\d{1,6})([smhd])")
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_RELATIVE = timedelta(days=366)


class FaultSpecError(ValueError):
    """A fault spec that cannot be armed; the message starts with the path of the problem."""


def validate_faults(specs, *, replica: str | None = None) -> list[dict]:
    """The specs, checked and normalised (defaults filled in); raises FaultSpecError.

    With `replica`, data faults are also checked against what that replica can apply.
    """
    if not isinstance(specs, list):
        raise FaultSpecError(f"faults: must be a list of fault specs, not {type(specs).__name__}")
    if len(specs) > MAX_FAULTS:
        raise FaultSpecError(f"faults: at most {MAX_FAULTS} faults per world, not {len(specs)}")
    return [_validate_one(spec, f"faults[{i}]", replica) for i, spec in enumerate(specs)]


def _validate_one(spec, where: str, replica: str | None) -> dict:
    if not isinstance(spec, dict):
        raise FaultSpecError(f"{where}: must be an object with a name, not {spec!r}")
    unknown = sorted(set(spec) - {"name", "params", "trigger"})
    if unknown:
        raise FaultSpecError(f"{where}.{unknown[0]}: unknown key (a fault has name, params, trigger)")
    name = spec.get("name")
    if name not in LIBRARY:
        known = ", ".join(sorted(LIBRARY))
        raise FaultSpecError(f"{where}.name: unknown fault {name!r} (known: {known})")
    fault = LIBRARY[name]
    given = spec.get("params", {})
    if not isinstance(given, dict):
        raise FaultSpecError(f"{where}.params: must be an object, not {given!r}")
    for key in sorted(given):
        if key not in fault.params:
            allowed = ", ".join(sorted(fault.params)) or "none"
            raise FaultSpecError(f"{where}.params.{key}: unknown parameter of {name} (allowed: {allowed})")
    params = {}
    for key, param in fault.params.items():
        try:
            params[key] = param.clean(given[key]) if key in given else param.default
        except ParamError as exc:
            raise FaultSpecError(f"{where}.params.{key}: {exc}") from None
    trigger = spec.get("trigger")
    if trigger is None:
        trigger = dict(fault.default_trigger) if fault.default_trigger else None
    elif not fault.triggerable:
        raise FaultSpecError(f"{where}.trigger: {name} is applied at world creation and takes no trigger")
    else:
        trigger = _validate_trigger(trigger, f"{where}.trigger")
    if trigger is not None and "requests" in trigger and "route" not in trigger and fault.kind == "request":
        # "the 2nd call times out" means the 2nd call to the faulty route
        trigger["route"] = params["route"]
    if replica is not None and fault.kind == DATA:
        from .data import data_fault_applier

        if data_fault_applier(replica, name) is None:
            raise FaultSpecError(f"{where}.name: replica {replica!r} cannot apply the data fault {name!r}")
    return {"name": name, "params": params, "trigger": trigger}


def _validate_trigger(trigger, where: str) -> dict:
    if not isinstance(trigger, dict):
        raise FaultSpecError(f"{where}: must be an object like {{\"requests\": 3}}, {{\"step\": 5}} or {{\"clock\": \"+10m\"}}")
    kinds = [k for k in ("requests", "step", "clock") if k in trigger]
    if len(kinds) != 1:
        raise FaultSpecError(f"{where}: give exactly one of requests, step, clock (given: {', '.join(sorted(trigger)) or 'none'})")
    kind = kinds[0]
    allowed = {"requests", "route"} if kind == "requests" else {kind}
    extra = sorted(set(trigger) - allowed)
    if extra:
        raise FaultSpecError(f"{where}.{extra[0]}: unknown key for a {kind} trigger")
    value = trigger[kind]
    if kind == "requests":
        _int(value, 1, MAX_REQUESTS, f"{where}.requests")
        out = {"requests": value}
        if "route" in trigger:
            try:
                out["route"] = clean_route(trigger["route"])
            except ParamError as exc:
                raise FaultSpecError(f"{where}.route: {exc}") from None
        return out
    if kind == "step":
        _int(value, 0, MAX_STEP, f"{where}.step")
        return {"step": value}
    parse_clock(value, where=f"{where}.clock")
    return {"clock": value}


def _int(value, low: int, high: int, where: str):
    if not isinstance(value, int) or isinstance(value, bool):
        raise FaultSpecError(f"{where}: must be an integer, not {value!r}")
    if not low <= value <= high:
        raise FaultSpecError(f"{where}: {value} is out of range ({low} to {high})")


def parse_clock(value, *, where: str = "clock", start: datetime | None = None) -> datetime | timedelta:
    """An absolute world-clock time, or (for "+10m") an offset; with `start`, always absolute."""
    if not isinstance(value, str):
        raise FaultSpecError(f"{where}: must be an ISO time or an offset like \"+10m\", not {value!r}")
    match = RELATIVE_CLOCK.fullmatch(value)
    if match:
        offset = timedelta(seconds=int(match[1]) * UNIT_SECONDS[match[2]])
        if offset > MAX_RELATIVE:
            raise FaultSpecError(f"{where}: {value!r} is more than a year ahead")
        return start + offset if start is not None else offset
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise FaultSpecError(f"{where}: {value!r} is neither an ISO time nor an offset like \"+10m\"") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)
