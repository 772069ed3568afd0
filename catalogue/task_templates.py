"""Declarative task templates: a task's params as queries over its world, so params need no Python.

A template is a list of named params (docs/schemas/template.schema.json), evaluated in order on
the world's snapshot, with tables, fields and conditions exactly as verifiers name them: pick a
record (`where`, `order_by`, the first or a seeded choice), read a field or a related field
(`ticket.requester__email`), list every matching record (a bulk task's tickets), count/sum/min/max rows, do date
arithmetic on the world clock, call
the policies and pickers a replica exposes (ReplicaConfig.policies / .pickers). A picker's object
gives one param per key, named `<name>_<key>` or `<prefix><key>` (`"prefix": ""` keeps its keys); an
`internal` param serves later params only and is left out of the answer key. One template
gives a task on any seed whose world has candidates, each seed with its own answer key.

An episode's variation (episodes.variation) gives each seeded pick and each picker that takes an
`rng` keyword its own randomness, so the answer key differs between episodes even on one world;
without one, picks are the task's fixed ones.
"""

import importlib
import inspect
import json
import random
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import cache

from replicas.worlds.registry import get_replica
from replicas.worlds.schema_errors import schema_errors, schema_validator
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import canonical_json, snapshot
from verifiers.conditions import ConditionError, check_condition, condition_holds
from verifiers.fields import KEY_FIELD, FieldInfo, PathError, path_info, relations, resolve_path, table_name, tables
from verifiers.placeholders import PLACEHOLDER, MissingParam, fill, fill_text
from verifiers.spec import REGEX_KEYS
from verifiers.values import BadValue, calendar_date, check_calendar, parse_datetime, parse_duration

SCHEMA_FILE = "template.schema.json"
KINDS = ("pick", "field", "aggregate", "date", "policy", "picker", "text", "value", "list")


class TemplateError(ValueError):
    """A template that cannot be used, or cannot be filled on a world; `path` is its JSON path."""

    def __init__(self, path: str, message: str):
        self.path, self.message = path, message
        super().__init__(f"{path}: {message}")


class NoCandidate(TemplateError):
    """The world of this seed holds no record (or no value) the template can be about."""


def is_template(params) -> bool:
    """Task files hold either a template (a list) or a 'module:function' reference (the older form)."""
    return isinstance(params, list)


def kind_of(param: dict) -> str:
    return next(k for k in KINDS if k in param)


# --- what the replica's tables hold -----------------------------------------------------------


@cache
def _public_keys(replica: str) -> dict[str, tuple[str, ...]]:
    return {table_name(m): tuple(m.public_key) for m in get_replica(replica).world_models}


def field_info(replica: str, table: str, path: str, where: str) -> FieldInfo:
    """The FieldInfo at the end of `path` (related fields joined by __); TemplateError at `where` if none."""
    try:
        return path_info(replica, table, path)
    except PathError as exc:
        raise TemplateError(where, str(exc)) from None


def _resolve(snap: dict, replica: str, table: str, key: str, row: dict, path: str):
    """The value at `path` from one snapshot row, following references by public key (None on a null reference)."""
    return resolve_path(snap, replica, table, key, row, path)[0]


def _field_value(snap: dict, replica: str, table: str, key: str, row: dict, path: str):
    """A field param: the value at `path`; a reference gives the record it names as a pick would (8003, not "8003")."""
    value = _resolve(snap, replica, table, key, row, path)
    if value is None or path == KEY_FIELD:
        return value
    *hops, last = path.split("__")
    owner = table
    for name in hops:
        owner = relations(replica)[(owner, name)]
    target = relations(replica).get((owner, last))
    if target is None:
        return value
    return _record_value(replica, target, str(value), snap["tables"].get(target, {}).get(str(value), {}))


def _record_value(replica: str, table: str, key: str, row: dict):
    """What a picked record's param holds: its public key field as typed (8003, "ORD-4419"), or the joined key."""
    fields = _public_keys(replica).get(table, ())
    return row.get(fields[0]) if len(fields) == 1 and row.get(fields[0]) is not None else key


# --- static validation -----------------------------------------------------------------------


def _placeholders(value) -> list[str]:
    if isinstance(value, str):
        return [m.group(1) for m in PLACEHOLDER.finditer(value)]
    if isinstance(value, list):
        return [n for v in value for n in _placeholders(v)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _placeholders(v)]
    return []


def _check_where(replica, table, where, path, errors):
    if table not in tables(replica):
        known = ", ".join(sorted(tables(replica)))
        errors.append((path.rsplit(".", 1)[0] + ".table", f"unknown table {table!r} (tables of {replica}: {known})"))
        return
    for name, raw in (where or {}).items():
        try:
            info = field_info(replica, table, name, f"{path}.{name}")
            if not _placeholders(raw):  # a condition on an earlier param is checked once filled
                check_condition(raw, info)
        except TemplateError as exc:
            errors.append((exc.path, exc.message))
        except ConditionError as exc:
            errors.append((f"{path}.{name}" + (f".{exc.path}" if exc.path else ""), str(exc)))


def template_errors(steps, *, replica: str) -> list[tuple[str, str]]:
    """Every problem of a template without running it, as (JSON path, message); empty when it is usable."""
    errors = schema_errors(schema_validator(SCHEMA_FILE), steps, at=("params",))
    if errors:
        return errors
    config = get_replica(replica)
    defined, records, prefixes = set(), {}, set()
    for i, step in enumerate(steps):
        path, name = f"params[{i}]", step["name"]
        if name in defined or name in records:
            errors.append((f"{path}.name", f"param {name!r} is defined twice"))
        for ref in _placeholders({k: v for k, v in step.items() if k != "description"}):
            if ref not in defined and not any(ref.startswith(p) for p in prefixes):
                errors.append((path, f"placeholder {{{ref}}} names no param defined before this one"))
        kind = kind_of(step)
        body = step[kind]
        if kind in ("pick", "list"):  # records of a table: its where and order_by name its fields
            _check_where(replica, body["table"], body.get("where"), f"{path}.{kind}.where", errors)
            for j, field in enumerate(body.get("order_by", [])):
                try:
                    field_info(replica, body["table"], field.lstrip("-"), f"{path}.{kind}.order_by[{j}]")
                except TemplateError as exc:
                    errors.append((exc.path, exc.message))
        if kind == "pick":
            records[name] = body["table"]
        elif kind == "list" and "field" in body:
            try:
                field_info(replica, body["table"], body["field"], f"{path}.list.field")
            except TemplateError as exc:
                errors.append((exc.path, exc.message))
        elif kind == "field":
            record, field = body.split(".", 1)
            if record not in records:
                errors.append((f"{path}.field", f"{record!r} is not a record picked before this param"))
            elif field != KEY_FIELD:
                try:
                    field_info(replica, records[record], field, f"{path}.field")
                except TemplateError as exc:
                    errors.append((exc.path, exc.message))
        elif kind == "aggregate":
            _check_where(replica, body["table"], body.get("where"), f"{path}.aggregate.where", errors)
            if body["op"] != "count" and "field" not in body:
                errors.append((f"{path}.aggregate.field", f"{body['op']} needs the field to take it over"))
            elif "field" in body:
                try:
                    info = field_info(replica, body["table"], body["field"], f"{path}.aggregate.field")
                    if body["op"] == "sum" and info.kind not in ("int", "float", "decimal"):
                        errors.append((f"{path}.aggregate.field", f"cannot sum {info.kind} field {info.name!r}"))
                except TemplateError as exc:
                    errors.append((exc.path, exc.message))
        elif kind == "date":
            source = body.get("from", "clock")
            if source != "clock" and not PLACEHOLDER.fullmatch(source):
                errors.append((f"{path}.date.from", "must be clock or one {placeholder} holding a date or time"))
            if "on" in body:
                try:
                    check_calendar(body["on"], _calendar_args(body))
                except BadValue as exc:
                    errors.append((f"{path}.date", str(exc)))
            elif set(body) & CALENDAR_ARGS:
                errors.append((f"{path}.date", f"{', '.join(sorted(set(body) & CALENDAR_ARGS))} go with a rule in on"))
        elif kind in ("policy", "picker"):
            registry = config.policies if kind == "policy" else config.pickers
            if body not in registry:
                known = ", ".join(sorted(registry)) or "none"
                errors.append((f"{path}.{kind}", f"{replica} has no {kind} {body!r} (known: {known})"))
            if kind == "picker":
                prefixes.add(step.get("prefix", f"{name}_"))
        if "prefix" in step and kind != "picker":
            errors.append((f"{path}.prefix", "only a picker's keys take a prefix"))
        defined.add(name)
    return errors


# --- evaluation on a world ---------------------------------------------------------------------


def function_at(ref: str):
    """The function a "module:function" reference names (a params function, a picker, a policy)."""
    module_name, _, func_name = ref.partition(":")
    func = getattr(importlib.import_module(module_name), func_name, None)
    if not callable(func):
        raise LookupError(f"{module_name} has no function {func_name!r}")
    return func


def function_summary(ref: str) -> str:
    """The first line of the referenced function's docstring: what a picker or a policy is for."""
    try:
        doc = function_at(ref).__doc__ or ""
    except (ImportError, LookupError):
        return ""
    return doc.strip().split("\n\n")[0].replace("\n", " ").strip()


def _fill(value, params, path):
    try:
        return fill(value, params, regex_keys=REGEX_KEYS)
    except MissingParam as exc:
        raise TemplateError(path, str(exc)) from None


def _matching(snap, replica, table, where, clock, path):
    conditions = [
        (name, raw, field_info(replica, table, name, f"{path}.{name}")) for name, raw in (where or {}).items()
    ]
    rows = []
    for key, row in snap["tables"].get(table, {}).items():
        try:
            if all(
                condition_holds(raw, info, _resolve(snap, replica, table, key, row, name), row=row, clock=clock)
                for name, raw, info in conditions
            ):
                rows.append((key, row))
        except ConditionError as exc:
            raise TemplateError(f"{path}.{exc.path}", str(exc)) from None
    return rows


def _sort_value(value, info: FieldInfo):
    if value is None:
        return (1, "")
    if info.kind == "decimal":
        return (0, Decimal(str(value)))
    if info.kind in ("int", "float") or isinstance(value, (int, float)):
        return (0, value)
    return (0, str(value))


def _ordered(snap, replica, table, rows, order_by, path):
    if not order_by:
        keys = _public_keys(replica).get(table, ())
        order_by = list(keys) or [KEY_FIELD]
    for j, field in reversed(list(enumerate(order_by))):
        name = field.lstrip("-")
        info = FieldInfo(KEY_FIELD, "text") if name == KEY_FIELD else field_info(replica, table, name, f"{path}[{j}]")
        rows.sort(
            key=lambda kr: _sort_value(_resolve(snap, replica, table, kr[0], kr[1], name), info),
            reverse=field.startswith("-"),
        )
    return rows


def _aggregate(body, rows, snap, replica, path):
    if body["op"] == "count":
        return len(rows)
    info = field_info(replica, body["table"], body["field"], f"{path}.field")
    values = [
        v for key, row in rows if (v := _resolve(snap, replica, body["table"], key, row, body["field"])) is not None
    ]
    if body["op"] == "sum":
        if info.kind == "decimal":
            return str(sum((Decimal(str(v)) for v in values), Decimal(0)))
        return sum(values)
    if not values:
        raise NoCandidate(path, f"no {body['table']} row with a {body['field']} to take the {body['op']} of")
    pick = min if body["op"] == "min" else max
    return pick(values, key=lambda v: _sort_value(v, info))


CALENDAR_ARGS = {"n", "weekday", "months"}


def _calendar_args(body: dict) -> dict:
    return {k: v for k, v in body.items() if k in CALENDAR_ARGS}


def _date(body, params, clock, path):
    source = body.get("from", "clock")
    if source == "clock":
        moment = clock
    else:
        raw = _fill(source, params, f"{path}.from")
        try:
            moment = parse_datetime(str(raw))
        except (BadValue, ValueError):
            raise TemplateError(f"{path}.from", f"{raw!r} is not a date or time") from None
    if "on" in body:
        try:
            day = calendar_date(body["on"], _calendar_args(body), moment.astimezone(UTC).date())
        except BadValue as exc:  # a month with no fifth Monday
            raise NoCandidate(path, str(exc)) from None
        moment = datetime.combine(day, datetime.min.time(), UTC)
    if body.get("add"):
        moment = moment + parse_duration(body["add"])
    fmt = body.get("format", "datetime")
    if fmt == "date":
        return moment.date().isoformat() if isinstance(moment, datetime) else moment.isoformat()
    if fmt == "datetime":
        moment = moment if isinstance(moment, datetime) else datetime.combine(moment, datetime.min.time(), UTC)
        return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return moment.strftime(fmt)


def _json_value(value):
    try:
        return json.loads(canonical_json(value))
    except TypeError:
        return json.loads(json.dumps(value, default=_plain))


def _plain(value):
    if isinstance(value, (Decimal, date, datetime)):
        return str(value) if isinstance(value, Decimal) else value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a JSON value")


# Template worlds never change once built, and every episode start computes its params on one:
# their snapshots are read once per process (keyed by state hash too, so a reused id is no stale hit).
_SNAPSHOTS: dict[tuple[int, str], dict] = {}
SNAPSHOTS_KEPT = 16


def _world_snapshot(world) -> dict:
    if not world.is_template or not world.state_hash:
        return snapshot(world)
    key = (world.pk, world.state_hash)
    doc = _SNAPSHOTS.get(key)
    if doc is None:
        while len(_SNAPSHOTS) >= SNAPSHOTS_KEPT:
            _SNAPSHOTS.pop(next(iter(_SNAPSHOTS)), None)
        doc = _SNAPSHOTS[key] = snapshot(world)
    return doc


def variation_rng(world, variation: int | None, name: str) -> random.Random | None:
    """The randomness a param `name` chooses with in an episode of this variation; None without a variation."""
    return None if variation is None else random.Random(f"{world.seed}:{variation}:{name}")


def call_picker(fn, *args, rng: random.Random | None, **kwargs):
    """Call a picker (or a params function), handing it `rng` when it takes one: pickers written before
    variations take none and keep their fixed pick."""
    if rng is not None and "rng" in inspect.signature(fn).parameters:
        kwargs["rng"] = rng
    return fn(*args, **kwargs)


def template_params(steps: list, *, world, variation: int | None = None) -> dict:
    """The answer key of one world (a template world of the task's seed): every param, in order.

    With an episode's `variation`, seeded picks and pickers choose among the candidates with its randomness.

    Raises TemplateError for a template that does not fit the world, NoCandidate when the world
    has nothing the template can be about (the message names the param and the seed).
    """
    problems = template_errors(steps, replica=world.replica)
    if problems:
        raise TemplateError(*problems[0])
    config, clock = get_replica(world.replica), world.clock
    snap = None  # read when a param needs rows: a template of pickers alone never does
    params, records, internal = {}, {}, set()
    for i, step in enumerate(steps):
        path, name, kind = f"params[{i}]", step["name"], kind_of(step)
        body = step[kind]
        if kind in ("pick", "aggregate", "list"):
            snap = snap or _world_snapshot(world)
        if kind == "pick":
            where = _fill(body.get("where", {}), params, f"{path}.pick.where")
            rows = _matching(snap, world.replica, body["table"], where, clock, f"{path}.pick.where")
            if not rows:
                raise NoCandidate(
                    path, f"seed {world.seed}: no {body['table']} row matches {canonical_json(where)} for {name!r}"
                )
            rows = _ordered(snap, world.replica, body["table"], rows, body.get("order_by"), f"{path}.pick.order_by")
            if body.get("choose", "seeded") == "seeded":
                rng = variation_rng(world, variation, name) or random.Random(f"{world.seed}:{name}")
                key, row = rng.choice(rows)
            else:
                key, row = rows[0]
            records[name] = (body["table"], key, row)
            params[name] = _record_value(world.replica, body["table"], key, row)
        elif kind == "list":
            where = _fill(body.get("where", {}), params, f"{path}.list.where")
            rows = _matching(snap, world.replica, body["table"], where, clock, f"{path}.list.where")
            if not rows:  # a bulk task over nothing would pass by doing nothing
                raise NoCandidate(
                    path, f"seed {world.seed}: no {body['table']} row matches {canonical_json(where)} for {name!r}"
                )
            rows = _ordered(snap, world.replica, body["table"], rows, body.get("order_by"), f"{path}.list.order_by")
            params[name] = [
                _field_value(snap, world.replica, body["table"], key, row, body["field"])
                if "field" in body
                else _record_value(world.replica, body["table"], key, row)
                for key, row in rows[: body.get("limit", 50)]
            ]
        elif kind == "field":
            record, field = body.split(".", 1)
            table, key, row = records[record]
            params[name] = _field_value(snap, world.replica, table, key, row, field)
        elif kind == "aggregate":
            where = _fill(body.get("where", {}), params, f"{path}.aggregate.where")
            rows = _matching(snap, world.replica, body["table"], where, clock, f"{path}.aggregate.where")
            params[name] = _aggregate(body, rows, snap, world.replica, f"{path}.aggregate")
        elif kind == "date":
            params[name] = _date(body, params, clock, f"{path}.date")
        elif kind in ("policy", "picker"):
            ref = (config.policies if kind == "policy" else config.pickers)[body]
            args = _fill(step.get("args", {}), params, f"{path}.args")
            with bound_world(world):
                try:
                    if kind == "policy":
                        result = function_at(ref)(world, **args)
                    else:
                        result = call_picker(
                            function_at(ref), world, world.seed, rng=variation_rng(world, variation, name), **args
                        )
                except LookupError as exc:
                    raise NoCandidate(path, f"seed {world.seed}: picker {body!r} found no candidate: {exc}") from None
                except TypeError as exc:
                    raise TemplateError(
                        f"{path}.args", f"{kind} {body!r} does not take these arguments: {exc}"
                    ) from None
            result = _json_value(result)
            if kind == "picker" and isinstance(result, dict):
                prefix = step.get("prefix", f"{name}_")
                params.update({f"{prefix}{k}": v for k, v in result.items()})
                if step.get("internal"):
                    internal.update(f"{prefix}{k}" for k in result)
            else:
                params[name] = result
        elif kind == "text":
            try:
                params[name] = fill_text(body, params)
            except MissingParam as exc:
                raise TemplateError(f"{path}.text", str(exc)) from None
        else:
            params[name] = body
        if step.get("internal"):
            internal.add(name)
    return {k: v for k, v in params.items() if k not in internal}


def template_instances(spec: dict, seeds, *, build_world) -> list[dict]:
    """One entry per seed: {"seed", "params"} or {"seed", "error", "path"}; `build_world(seed)` gives the world."""
    out = []
    for seed in seeds:
        try:
            out.append({"seed": seed, "params": template_params(spec["params"], world=build_world(seed))})
        except TemplateError as exc:
            out.append(
                {"seed": seed, "error": exc.message, "path": exc.path, "no_candidate": isinstance(exc, NoCandidate)}
            )
    return out
