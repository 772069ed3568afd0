"""The replica side of data faults: each replica may ship a `faults.py` next to its models
(ReplicaConfig.faults_module).

That module may define:
- `DATA_FAULTS`: fault name -> applier `fn(ctx: DataFaultContext) -> dict` (the event's detail).
  Appliers run with the world bound and draw randomness only from `ctx.rng`. Most run
  once at world creation (`ctx.phase == "apply"`); `stale_record` runs twice: `"arm"`
  at creation (pick the record; may return `"route"`, the regex of its page, used as the
  default trigger) and `"fire"` when triggered (`ctx.detail` holds what "arm" returned).
- `session_is_signed_in(session) -> bool`: whether a session is signed in.
- `error_response(request, *, status, code, message)`: the product's own error page.
"""

import hashlib
import json
import random
from dataclasses import dataclass, field
from functools import cache

from ..models import FaultEvent
from ..registry import get_replica


class DataFaultError(ValueError):
    """An applier cannot apply its fault in this world (e.g. the named record does not exist)."""


@dataclass
class DataFaultContext:
    world: object
    name: str
    index: int
    params: dict
    rng: random.Random
    phase: str = "apply"
    detail: dict = field(default_factory=dict)


@cache
def replica_hooks(replica: str):
    """The replica's `faults` module, or None when it has none."""
    return get_replica(replica).faults_hooks()


def data_fault_applier(replica: str, name: str):
    hooks = replica_hooks(replica)
    return getattr(hooks, "DATA_FAULTS", {}).get(name) if hooks is not None else None


def hook(replica: str, name: str, default=None):
    hooks = replica_hooks(replica)
    return getattr(hooks, name, default) if hooks is not None else default


def fault_rng(world, index: int, spec: dict) -> random.Random:
    """One random stream per (replica, seed, variant, fault position, fault spec): never the world id."""
    key = json.dumps([world.replica, world.seed, world.variant, index, spec["name"], spec["params"]], sort_keys=True)
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def apply_data_fault(world, index: int, spec: dict, *, phase: str = "apply", detail: dict | None = None) -> dict:
    applier = data_fault_applier(world.replica, spec["name"])
    if applier is None:
        raise LookupError(f"replica {world.replica!r} cannot apply the data fault {spec['name']!r}")
    ctx = DataFaultContext(
        world, spec["name"], index, spec["params"], fault_rng(world, index, spec), phase, dict(detail or {})
    )
    return applier(ctx) or {}


def world_data_fault(world, name: str) -> dict | None:
    """The detail of data fault `name` applied in `world`, or None: for replica pages that
    must render differently under it (e.g. ambiguous_field relabels a form's options)."""
    if not world.faults or not any(spec["name"] == name for spec in world.faults):
        return None
    event = FaultEvent.objects.filter(world=world, fault=name, event__in=("applied", "fired")).order_by("seq").first()
    return event.detail if event is not None else None
