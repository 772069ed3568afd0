"""What a verifier knows of a replica's tables: field names as in snapshots, and each field's value type.

Read from the replica's world models through the registry, so a spec is checked
against the models as they are, and comparisons are chosen by the field's type.
"""

from dataclasses import dataclass
from functools import cache

from django.db import models

from replicas.worlds.registry import get_replica
from replicas.worlds.snapshot import SKIPPED

# The row's public key (as snapshots key rows) may be filtered on like a field.
KEY_FIELD = "_key"


@dataclass(frozen=True)
class FieldInfo:
    name: str
    kind: str  # int, float, decimal, datetime, date, bool, text, ref, json
    nullable: bool = False
    choices: tuple = ()
    currency_field: str | None = None  # for decimals: the sibling field naming the currency


def _kind(field) -> str:
    if field.is_relation:
        return "ref"
    if isinstance(field, models.BooleanField):
        return "bool"
    if isinstance(field, models.DecimalField):
        return "decimal"
    if isinstance(field, models.DateTimeField):
        return "datetime"
    if isinstance(field, models.DateField):
        return "date"
    if isinstance(field, (models.IntegerField, models.AutoField)):
        return "int"
    if isinstance(field, models.FloatField):
        return "float"
    if isinstance(field, models.JSONField):
        return "json"
    return "text"


def _currency_field(model, name: str, names: set) -> str | None:
    """The field holding the currency of money field `name`.

    A model may say so with `currency_fields = {"amount": "currency"}`; otherwise a
    sibling named `<name>_currency` or, failing that, `currency` is taken.
    """
    declared = getattr(model, "currency_fields", {}) or {}
    if name in declared:
        return declared[name]
    for candidate in (f"{name}_currency", "currency"):
        if candidate in names:
            return candidate
    return None


def table_name(model) -> str:
    return f"{model._meta.app_label}.{model._meta.model_name}"


def world_models(replica: str) -> list:
    """The world models a verifier of `replica` reads: one replica's, or every member's of a workspace
    (named by its replicas joined by commas, replicas.worlds.workspaces.group_label); table names carry
    each replica's label, so a table names the app it is read from."""
    return [model for name in replica.split(",") for model in get_replica(name).world_models]


@cache
def _tables(replica: str) -> dict[str, dict[str, FieldInfo]]:
    tables = {}
    for model in world_models(replica):
        concrete = [f for f in model._meta.concrete_fields if f.name not in SKIPPED]
        names = {f.name for f in concrete}
        infos = {KEY_FIELD: FieldInfo(KEY_FIELD, "text")}
        for f in concrete:
            kind = _kind(f)
            infos[f.name] = FieldInfo(
                name=f.name,
                kind=kind,
                nullable=f.null,
                choices=tuple(str(value) for value, _ in f.flatchoices) if f.choices else (),
                currency_field=_currency_field(model, f.name, names) if kind == "decimal" else None,
            )
        tables[table_name(model)] = infos
    return tables


def tables(replica: str) -> dict[str, dict[str, FieldInfo]]:
    """table name -> field name -> FieldInfo, for every world model of the replica."""
    return _tables(replica)


# --- relation paths ---------------------------------------------------------------------------
#
# `ticket__organization__name`: a field reached through references, as params' templates and
# verifier `where`s name it. Each hop reads the referenced row out of the same snapshot by its
# public key, so a path can only reach rows of the episode's world: the snapshot holds no other.


class PathError(ValueError):
    """A relation path that does not fit the replica's models."""


@cache
def relations(replica: str) -> dict[tuple[str, str], str]:
    """(table, field) -> the table a foreign key points to."""
    out = {}
    for model in world_models(replica):
        for f in model._meta.concrete_fields:
            if f.is_relation:
                out[(table_name(model), f.name)] = table_name(f.related_model)
    return out


@cache  # asked once per row and condition while a verdict is judged; the models do not change in a process
def path_info(replica: str, table: str, path: str) -> FieldInfo:
    """The FieldInfo at the end of `path` (fields joined by __); PathError when the models have no such path."""
    known = tables(replica)
    if table not in known:
        raise PathError(f"unknown table {table!r} (tables of {replica}: {', '.join(sorted(known))})")
    current = table
    parts = path.split("__")
    for i, name in enumerate(parts):
        fields = known[current]
        if name not in fields:
            raise PathError(f"unknown field {name!r} of {current} (fields: {', '.join(sorted(fields))})")
        if i < len(parts) - 1:
            target = relations(replica).get((current, name))
            if target is None:
                raise PathError(f"{current}.{name} is not a reference, so {parts[i + 1]!r} cannot follow it")
            if target not in known:
                raise PathError(f"{current}.{name} refers to {target}, which is not a table of the world")
            current = target
    return known[current][parts[-1]]


def resolve_path(snap: dict, replica: str, table: str, key: str, row: dict, path: str) -> tuple:
    """(value, the row holding it) at `path` from one snapshot row, following references by public key in `snap`;
    (None, {}) past a null reference or one to a row the snapshot does not hold."""
    parts = path.split("__")
    for name in parts[:-1]:
        value = row.get(name)
        if value is None:
            return None, {}
        table = relations(replica)[(table, name)]
        key = str(value)
        row = snap["tables"].get(table, {}).get(key)
        if row is None:
            return None, {}
    last = parts[-1]
    return (key if last == KEY_FIELD else row.get(last)), row
