"""Snapshot, hash and diff of one world's state.

A snapshot is a canonical JSON document: every row of the world keyed by its
public key, foreign keys written as the target's public key, values in one
text form whatever the database backend returned. Its sha256 is the world's
state hash; verifiers read snapshots and their diff.
"""

import hashlib
import json
from datetime import UTC, date, datetime, time
from decimal import Decimal

from django.db import models

from .registry import get_replica

SKIPPED = {"id", "world"}


def _canonical(field, value):
    if value is None:
        return None
    if isinstance(field, models.DecimalField):
        return str(Decimal(value).quantize(Decimal(1).scaleb(-field.decimal_places)))
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (Decimal,)):
        return str(value)
    return value


def _key(values) -> str:
    return "|".join(str(v) for v in values)


def _table(model) -> str:
    return f"{model._meta.app_label}.{model._meta.model_name}"


def snapshot(world) -> dict:
    replica = get_replica(world.replica)
    world_models = replica.world_models
    fields = {m: [f for f in m._meta.concrete_fields if f.name not in SKIPPED] for m in world_models}
    raw = {
        m: list(m.all_worlds.filter(world_id=world.id).values_list("id", *[f.attname for f in fields[m]]))
        for m in world_models
    }
    # id -> public key, so foreign keys can be written as what a person would see
    # (parents come first, so a public key may include a foreign key, written as its target's key)
    keys = {}
    for model in world_models:
        parts = [(i + 1, f) for i, f in enumerate(fields[model]) if f.name in model.public_key]
        for row in raw[model]:
            keys[(model, row[0])] = _key(keys[(f.related_model, row[i])] if f.is_relation else row[i] for i, f in parts)
    tables = {}
    for model in world_models:
        rows = {}
        for row in raw[model]:
            doc = {}
            for field, value in zip(fields[model], row[1:], strict=True):
                if field.is_relation and value is not None:
                    value = keys[(field.related_model, value)]
                doc[field.name] = _canonical(field, value)
            key = keys[(model, row[0])]
            if key in rows:
                raise ValueError(f"{_table(model)}: two rows share the public key {key!r}")
            rows[key] = doc
        tables[_table(model)] = dict(sorted(rows.items()))
    return {"replica": world.replica, "tables": tables}


def canonical_json(doc) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def state_hash(snap: dict) -> str:
    return hashlib.sha256(canonical_json(snap).encode()).hexdigest()


def _table_diff(old: dict, new: dict) -> dict | None:
    """One table's rows added, removed and changed (field by field) from `old` to `new`; None when they are equal."""
    added = {k: new[k] for k in sorted(new.keys() - old.keys())}
    removed = {k: old[k] for k in sorted(old.keys() - new.keys())}
    changed = {}
    for key in sorted(old.keys() & new.keys()):
        before, after = old[key], new[key]
        if before == after:  # most rows: one comparison in C instead of one per field
            continue
        changed[key] = {
            name: {"from": before.get(name), "to": after.get(name)}
            for name in sorted(set(before) | set(after))
            if before.get(name) != after.get(name)
        }
    if added or removed or changed:
        return {"added": added, "removed": removed, "changed": changed}
    return None


def diff(before: dict, after: dict, *, known: dict | None = None, only: str | None = None) -> dict:
    """Rows added, removed and changed (field by field) from `before` to `after`.

    `known` is the diff from `before` to a state that differs from `after` in table `only` alone: the other
    tables' parts are taken from it instead of compared again. The mutation audit judges hundreds of states that
    each change one table of a reference's final state (a diff of a whole default world costs about as much as
    judging the mutant)."""
    if known is not None and only is not None:
        parts = {name: part for name, part in known["tables"].items() if name != only}
        part = _table_diff(before["tables"].get(only, {}), after["tables"].get(only, {}))
        if part is not None:
            parts[only] = part
        before_hash = known["before"]
    else:
        parts = {}
        for table in set(before["tables"]) | set(after["tables"]):
            part = _table_diff(before["tables"].get(table, {}), after["tables"].get(table, {}))
            if part is not None:
                parts[table] = part
        before_hash = state_hash(before)
    tables = {name: parts[name] for name in sorted(parts)}
    totals = {kind: sum(len(part[kind]) for part in tables.values()) for kind in ("added", "removed", "changed")}
    return {"before": before_hash, "after": state_hash(after), "totals": totals, "tables": tables}
