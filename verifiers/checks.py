"""Registered Python checks: the verifier's escape hatch for what the JSON kinds cannot say.

A check is `fn(inputs, **args) -> (passed, detail)` over the same read-only inputs as
every assertion, registered with `@register_check("name")`. Replicas register their
own in `replicas/<replica>/checks.py`, imported the first time a spec of theirs is
validated or verified.
"""
import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

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
        if existing is not None and (existing.fn.__module__, existing.fn.__qualname__) != (fn.__module__, fn.__qualname__):
            raise ValueError(f"python check {name!r} is already registered by {existing.fn.__module__}")
        _REGISTRY[name] = Check(name, fn, args_schema, validate_args)
        return fn

    return decorate


def load_checks(replica: str | None = None) -> None:
    """Import the built-in checks and, when it exists, `replicas.<replica>.checks`."""
    modules = ["verifiers.builtin_checks"]
    if replica:
        modules.append(f"replicas.{replica}.checks")
    for module in modules:
        if module in _LOADED:
            continue
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # the replica's package itself is not there
            found = False
        if found:
            importlib.import_module(module)
        _LOADED.add(module)


def get_check(name: str) -> Check | None:
    return _REGISTRY.get(name)


def names() -> list[str]:
    return sorted(_REGISTRY)
