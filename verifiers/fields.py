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


@cache
def _tables(replica: str) -> dict[str, dict[str, FieldInfo]]:
    tables = {}
    for model in get_replica(replica).world_models:
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
