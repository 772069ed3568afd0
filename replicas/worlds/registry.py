"""The replica registry: replicas declare themselves, the platform finds them.

A replica is a Django app whose AppConfig derives from ReplicaConfig. Settings
install every app folder under replicas/, so adding a replica edits no list.
"""
import hashlib
import importlib
import inspect
from functools import cached_property

from django.apps import AppConfig, apps


class UnknownReplica(LookupError):
    pass


class UnknownVariant(LookupError):
    pass


class ReplicaConfig(AppConfig):
    """Declares a replica. Subclasses set:

    - `variants`: name -> knobs (a dict the seed generator reads); "default" is required;
    - `start_pages`: name -> path inside the world (the first is the default);
    - `seed_module`: dotted path of a module with `generate(gen)` (default: `<app>.seed`);
    - `urls_module`: the urlconf served on the world's origin (default: `<app>.urls`).
    """

    variants: dict[str, dict] = {"default": {}}
    start_pages: dict[str, str] = {"home": "/"}
    seed_module: str = ""
    urls_module: str = ""

    @property
    def replica_name(self) -> str:
        return self.label

    @property
    def urlconf(self) -> str:
        return self.urls_module or f"{self.name}.urls"

    def knobs(self, variant: str) -> dict:
        try:
            return self.variants[variant]
        except KeyError:
            names = ", ".join(sorted(self.variants))
            raise UnknownVariant(f"unknown variant {variant!r} for replica {self.label!r} (known: {names})") from None

    def generator(self):
        return importlib.import_module(self.seed_module or f"{self.name}.seed")

    @cached_property
    def world_models(self) -> list:
        """The replica's world-scoped models, parents before children (foreign keys)."""
        from .models import WorldModel

        declared = [m for m in self.get_models() if issubclass(m, WorldModel)]
        for model in declared:
            if not model.public_key:
                raise TypeError(f"{model.__name__} declares no public_key")
        ordered, seen = [], set()

        def visit(model, path=()):
            if model in seen:
                return
            if model in path:
                return  # a cycle (self reference): order within it does not matter
            for field in model._meta.concrete_fields:
                target = field.related_model if field.is_relation else None
                if target in declared and target is not model:
                    visit(target, path + (model,))
            seen.add(model)
            ordered.append(model)

        for model in declared:
            visit(model)
        return ordered

    @cached_property
    def generator_version(self) -> str:
        """Changes whenever the seed generator or the models change, invalidating templates."""
        digest = hashlib.sha256()
        for module in (self.generator(), self.models_module):
            digest.update(inspect.getsource(module).encode())
        return digest.hexdigest()[:16]


def replicas() -> dict[str, ReplicaConfig]:
    return {c.label: c for c in apps.get_app_configs() if isinstance(c, ReplicaConfig)}


def get_replica(name: str) -> ReplicaConfig:
    found = replicas()
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        raise UnknownReplica(f"unknown replica {name!r} (known: {known})")
    return found[name]
