"""Registered Python checks: the verifier's escape hatch for what the JSON kinds cannot say.

A check is `fn(inputs, **args) -> (passed, detail)` over the same read-only inputs as
every assertion, registered with `@register_check("name")`. Replicas register their
own in their `checks_module` (ReplicaConfig; default `<app>.checks`), imported the
first time a spec of theirs is validated or verified.
"""

from collections.abc import Callable
from dataclasses import dataclass

from replicas.worlds.registry import get_replica

_REGISTRY: dict[str, "Check"] = {}
_LOADED: set[str] = set()


@dataclass(frozen=True)
class Check:
    name: str
    fn: Callable
    args_schema: dict | None = None  # JSON Schema of the args object, checked at validation
    validate_args: Callable | None = None  # fn(args, replica=...) raising ValueError, for what a schema cannot say


def register_check(name: str, *, args_schema: dict | None = None, validate_args: Callable | None = None):
    def decorate(fn):
        existing = _REGISTRY.get(name)
        if existing is not None and (existing.fn.__module__, existing.fn.__qualname__) != (
            fn.__module__,
            fn.__qualname__,
        ):
            raise ValueError(f"python check {name!r} is already registered by {existing.fn.__module__}")
        _REGISTRY[name] = Check(name, fn, args_schema, validate_args)
        return fn

    return decorate


def load_checks(replica: str | None = None) -> None:
    """Import `replica`'s checks module, once (the built-in ones register when the app is ready)."""
    for name in replica.split(",") if replica else ():  # a workspace's verifier: every member's checks
        if name not in _LOADED:
            get_replica(name).load_checks()
            _LOADED.add(name)


def get_check(name: str) -> Check | None:
    return _REGISTRY.get(name)


def names() -> list[str]:
    return sorted(_REGISTRY)
