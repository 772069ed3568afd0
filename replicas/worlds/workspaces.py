"""Workspaces: a group of worlds, one per replica, made together from one seed, sharing people and references.

A workspace's template is generated once per (replicas, seed, variant, generator versions):
each member world is generated from the workspace's clock, each replica offers the people and
records it can share (`ReplicaConfig.workspace_offer`), the worlds layer picks the shared ones,
and each replica adopts them (`workspace_adopt`). A workspace is then a clone of every member
template, in one transaction: milliseconds, like a world. The layer knows no replica: the
replicas meet only in the vocabulary of kinds the ReplicaConfig docstring lists.
"""

import hashlib
import inspect
import secrets
import sys
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone as djtz

from .clock import world_clock_advance
from .faults import faults_arm, faults_for_world
from .models import Workspace, World
from .registry import get_replica
from .scoping import bound_world
from .services import InvalidWorldRequest, _initial_clock, _validate, world_clone, world_delete, world_generate
from .signin import workspace_password
from .snapshot import diff, snapshot, state_hash

# People of each kind a workspace shares: enough for a task to name a colleague and a customer
# besides the one signed in, few enough that every member can offer them.
PEOPLE_PER_KIND = 3
PERSON_FIELDS = ("name", "email")


class InvalidWorkspaceOffer(TypeError):
    """A replica's workspace_offer answered something outside the contract."""


def _replica_names(replicas) -> list[str]:
    if isinstance(replicas, str):
        replicas = [r for r in replicas.split(",") if r.strip()]
    if not isinstance(replicas, (list, tuple)) or not all(isinstance(r, str) for r in replicas):
        raise InvalidWorldRequest(f"replicas must be a list of replica names, not {replicas!r}")
    names = [r.strip() for r in replicas]
    if len(set(names)) != len(names):
        raise InvalidWorldRequest(f"a workspace names each replica once, not {', '.join(names)}")
    if len(names) < 2:
        raise InvalidWorldRequest("a workspace groups at least two replicas")
    return sorted(names)


def _validate_workspace(replicas, seed: int, variant: str) -> list:
    return [_validate(name, seed, variant) for name in _replica_names(replicas)]


def workspace_generator_version(configs) -> str:
    """Changes whenever a member's generator or workspace module, or this module, changes: templates are rebuilt.

    Computed once per process and group (sources do not change under a running process).
    """
    key = tuple((c.label, c.generator_version) for c in configs)
    if key not in _VERSIONS:
        _VERSIONS[key] = _generator_version(configs)
    return _VERSIONS[key]


_VERSIONS: dict[tuple, str] = {}


def _generator_version(configs) -> str:
    digest = hashlib.sha256(inspect.getsource(sys.modules[__name__]).encode())
    for config in configs:
        digest.update(f"{config.label}\x00{config.generator_version}\x00".encode())
        module = config.workspace_hooks()
        if module is not None:
            digest.update(inspect.getsource(module).encode())
    return digest.hexdigest()[:16]


def _checked_offer(replica: str, offer) -> dict:
    """The offer with its shape checked: a replica's mistake is named, not a KeyError three calls later."""
    if not isinstance(offer, dict) or set(offer) - {"people", "references"}:
        raise InvalidWorkspaceOffer(f"{replica}: workspace_offer must return a dict of 'people' and 'references'")
    people, references = offer.get("people", {}), offer.get("references", {})
    for label, kinds in (("people", people), ("references", references)):
        if not isinstance(kinds, dict) or not all(isinstance(v, list) for v in kinds.values()):
            raise InvalidWorkspaceOffer(f"{replica}: {label} must map each kind to a list")
    for kind, persons in people.items():
        for person in persons:
            if not isinstance(person, dict) or not all(isinstance(person.get(f), str) for f in PERSON_FIELDS):
                raise InvalidWorkspaceOffer(f"{replica}: each {kind} offered needs a name and an email")
    for kind, records in references.items():
        for record in records:
            if not isinstance(record, dict):
                raise InvalidWorkspaceOffer(f"{replica}: each {kind} reference must be a dict")
            person = record.get("person")
            if person is not None and not (
                isinstance(person, list)
                and len(person) == 2
                and person[0] in people
                and type(person[1]) is int  # bool is an int: True names nobody
                and person[1] >= 0
            ):
                raise InvalidWorkspaceOffer(f"{replica}: a {kind}'s person must be [kind, index] of its own offer")
    return {"people": people, "references": references}


def _shared_people(offers: dict[str, dict]) -> dict[str, list[dict]]:
    """Per kind offered by two members or more: person i is every such member's i-th candidate,
    named as the first of them (in name order) names them."""
    shared = {}
    for kind in sorted({k for offer in offers.values() for k in offer["people"]}):
        lists = [offer["people"][kind] for _, offer in sorted(offers.items()) if offer["people"].get(kind)]
        if len(lists) < 2:
            continue  # one member alone shares nobody
        count = min(PEOPLE_PER_KIND, *(len(candidates) for candidates in lists))
        shared[kind] = [
            {"key": f"{kind}-{i + 1}", "name": person["name"], "email": person["email"].strip().lower()}
            for i, person in enumerate(lists[0][:count])
        ]
    return shared


def _shared_references(offers: dict[str, dict], people: dict) -> dict[str, list[dict]]:
    """Every member's records by kind, each with the `replica` that offered it and its person as a shared key."""
    shared: dict[str, list[dict]] = {}
    for replica, offer in sorted(offers.items()):
        for kind, records in sorted(offer["references"].items()):
            for record in records:
                record = {**record, "replica": replica}
                if record.get("person") is not None:
                    person_kind, index = record["person"]
                    if index >= len(people.get(person_kind, [])):
                        continue  # somebody the workspace does not share
                    record["person"] = people[person_kind][index]["key"]
                shared.setdefault(kind, []).append(record)
    return shared


def _align_clocks(worlds: list[World]) -> None:
    """One clock for the group: every member moves (running its automations) to the latest member's now."""
    latest = max(w.clock for w in worlds)
    for world in worlds:
        if world.clock < latest:
            world_clock_advance(world=world, seconds=(latest - world.clock).total_seconds())


def _seal(world: World) -> None:
    """Record a member's row count and state hash after the workspace changed it (a clone copies them)."""
    with bound_world(world):
        doc = snapshot(world)
    world.rows = sum(len(rows) for rows in doc["tables"].values())
    world.state_hash = state_hash(doc)
    world.save(update_fields=["rows", "state_hash"])


@transaction.atomic
def workspace_generate(*, replicas, seed: int, variant: str = "default", is_template: bool = False) -> Workspace:
    """Build a workspace from scratch: generate its members from one clock, share, adopt."""
    configs = _validate_workspace(replicas, seed, variant)
    names = ",".join(c.label for c in configs)
    workspace = Workspace.objects.create(
        token=secrets.token_hex(8),
        replicas=names,
        seed=seed,
        variant=variant,
        is_template=is_template,
        generator_version=workspace_generator_version(configs),
    )
    clock = _initial_clock(f"workspace:{names}", seed, variant)
    worlds = [
        world_generate(
            replica=c.label, seed=seed, variant=variant, is_template=is_template, workspace=workspace, clock=clock
        )
        for c in configs
    ]
    offers = {}
    for config, world in zip(configs, worlds, strict=True):
        with bound_world(world):
            offers[config.label] = _checked_offer(config.label, config.workspace_offer(world))
    people = _shared_people(offers)
    references = _shared_references(offers, people)
    sign_ins = {}
    for config, world in zip(configs, worlds, strict=True):
        with bound_world(world):
            adopted = config.workspace_adopt(world, people=people, references=references) or {}
        sign_ins[config.label] = {str(user_id): key for key, user_id in adopted.items()}
    _align_clocks(worlds)
    for world in worlds:
        _seal(world)
    workspace.people, workspace.references, workspace.sign_ins = people, references, sign_ins
    workspace.save(update_fields=["people", "references", "sign_ins"])
    return workspace


def workspace_template_get_or_build(*, replicas, seed: int, variant: str = "default") -> Workspace:
    configs = _validate_workspace(replicas, seed, variant)
    lookup = dict(
        replicas=",".join(c.label for c in configs),
        seed=seed,
        variant=variant,
        generator_version=workspace_generator_version(configs),
    )
    template = Workspace.objects.filter(is_template=True, **lookup).first()
    if template is not None:
        return template
    try:
        return workspace_generate(replicas=replicas, seed=seed, variant=variant, is_template=True)
    except IntegrityError:
        # another process built the same template at the same moment: use theirs
        return Workspace.objects.get(is_template=True, **lookup)


def workspace_create(*, replicas, seed: int, variant: str = "default", faults: dict | None = None) -> Workspace:
    """A fresh workspace: a clone of every member of the cached template, in one transaction.

    `faults` maps a member's replica to the faults armed in its world (each list validated against that
    replica, with the variant's own, as a world's are: a bad spec raises FaultSpecError and makes nothing)."""
    names = _replica_names(replicas)
    faults = faults or {}
    if not isinstance(faults, dict) or set(faults) - set(names):
        raise InvalidWorldRequest(f"faults must map members of the workspace ({', '.join(names)}) to fault lists")
    armed = {name: faults_for_world(replica=name, variant=variant, faults=faults.get(name)) for name in names}
    template = workspace_template_get_or_build(replicas=replicas, seed=seed, variant=variant)
    with transaction.atomic():
        workspace = Workspace.objects.create(
            token=secrets.token_hex(8),
            replicas=template.replicas,
            seed=template.seed,
            variant=template.variant,
            generator_version=template.generator_version,
            template=template,
            people=template.people,
            references=template.references,
            sign_ins=template.sign_ins,
        )
        for member in workspace_worlds(template):
            world = world_clone(source=member, faults=armed[member.replica], workspace=workspace)
            if world.faults:
                faults_arm(world=world)
    return workspace


def workspace_worlds(workspace: Workspace) -> list[World]:
    """The member worlds, in replica name order."""
    return list(World.objects.filter(workspace=workspace).order_by("replica"))


def workspace_world(workspace: Workspace, replica: str) -> World:
    world = World.objects.filter(workspace=workspace, replica=replica).first()
    if world is None:
        raise LookupError(f"workspace {workspace.token} has no {replica!r} world (it has {workspace.replicas})")
    return world


def workspace_clock(workspace: Workspace):
    """The group's now (its members agree on it)."""
    return max(w.clock for w in workspace_worlds(workspace))


@transaction.atomic
def workspace_clock_advance(*, workspace: Workspace, seconds: float):
    """Move the group's clock: every member to the same new now, each running its replica's automations."""
    if seconds < 0:
        raise ValueError("the world clock never goes back")
    worlds = workspace_worlds(workspace)
    target = max(w.clock for w in worlds) + timedelta(seconds=seconds)
    for world in worlds:
        world_clock_advance(world=world, seconds=(target - world.clock).total_seconds())
    return target


def workspace_snapshot(workspace: Workspace) -> dict:
    """The group's state: each member's snapshot under its replica's name."""
    worlds = {}
    for world in workspace_worlds(workspace):
        with bound_world(world):
            worlds[world.replica] = snapshot(world)
    return {"workspace": workspace.replicas, "worlds": worlds}


def workspace_state_hash(snap: dict) -> str:
    return state_hash(snap)


def workspace_diff(before: dict, after: dict) -> dict:
    """Per member the world diff (rows added, removed, changed), with the group's totals and hashes."""
    worlds = {
        replica: diff(before["worlds"][replica], after["worlds"][replica])
        for replica in sorted(set(before["worlds"]) & set(after["worlds"]))
    }
    totals = {key: sum(d["totals"][key] for d in worlds.values()) for key in ("added", "removed", "changed")}
    return {"before": state_hash(before), "after": state_hash(after), "totals": totals, "worlds": worlds}


@transaction.atomic
def workspace_delete(*, workspace: Workspace) -> None:
    for world in workspace_worlds(workspace):
        world_delete(world=world)
    Workspace.objects.filter(pk=workspace.pk).delete()


def workspace_gc(*, older_than: timedelta) -> dict:
    """Delete workspaces none of whose worlds was used for `older_than`, and templates of outdated generators."""
    cutoff = djtz.now() - older_than
    stale = list(
        Workspace.objects.filter(is_template=False)
        .annotate(last_used=Max("worlds__last_used_at"))
        .filter(Q(last_used__lt=cutoff) | Q(last_used__isnull=True))
    )
    outdated = [t for t in Workspace.objects.filter(is_template=True) if _outdated(t)]
    for workspace in stale + outdated:
        workspace_delete(workspace=workspace)
    return {"workspaces": len(stale), "templates": len(outdated)}


def _outdated(template: Workspace) -> bool:
    try:
        configs = [get_replica(name) for name in template.replicas.split(",")]
    except LookupError:
        return True
    return workspace_generator_version(configs) != template.generator_version


def workspace_sign_ins(workspace: Workspace) -> list[dict]:
    """The shared people with their one sign-in: email, the workspace password, and the apps it opens."""
    from_key = {person["key"]: person for persons in workspace.people.values() for person in persons}
    apps: dict[str, list[str]] = {}
    for replica, people in sorted(workspace.sign_ins.items()):
        for key in people.values():
            apps.setdefault(key, []).append(replica)
    return [
        {
            "person": key,
            "name": from_key[key]["name"],
            "email": from_key[key]["email"],
            "password": workspace_password(seed=workspace.seed, person=key),
            "apps": replicas,
        }
        for key, replicas in sorted(apps.items())
    ]


def group_label(replicas) -> str:
    """A group's name where one replica's would stand (a task's, a verifier's, a snapshot's): its replicas
    in name order joined by commas, as `Workspace.replicas` holds them."""
    return ",".join(_replica_names(replicas))


def episode_snapshot(world: World) -> dict:
    """The state an episode in `world` is judged on: the world's snapshot or, for a member of a workspace,
    the group's as one document, every member's tables under their names (which carry the replica's label,
    so they never collide) and the group's label as its replica."""
    if world.workspace_id is None:
        return snapshot(world)
    tables = {}
    for member in World.objects.filter(workspace_id=world.workspace_id).order_by("replica"):
        with bound_world(member):
            tables.update(snapshot(member)["tables"])
    return {"replica": world.workspace.replicas, "tables": dict(sorted(tables.items()))}
