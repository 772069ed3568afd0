"""Armed faults at run time: per-world counters, triggers, and the events faults write.

Every counter moves with one `UPDATE ... RETURNING` (or a conditional UPDATE whose
row count says who won), so two requests of one world never get the same number and
a fault fires exactly once, on SQLite and PostgreSQL alike. Nothing here is keyed
by anything but the world: a fault armed in one world cannot fire in another.
"""

from datetime import UTC, datetime

from django.db import connection, transaction

from ..models import FaultEvent, FaultProgress, FaultState, World
from ..registry import get_replica
from ..scoping import bound_world
from ..snapshot import snapshot, state_hash
from .data import DataFaultError, apply_data_fault
from .library import DATA, LIBRARY
from .spec import FaultSpecError, parse_clock, validate_faults


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _returning(sql: str, params: list):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def next_request(world_id: int):
    """(request number, engine step) for a new counted request of the world, or None if not armed."""
    table = _q(FaultState._meta.db_table)
    return _returning(
        f"UPDATE {table} SET {_q('requests')} = {_q('requests')} + 1 WHERE {_q('world_id')} = %s "
        f"RETURNING {_q('requests')}, {_q('step')}",
        [world_id],
    )


def _next_seq(world_id: int) -> int:
    table = _q(FaultState._meta.db_table)
    row = _returning(
        f"UPDATE {table} SET {_q('events')} = {_q('events')} + 1 WHERE {_q('world_id')} = %s RETURNING {_q('events')}",
        [world_id],
    )
    return row[0]


def bump(progress: FaultProgress, column: str, limit: int | None = None) -> int | None:
    """Add one to a progress counter; its new value, or None when it already reached `limit`."""
    table = _q(FaultProgress._meta.db_table)
    sql = f"UPDATE {table} SET {_q(column)} = {_q(column)} + 1 WHERE {_q('id')} = %s"
    params = [progress.pk]
    if limit is not None:
        sql += f" AND {_q(column)} < %s"
        params.append(limit)
    row = _returning(sql + f" RETURNING {_q(column)}", params)
    if row is None:
        return None
    setattr(progress, column, row[0])
    return row[0]


def claim(progress: FaultProgress, flag: str) -> bool:
    """Set a flag (active, resolved) if nobody has yet; True for the one caller that did."""
    won = FaultProgress.objects.filter(pk=progress.pk, **{flag: False}).update(**{flag: True}) == 1
    setattr(progress, flag, True)
    return won


def event_write(
    *, world, progress: FaultProgress, event: str, at_request=None, at_step=None, clock=None, route="", detail=None
) -> FaultEvent:
    spec = world.faults[progress.index]
    fault = LIBRARY[progress.name]
    login_path = get_replica(world.replica).login_path
    return FaultEvent.objects.create(
        world_id=world.id,
        seq=_next_seq(world.id),
        index=progress.index,
        fault=progress.name,
        event=event,
        params=spec["params"],
        at_request=at_request,
        at_step=at_step,
        clock=clock or world.clock,
        route=route[:500],
        detail=detail or {},
        recovery=fault.recovery(spec["params"], login_path=login_path),
    )


def event_dict(e: FaultEvent) -> dict:
    return {
        "seq": e.seq,
        "fault": e.fault,
        "index": e.index,
        "event": e.event,
        "params": e.params,
        "at_request": e.at_request,
        "at_step": e.at_step,
        "clock": e.clock.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "route": e.route,
        "detail": e.detail,
        "recovery": e.recovery,
    }


def _resolved_trigger(world, spec: dict, detail: dict) -> dict:
    trigger = dict(spec["trigger"] or {})
    if not trigger and spec["name"] == "stale_record":
        # the record's page, refreshed once: the second visit shows the change
        trigger = {"requests": 2, "route": detail["route"]} if detail.get("route") else {"step": 1}
    if "clock" in trigger:
        at = parse_clock(trigger["clock"], start=world.clock)
        trigger["at"] = at.astimezone(UTC).isoformat()
    return trigger


@transaction.atomic
def faults_arm(*, world) -> list[dict]:
    """Arm the world's faults: counters, per-fault progress, and data faults applied now.

    Called once, right after the world's rows are cloned; returns the events written.
    """
    world.faults = validate_faults(world.faults, replica=world.replica)
    World.objects.filter(pk=world.pk).update(faults=world.faults)
    if not world.faults:
        return []
    FaultState.objects.get_or_create(world=world)
    written, changed = [], False
    for index, spec in enumerate(world.faults):
        fault = LIBRARY[spec["name"]]
        detail = {}
        if fault.kind == DATA:
            try:
                with bound_world(world):
                    detail = apply_data_fault(world, index, spec, phase="arm" if fault.triggerable else "apply")
            except DataFaultError as exc:
                raise FaultSpecError(f"faults[{index}].params: {exc}") from None
        progress, created = FaultProgress.objects.get_or_create(
            world=world,
            index=index,
            defaults={"name": spec["name"], "trigger": _resolved_trigger(world, spec, detail), "detail": detail},
        )
        if fault.kind == DATA and not fault.triggerable and created:
            changed = True
            claim(progress, "active")
            written.append(event_write(world=world, progress=progress, event="applied", at_request=0, detail=detail))
    if changed:
        # the state at creation now includes the data faults
        world.state_hash = state_hash(snapshot(world))
        World.objects.filter(pk=world.pk).update(state_hash=world.state_hash)
    return [event_dict(e) for e in written]


def ensure_armed(world) -> None:
    """Arm a world that got its faults without world_create (e.g. a direct clone)."""
    if not FaultState.objects.filter(world=world).exists():
        faults_arm(world=world)


def trigger_due(progress: FaultProgress, *, step=None, clock=None) -> bool:
    """Whether a step or clock trigger has come (request triggers are counted by the middleware)."""
    trigger = progress.trigger
    if "step" in trigger:
        return step is not None and step >= trigger["step"]
    if "at" in trigger:
        return clock is not None and clock >= datetime.fromisoformat(trigger["at"])
    return False


def activate(*, world, progress: FaultProgress, at_request=None, at_step=None, route: str = "") -> list[FaultEvent]:
    """Mark the fault active (once); a stale_record changes its record right now."""
    if not claim(progress, "active"):
        return []
    if progress.name != "stale_record":
        return []
    spec = world.faults[progress.index]
    with bound_world(world):
        detail = apply_data_fault(world, progress.index, spec, phase="fire", detail=progress.detail)
    bump(progress, "hits")
    return [
        event_write(
            world=world,
            progress=progress,
            event="fired",
            at_request=at_request,
            at_step=at_step,
            route=route,
            detail=detail,
        )
    ]


def world_step(*, world, index: int) -> list[dict]:
    """Called by the episode engine before step `index`: fires step and clock triggers.

    Returns the events written now; events written by the requests of the step are
    read afterwards with fault_events().
    """
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise ValueError(f"step index must be a non-negative integer, not {index!r}")
    if not world.faults:
        return []
    ensure_armed(world)
    FaultState.objects.filter(world=world).update(step=index)
    world.clock = World.objects.values_list("clock", flat=True).get(pk=world.pk)
    state = FaultState.objects.get(world=world)
    written = []
    for progress in FaultProgress.objects.filter(world=world, active=False):
        if trigger_due(progress, step=index, clock=world.clock):
            written += activate(world=world, progress=progress, at_request=state.requests, at_step=index)
    return [event_dict(e) for e in written]


def fault_events(*, world, since: int = 0) -> list[dict]:
    """The world's fault events with seq greater than `since`, in order."""
    if not isinstance(since, int) or isinstance(since, bool) or since < 0:
        raise ValueError(f"since must be a non-negative integer, not {since!r}")
    return [event_dict(e) for e in FaultEvent.objects.filter(world=world, seq__gt=since).order_by("seq")]


def recovery_outcomes(events: list[dict]) -> list[dict]:
    """Per fault that acted: did the agent recover? Pure: reads only the events.

    Data faults applied at creation are judged by the task's verifier and are not
    counted (`counted: False`).
    """
    by_index: dict[int, list[dict]] = {}
    for e in sorted(events, key=lambda e: e["seq"]):
        by_index.setdefault(e["index"], []).append(e)
    outcomes = []
    for index, evs in sorted(by_index.items()):
        kind = evs[0]["recovery"].get("kind")
        fired = [e for e in evs if e["event"] == "fired"]
        if kind == "verifier" or not fired:
            outcomes.append(
                {"index": index, "fault": evs[0]["fault"], "fired": bool(fired), "recovered": None, "counted": False}
            )
            continue
        first = fired[0]["seq"]
        if kind == "avoid_misclick":
            recovered = not any(e["event"] == "misclick" for e in evs)
        else:
            recovered = any(e["event"] == "recovered" and e["seq"] > first for e in evs)
        outcomes.append(
            {"index": index, "fault": evs[0]["fault"], "fired": True, "recovered": recovered, "counted": True}
        )
    return outcomes


def recovery_rate(events: list[dict]) -> float | None:
    """Share of the faults that acted which the agent recovered from; None when none acted."""
    counted = [o for o in recovery_outcomes(events) if o["counted"]]
    if not counted:
        return None
    return sum(1 for o in counted if o["recovered"]) / len(counted)
