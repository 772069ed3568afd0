"""Django system checks of what the worlds layer asks of every replica's models (`manage.py check`)."""

from django.apps import apps
from django.core import checks
from django.core.exceptions import FieldDoesNotExist
from django.db import models

from .models import WorldModel


def world_models(app_configs=None) -> list[type[WorldModel]]:
    """Every concrete model with a world and a public key, of the given apps (all when None)."""
    found = apps.get_models() if app_configs is None else [m for ac in app_configs for m in ac.get_models()]
    return [m for m in found if issubclass(m, WorldModel) and not m._meta.proxy]


def public_key_errors(model) -> list[checks.Error]:
    """The model declares a public key of its own fields, none nullable, unique in each world by `world_unique`.

    Snapshots key every row by its public key: a name that is no field is silently left out of the key, and
    without the constraint (or with a NULL in the key, which a unique constraint lets repeat) two rows could
    share a key and the world could no longer be snapshotted.
    """
    label = model._meta.label
    if not model.public_key:
        return [checks.Error(f"{label} declares no public_key.", obj=model, id="worlds.E001")]
    errors = []
    for name in model.public_key:
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            errors.append(
                checks.Error(f"{label}.public_key names {name!r}, which is no field.", obj=model, id="worlds.E002")
            )
            continue
        if field.null:
            errors.append(
                checks.Error(
                    f"{label}.public_key field {name!r} is nullable: a unique constraint lets NULLs repeat.",
                    obj=model,
                    id="worlds.E003",
                )
            )
    expected = ("world", *model.public_key)
    declared = any(
        isinstance(c, models.UniqueConstraint) and tuple(c.fields) == expected and c.condition is None
        for c in model._meta.constraints
    )
    if not declared:
        errors.append(
            checks.Error(
                f"{label} does not declare its public key {expected} unique in each world.",
                hint=f"Meta.constraints = [world_unique(<name>, {', '.join(map(repr, model.public_key))})]"
                " (replicas.worlds.models.world_unique).",
                obj=model,
                id="worlds.E004",
            )
        )
    return errors


@checks.register(checks.Tags.models)
def check_public_keys(app_configs=None, **kwargs) -> list[checks.Error]:
    return [error for model in world_models(app_configs) for error in public_key_errors(model)]
