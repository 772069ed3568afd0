"""Task synthesis over a built replica, run once in a sandbox world per task through the replica's own services; the
run's diff is the answer key, and the verifier's state assertions and allowed changes are read from it. Three
sources of tasks, each grounded in the seed's data (who acts, on which record):

- templates over the transitions: one move on a record (`tasks.per_transition` records per move);
- walks on the tool graph (graph.json): chains of 2 or 3 moves joined by strong edges (one move's end state is the
  next one's start state) that one role may all make, on one record (`tasks.per_walk` records per chain);
- templates over the editable fields: one field of a record set to a new value (`tasks.per_edit` records per field).

Needs the replica installed (a second process after the build wrote its files)."""

import datetime
from decimal import Decimal

from django.core.exceptions import ValidationError

from replicas.worlds.enterprise.toolplay import SIGN_IN as SIGN_IN_TOOL
from replicas.worlds.enterprise.toolplay import tool_call
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete
from replicas.worlds.snapshot import diff, snapshot

from .compiler import graph

# fields a write always changes with the time: an assertion on them would pin the world clock
CLOCK_FIELDS = {"updated_at", "at"}
COMMENT = "Checked against the purchasing policy."
TEXT_VALUE = "Updated after the quarterly budget review."
SIGN_IN = [
    'fill("#id_email", "{user_email}")',
    'fill("#id_password", "{user_password}")',
    "click(\"role=button[name='Sign in']\")",
]
WALK_LENGTHS = (2, 3)
TOOLS_SIGN_IN = tool_call(SIGN_IN_TOOL, {"email": "{user_email}", "password": "{user_password}"})


def _modules(replica: str):
    """The replica's Domain and Services (the shared enterprise runtime bound to its spec)."""
    runtime = get_replica(replica).runtime()
    return runtime.domain, runtime.services


def walks(spec: dict) -> dict[tuple, list[str]]:
    """Chains of transition tools of one entity joined by strong edges, shared by at least one role and visiting no
    state twice (a record does not go round in a circle): tool names in order -> the states a record may start from."""
    tools = {t["name"]: t for t in graph(spec)["tools"] if "to" in t}
    after = {}
    for edge in graph(spec)["edges"]:
        if edge["weight"] == 3 and edge["from"] in tools and edge["to"] in tools:
            after.setdefault(edge["from"], []).append(edge["to"])
    found = {}

    def extend(path, roles, start, states):
        if len(path) in WALK_LENGTHS:
            found.setdefault(tuple(path), []).append(start)
        if len(path) == max(WALK_LENGTHS):
            return
        for name in after.get(path[-1], []):
            tool = tools[name]
            shared = roles & set(tool["roles"])
            if shared and tool["to"] not in states:
                extend([*path, name], shared, start, states | {tool["to"]})

    for name, tool in tools.items():
        for start in tool["from"]:
            if start != tool["to"]:
                extend([name], set(tool["roles"]), start, {start, tool["to"]})
    return found


def _actor(domain, services, entity, move, record):
    """The first person who may make `move` on `record`: those present before those away, then by number."""
    people = domain.person_model().objects.filter(role__in=move["roles"]).order_by("out_of_office", "number")
    return next(
        (p for p in people if not services.transition_blockers(entity=entity, record=record, move=move, actor=p)),
        None,
    )


def _edit_value(entity: dict, field: dict, record):
    """A new value for `field` of `record`, the same for the same data: another choice, a later date, a bigger
    number, a revised text."""
    current = getattr(record, field["name"])
    kind = field["type"]
    if kind == "choice":
        return next(c for c in field["choices"] if c != current)
    if kind == "date":
        return (current or datetime.date(2026, 1, 1)) + datetime.timedelta(days=14)
    if kind == "integer":
        return min((current or 0) + 5, field.get("max", (current or 0) + 5))
    if kind == "email":
        return f"accounts{record.number}@{entity['name'].replace('_', '')}.example"
    if kind == "text":
        return TEXT_VALUE
    return f"{current} (revised)"


def _sandbox_run(domain, services, spec, entity, number, actor_number, steps) -> dict:
    """The steps applied to record `number` by person `actor_number` in a fresh world: the diff they make.
    ValidationError or PermissionError when a step may not be made there."""
    sandbox = world_create(replica=spec["domain"], seed=spec["tasks"]["seed"], variant="small")
    try:
        before = snapshot(sandbox)
        with bound_world(sandbox):
            actor = domain.person_model().objects.get(number=actor_number)
            model = domain.model(entity["name"])
            for step in steps:
                record = model.objects.get(number=number)
                if "move" in step:
                    services.transition_apply(
                        entity=entity,
                        record=record,
                        move_name=step["move"]["name"],
                        actor=actor,
                        comment=COMMENT if step["move"]["comment"] != "none" else "",
                    )
                else:
                    data = {name: services_value(getattr(record, name)) for name in entity["edit"]["fields"]}
                    data[step["field"]["name"]] = services_value(step["value"])
                    services.record_update(entity=entity, record=record, actor=actor, data=data)
        return diff(before, snapshot(sandbox))
    finally:
        world_delete(world=sandbox)


def services_value(value) -> str:
    """A field's value as a form sends it."""
    if value is None:
        return ""
    return str(value.number) if hasattr(value, "number") else str(value)


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
                raise ValueError(f"a task added a row to {table}: the synthesiser reads only audit entries")
            where = {"record": row["record"], "action": row["action"]}
            assertions.append(
                {
                    "name": f"the audit log records {row['action']} of {row['record']}",
                    "kind": "state",
                    "table": table,
                    "where": where,
                    "expect": {
                        "count": 1,
                        "fields": {"actor": row["actor"], "entity": row["entity"], "detail": row["detail"]},
                    },
                }
            )
            allowed.append({"table": table, "ops": ["added"], "where": where})
        if changes["removed"]:
            raise ValueError(f"a task removed rows of {table}")
    assertions.append({"name": "nothing else changed", "kind": "diff", "only_allowed": True})
    return {"assertions": assertions, "allowed_changes": allowed}


def _browser(entity: dict, step: dict) -> list[str]:
    """One step as browser actions on the record's page."""
    if "move" in step:
        move = step["move"]
        act = [f'fill("#id_comment_{move["name"]}", "{COMMENT}")'] if move["comment"] != "none" else []
        return [*act, f"click(\"role=button[name='{move['label']}']\")"]
    field, value = step["field"], services_value(step["value"])
    control = f"#id_{field['name']}"
    enter = f'select_option("{control}", "{value}")' if field["type"] == "choice" else f'fill("{control}", "{value}")'
    return ["click(\"role=link[name='Edit']\")", enter, "click(\"role=button[name='Save']\")"]


def _tool_value(value):
    """A field's value as a tool takes it (JSON as the REST endpoint reads it): a record by its number, a date in
    ISO form, an amount as text; None leaves the field out."""
    if hasattr(value, "number"):
        return value.number
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value) if isinstance(value, Decimal) else value


def _tools(entity: dict, record, step: dict) -> list[str]:
    """One step as a call of the replica's tool (enterprise.toolplay): the move's, or the edit's with every editable
    field, as the edit endpoint clears a field left out."""
    if "move" in step:
        move = step["move"]
        comment = {"comment": COMMENT} if move["comment"] != "none" else {}
        return [tool_call(f"{move['name']}_{entity['name']}", {"number": record.number, **comment})]
    values = {name: _tool_value(getattr(record, name)) for name in entity["edit"]["fields"]}
    values[step["field"]["name"]] = _tool_value(step["value"])
    sent = {name: value for name, value in values.items() if value is not None}
    return [tool_call(f"edit_{entity['name']}", {"number": record.number, **sent})]


def _wording(entity: dict, step: dict) -> str:
    if "move" in step:
        return f'"{step["move"]["label"]}"'
    return f"set its {step['field']['label'].lower()} to {services_value(step['value'])}"


def policy_pages(spec: dict, policies: list[dict]) -> list[str]:
    """The titles of the context pages stating `policies` (a policy's `doc`), each once, in title order: what a task
    they govern cites instead of stating their rules."""
    titles = {page["slug"]: page["title"] for page in spec["docs"]}
    return sorted({titles[policy["doc"]] for policy in policies if "doc" in policy})


def _task(domain, spec, entity, record, actor, other, steps, run) -> tuple[dict, list[str]]:
    """The task, and its reference solution by tool calls."""
    code = domain.code(entity, record.number)
    title = getattr(record, entity["title"])
    moves = [step["move"] for step in steps if "move" in step]
    if moves:
        names = " then ".join(_wording(entity, step) for step in steps)
        what = "action" if len(moves) == 1 else "actions"
        instruction = f'Apply the {what} {names} to {entity["label"].lower()} {code} ("{title}").'
    else:
        instruction = f'Open {entity["label"].lower()} {code} ("{title}") and {_wording(entity, steps[0])}.'
    instruction = f"Sign in as {{user_email}} (password {{user_password}}). {instruction}"
    guards = [domain.policies[g] for g in sorted({g for move in moves for g in move["guards"]})]
    for policy in guards:
        assignee = getattr(record, policy["field"]) if policy["kind"] == "delegated_approver" else None
        # a policy with a context page is cited below instead: the agent reads there that a delegate decides
        if assignee is not None and assignee.pk != actor.pk and "doc" not in policy:
            instruction += f" You are standing in for {assignee.name}, who is away."
    for title in policy_pages(spec, guards):
        instruction += f' This is governed by the "{title}" page (Policies): read it and act by it.'
    if any(move["comment"] != "none" for move in moves):
        instruction += f' Give the comment "{COMMENT}".'
    instruction += " Change nothing else."
    acts = [action for step in steps for action in _browser(entity, step)]
    negatives = []
    if len(steps) > 1:
        negatives.append({"name": "stops after the first step", "actions": [*SIGN_IN, *_browser(entity, steps[0])]})
    if other is not None:
        negatives.append(
            {
                "name": f"acts on {domain.code(entity, other.number)} instead",
                "actions": [*SIGN_IN, f'goto("/{entity["slug"]}/{other.number}")', *acts],
            }
        )
    if moves:
        slug = "-then-".join(move["slug"] for move in moves)
        heading = ", then ".join(move["label"] for move in moves)
    else:
        slug = f"edit-{steps[0]['field']['name'].replace('_', '-')}"
        heading = f"Edit the {steps[0]['field']['label'].lower()}"
    reference = [*SIGN_IN, *acts]
    tools = [TOOLS_SIGN_IN, *(call for step in steps for call in _tools(entity, record, step))]
    task = {
        "slug": f"{slug}-{entity['name'].replace('_', '-')}-{record.number}",
        "title": f"{heading}: {entity['label'].lower()} {code}",
        "difficulty": "hard"
        if len(moves) > 2
        else "medium"
        if len(moves) == 2 or any(m["guards"] for m in moves)
        else "easy",
        "replica": spec["domain"],
        "seed": spec["tasks"]["seed"],
        "variant": "small",
        # grounded in the seed's world (this record, in this state, with this actor): the picker refuses every
        # other world, so an episode's variation falls back to the task's own seed (episodes.variation)
        "params": [
            {"name": "user", "picker": "person", "args": {"number": actor.number, "grounded": spec["tasks"]["seed"]}}
        ],
        "instruction": instruction,
        "start_page": f"/{entity['slug']}/{record.number}",
        "limits": {"max_steps": max(12, 2 * len(reference)), "max_seconds": 180, "step_seconds": 30},
        "verifier": _verifier(run, spec),
        "reference_solution": reference,
        "negative_examples": negatives,
        "tags": ["factory", spec["domain"], entity["name"], "walk" if len(steps) > 1 else "template"],
    }
    return task, tools


def _plans(domain, spec):
    """(entity, record, actor, steps, how many) for every task source, in the anchor's order: what to look for."""
    tasks = spec["tasks"]
    for entity in spec["entities"]:
        moves = {move["name"]: move for move in (entity["machine"] or {}).get("transitions", [])}
        for move in moves.values():
            yield entity, [{"move": move}], tasks["per_transition"]
        suffix = f"_{entity['name']}"
        for chain, starts in walks(spec).items():
            if all(name.endswith(suffix) and name[: -len(suffix)] in moves for name in chain):
                steps = [{"move": moves[name[: -len(suffix)]]} for name in chain]
                yield entity, [{**steps[0], "from": starts}, *steps[1:]], tasks["per_walk"]
        for name in (entity.get("edit") or {}).get("fields", []):
            yield entity, [{"field": domain.field(entity, name)}], tasks["per_edit"]


def _candidates(domain, services, entity, steps):
    """(record, actor, steps with their values) to try, records in order; an actor who may make the first step."""
    model = domain.model(entity["name"])
    first = steps[0]
    if "move" in first:
        # a walk starts only from the states it does not come back to
        records = model.objects.filter(
            **{f"{entity['machine']['field']}__in": first.get("from", first["move"]["from"])}
        )
    else:
        records = model.objects.all()
    records = list(records.order_by("number"))
    for record in records:
        if "move" in first:
            actor = _actor(domain, services, entity, first["move"], record)
            filled = steps
        else:
            people = domain.person_model().objects.filter(role__in=entity["edit"]["roles"]).order_by("number")
            actor = next((p for p in people if not services.edit_blocker(entity=entity, record=record, actor=p)), None)
            filled = [{**first, "value": _edit_value(entity, first["field"], record)}]
        if actor is not None:
            other = next((r for r in records if r.pk != record.pk), None)
            yield record, actor, other, filled


def tasks_synthesise(*, replica: str) -> tuple[list[dict], dict[str, list[str]]]:
    """The replica's task pack, in the anchor's order of entities and task sources, and each task's reference
    solution by tool calls (slug -> calls)."""
    domain, services = _modules(replica)
    spec = domain.spec
    world = world_create(replica=replica, seed=spec["tasks"]["seed"], variant="small")
    tasks, tools = [], {}
    try:
        with bound_world(world):
            plans = list(_plans(domain, spec))
        for entity, steps, wanted in plans:
            with bound_world(world):
                candidates = list(_candidates(domain, services, entity, steps))
            made = 0
            for record, actor, other, filled in candidates:
                if made == wanted:
                    break
                try:
                    run = _sandbox_run(domain, services, spec, entity, record.number, actor.number, filled)
                except (PermissionError, ValidationError):
                    continue  # a later step of the walk is not possible on this record: try the next
                with bound_world(world):
                    task, calls = _task(domain, spec, entity, record, actor, other, filled, run)
                # an edit to the value a field already has changes nothing: no task
                if len(task["verifier"]["assertions"]) >= 3 and task["slug"] not in tools:
                    tools[task["slug"]] = calls
                    tasks.append(task)
                    made += 1
    finally:
        world_delete(world=world)
    return tasks, tools
