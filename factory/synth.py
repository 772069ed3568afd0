"""Task synthesis: for each state transition of a built replica, a grounded task over its data (who acts, on which
record), run once in a sandbox world through the replica's own services; the run's diff is the answer key, and the
verifier's state assertions and allowed changes are read from it. Needs the replica installed (a second process
after the build wrote its files)."""

import importlib

from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete
from replicas.worlds.snapshot import diff, snapshot

# fields a transition always changes with the time: an assertion on them would pin the world clock
CLOCK_FIELDS = {"updated_at", "at"}
COMMENT = "Checked against the purchasing policy."
SIGN_IN = [
    'fill("#id_email", "{user_email}")',
    'fill("#id_password", "{user_password}")',
    "click(\"role=button[name='Sign in']\")",
]


def _modules(replica: str):
    config = get_replica(replica)
    return importlib.import_module(f"{config.name}.domain"), importlib.import_module(f"{config.name}.services")


def _candidates(domain, services, entity: dict, move: dict, limit: int) -> list[tuple]:
    """(record, actor, other record) triples where the actor may make the move: records in order, actors present
    before those away; `other` is another record in a start state (what a careless agent acts on instead)."""
    model = domain.model(entity["name"])
    people = list(domain.person_model().objects.filter(role__in=move["roles"]).order_by("out_of_office", "number"))
    records = list(model.objects.filter(**{f"{entity['machine']['field']}__in": move["from"]}).order_by("number"))
    found = []
    for record in records:
        actor = next(
            (p for p in people if not services.transition_blockers(entity=entity, record=record, move=move, actor=p)),
            None,
        )
        if actor is not None:
            other = next((r for r in records if r.pk != record.pk), None)
            found.append((record, actor, other))
        if len(found) == limit:
            break
    return found


def _verifier(run: dict, spec: dict) -> dict:
    audit_table = f"{spec['domain']}.auditentry"
    prefixes = {f"{spec['domain']}.{e['model'].lower()}": e["prefix"] for e in spec["entities"]}
    assertions, allowed = [], []
    for table, changes in sorted(run["tables"].items()):
        for key, fields in sorted(changes["changed"].items()):
            expect = {name: value["to"] for name, value in sorted(fields.items()) if name not in CLOCK_FIELDS}
            assertions.append(
                {
                    "name": f"{prefixes[table]}{key} is {', '.join(f'{k} {v}' for k, v in expect.items())}",
                    "kind": "state",
                    "table": table,
                    "where": {"number": int(key)},
                    "expect": {"count": 1, "fields": expect},
                }
            )
            allowed.append(
                {"table": table, "ops": ["changed"], "where": {"number": int(key)}, "fields": sorted(fields)}
            )
        for _key, row in sorted(changes["added"].items()):
            if table != audit_table:
                raise ValueError(f"a transition added a row to {table}: the synthesiser reads only audit entries")
            where = {"record": row["record"], "action": row["action"]}
            assertions.append(
                {
                    "name": f"the audit log records {row['action']} of {row['record']}",
                    "kind": "state",
                    "table": table,
                    "where": where,
                    "expect": {"count": 1, "fields": {"actor": row["actor"], "detail": row["detail"]}},
                }
            )
            allowed.append({"table": table, "ops": ["added"], "where": where})
        if changes["removed"]:
            raise ValueError(f"a transition removed rows of {table}")
    assertions.append({"name": "nothing else changed", "kind": "diff", "only_allowed": True})
    return {"assertions": assertions, "allowed_changes": allowed}


def _task(domain, spec, entity, move, record, actor, other, run) -> dict:
    code = domain.code(entity, record.number)
    title = getattr(record, entity["title"])
    comment = COMMENT if move["comment"] != "none" else ""
    instruction = (
        f'Sign in as {{user_email}} (password {{user_password}}). Apply the action "{move["label"]}" to '
        f'{entity["label"].lower()} {code} ("{title}").'
    )
    for guard in move["guards"]:
        policy = domain.POLICIES[guard]
        assignee = getattr(record, policy["field"]) if policy["kind"] == "delegated_approver" else None
        if assignee is not None and assignee.pk != actor.pk:
            instruction += f" You are standing in for {assignee.name}, who is away."
    if comment:
        instruction += f' Give the comment "{comment}".'
    instruction += " Change nothing else."
    act = [f'fill("#id_comment_{move["name"]}", "{comment}")'] if comment else []
    act.append(f"click(\"role=button[name='{move['label']}']\")")
    negatives = []
    if other is not None:
        negatives.append(
            {
                "name": f"acts on {domain.code(entity, other.number)} instead",
                "actions": [*SIGN_IN, f'goto("/{entity["slug"]}/{other.number}")', *act],
            }
        )
    slug = f"{move['slug']}-{entity['name'].replace('_', '-')}-{record.number}"
    return {
        "slug": slug,
        "title": f"{move['label']}: {entity['label'].lower()} {code}",
        "difficulty": "medium" if move["guards"] else "easy",
        "replica": spec["domain"],
        "seed": spec["tasks"]["seed"],
        "variant": "small",
        "params": [{"name": "user", "picker": "person", "args": {"number": actor.number}}],
        "instruction": instruction,
        "start_page": f"/{entity['slug']}/{record.number}",
        "limits": {"max_steps": 12, "max_seconds": 180, "step_seconds": 30},
        "verifier": _verifier(run, spec),
        "reference_solution": [*SIGN_IN, *act],
        "negative_examples": negatives,
        "tags": ["factory", spec["domain"], entity["name"]],
    }


def tasks_synthesise(*, replica: str) -> list[dict]:
    """The replica's task pack, in the anchor's order of entities and transitions."""
    domain, services = _modules(replica)
    spec = domain.SPEC
    seed = spec["tasks"]["seed"]
    world = world_create(replica=replica, seed=seed, variant="small")
    tasks = []
    try:
        for entity in spec["entities"]:
            for move in (entity["machine"] or {}).get("transitions", []):
                with bound_world(world):
                    picked = _candidates(domain, services, entity, move, spec["tasks"]["per_transition"])
                for record, actor, other in picked:
                    sandbox = world_create(replica=replica, seed=seed, variant="small")
                    try:
                        before = snapshot(sandbox)
                        with bound_world(sandbox):
                            services.transition_apply(
                                entity=entity,
                                record=domain.model(entity["name"]).objects.get(number=record.number),
                                move_name=move["name"],
                                actor=domain.person_model().objects.get(number=actor.number),
                                comment=COMMENT if move["comment"] != "none" else "",
                            )
                        run = diff(before, snapshot(sandbox))
                    finally:
                        world_delete(world=sandbox)
                    with bound_world(world):
                        tasks.append(_task(domain, spec, entity, move, record, actor, other, run))
    finally:
        world_delete(world=world)
    return tasks
