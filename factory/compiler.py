"""Compiling an anchor into a replica folder: the spec the replica runs on, its models, AppConfig, brand stylesheet
and tool graph, and the thin modules that bind the shared enterprise runtime (replicas/worlds/enterprise/: pages,
REST endpoints, writes, seed generator) to it, as files. Pure: the same anchor gives the same bytes."""

import json
from pathlib import Path

from replicas.worlds.enterprise.variants import FAMILIES, families_json

SKELETON = Path(__file__).parent / "skeleton"
# skeleton file -> where it goes in the replica: the modules that bind the shared runtime to the replica's spec
BINDINGS = {
    "runtime.pyt": "runtime.py",
    "urls.pyt": "urls.py",
    "seed.pyt": "seed.py",
    "params.pyt": "tasks/params.py",
}
DEFAULT_BRAND = {"tagline": "", "color": "#2454a6"}


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def entity_names(entity: dict) -> tuple[str, str, str]:
    """(label, plural, slug) of an anchor entity: the slug is its pages' first path segment (/purchase-orders)."""
    label = entity.get("label", _label(entity["name"]))
    plural = entity.get("plural", f"{label}s")
    return label, plural, plural.lower().replace(" ", "-")


def spec_compile(anchor: dict, anchor_sha256: str) -> dict:
    """The anchor with every default filled in: what the replica's runtime reads (spec.json)."""
    layers = list(anchor.get("layers", []))
    currency = anchor.get("currency", "USD")
    entities = []
    for entity in anchor["entities"]:
        label, plural, slug = entity_names(entity)
        fields = []
        for field in entity["fields"]:
            out = {"label": _label(field["name"]), "required": False, **field}
            if field["type"] == "money" and "product" in field.get("seed", {}):
                out["derived"] = field["seed"]["product"]
            fields.append(out)
        machine = None
        if "machine" in entity:
            machine = {**entity["machine"]}
            machine["seed"] = machine.get("seed") or dict.fromkeys(machine["states"], 1)
            machine["transitions"] = [
                {"label": _label(m["name"]), "guards": [], "comment": "none", "slug": m["name"].replace("_", "-"), **m}
                for m in machine["transitions"]
            ]
        entities.append(
            {
                **entity,
                "label": label,
                "plural": plural,
                "slug": slug,
                "model": _camel(entity["name"]),
                "fields": fields,
                "machine": machine,
                "has_currency": "multi_currency" in layers and any(f["type"] == "money" for f in fields),
            }
        )
    policies = [
        {"message": f"The {_label(p['name']).lower()} policy does not allow this.", **p}
        for p in anchor.get("policies", [])
    ]
    return {
        "domain": anchor["domain"],
        "anchor_sha256": anchor_sha256,
        "brand": {
            **DEFAULT_BRAND,
            "email_domain": f"{anchor['domain']}.example",
            **anchor["brand"],
        },
        "currency": currency,
        "currencies": anchor.get("currencies", {currency: 1}),
        "sizes": anchor.get("sizes", {"small": 1, "default": 3}),
        "layers": layers,
        "roles": [{"label": _label(r["name"]), "out_of_office": 0, **r} for r in anchor["roles"]],
        "entities": entities,
        "policies": policies,
        "tasks": {"seed": 7, "per_transition": 1, "per_walk": 1, "per_edit": 1, **anchor.get("tasks", {})},
        # the context pages (factory.anchor.docs_read): slug, title and Markdown, which the runtime renders
        "docs": anchor.get("pages", []),
    }


# --- models ------------------------------------------------------------------------------------------


def _field_code(field: dict, models: dict) -> str:
    kind, required = field["type"], field["required"]
    if kind == "ref":
        target = "Person" if field["to"] == "person" else models[field["to"]]
        null = "" if required else "null=True, blank=True, "
        return f'WorldForeignKey({target}, {null}on_delete=models.PROTECT, related_name="+", db_index=False)'
    if kind == "string":
        return f'models.CharField(max_length={field.get("max_length", 200)}, blank=True, default="")'
    if kind == "email":
        return 'models.EmailField(max_length=254, blank=True, default="")'
    if kind == "text":
        return 'models.TextField(blank=True, default="")'
    if kind == "choice":
        width = max(len(c) for c in field["choices"])
        choices = ", ".join(f"({c!r}, {c!r})" for c in field["choices"])
        return f'models.CharField(max_length={width}, choices=[{choices}], blank=True, default="")'
    if kind == "integer":
        return "models.IntegerField()" if required else "models.IntegerField(null=True, blank=True)"
    if kind == "money":
        null = "" if required else "null=True, blank=True"
        return f"models.DecimalField(max_digits=14, decimal_places=2{', ' + null if null else ''})"
    if kind == "date":
        return "models.DateField(null=True, blank=True)"
    return "models.BooleanField(default=False)"


def models_source(spec: dict) -> str:
    domain = spec["domain"]
    names = {e["name"]: e["model"] for e in spec["entities"]}
    roles = ", ".join(f"({r['name']!r}, {r['label']!r})" for r in spec["roles"])
    role_width = max(len(r["name"]) for r in spec["roles"])
    out = [
        f'"""{spec["brand"]["name"]}: the models compiled from the anchor (environment factory; rebuild, do '
        'not edit)."""',
        "",
        "from django.db import models",
        "",
        "from replicas.worlds.models import WorldForeignKey, WorldModel, world_unique",
        "",
        "",
        "class Person(WorldModel):",
        '    """Someone who signs in: a role, an approval limit in the home currency, maybe away with a delegate."""',
        "",
        "    number = models.PositiveIntegerField()",
        "    name = models.CharField(max_length=100)",
        "    email = models.EmailField()",
        f"    role = models.CharField(max_length={role_width}, choices=[{roles}])",
        "    approval_limit = models.DecimalField(max_digits=14, decimal_places=2, default=0)",
        "    out_of_office = models.BooleanField(default=False)",
        '    delegate = WorldForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, '
        'related_name="+", db_index=False)',
        "",
        '    public_key = ("number",)',
        "",
        "    class Meta:",
        f'        constraints = [world_unique("{domain}_person_number", "number")]',
        "",
        "    def __str__(self):",
        "        return self.name",
    ]
    for entity in spec["entities"]:
        out += [
            "",
            "",
            f"class {entity['model']}(WorldModel):",
            f'    """{entity["label"]} ({entity["prefix"]}…)."""',
            "",
        ]
        out.append("    number = models.PositiveIntegerField()")
        for field in entity["fields"]:
            out.append(f"    {field['name']} = {_field_code(field, names)}")
        if entity["has_currency"]:
            out.append(f'    currency = models.CharField(max_length=3, default="{spec["currency"]}")')
        machine = entity["machine"]
        if machine:
            width = max(len(s) for s in machine["states"])
            states = ", ".join(f"({s!r}, {_label(s)!r})" for s in machine["states"])
            out.append(
                f"    {machine['field']} = models.CharField(max_length={width}, choices=[{states}], "
                f"default={machine['initial']!r})"
            )
            for stamp in sorted({m["stamp"] for m in machine["transitions"] if m.get("stamp")}):
                out.append(
                    f"    {stamp} = WorldForeignKey(Person, null=True, blank=True, on_delete=models.SET_NULL, "
                    'related_name="+", db_index=False)'
                )
        out += [
            "    created_at = models.DateTimeField()",
            "    updated_at = models.DateTimeField()",
            "",
            '    public_key = ("number",)',
            "",
            "    class Meta:",
            f'        constraints = [world_unique("{domain}_{entity["name"]}_number", "number")]',
            "",
            "    def __str__(self):",
            f'        return f"{entity["prefix"]}{{self.number}}"',
        ]
    out += [
        "",
        "",
        "class AuditEntry(WorldModel):",
        '    """One write, as the audit log shows it: who did what to which record, when."""',
        "",
        "    number = models.PositiveIntegerField()",
        "    at = models.DateTimeField()",
        '    actor = WorldForeignKey(Person, null=True, on_delete=models.SET_NULL, related_name="+", db_index=False)',
        "    entity = models.CharField(max_length=40)",
        "    record = models.CharField(max_length=20)",
        "    action = models.CharField(max_length=40)",
        '    detail = models.TextField(blank=True, default="")',
        "",
        '    public_key = ("number",)',
        "",
        "    class Meta:",
        f'        constraints = [world_unique("{domain}_auditentry_number", "number")]',
        "",
    ]
    return "\n".join(out)


# --- the AppConfig -----------------------------------------------------------------------------------


def apps_source(spec: dict, bench_task: str) -> str:
    domain = spec["domain"]
    start = {"approvals": "/approvals", **{e["slug"]: f"/{e['slug']}" for e in spec["entities"]}, "sign-in": "/login"}
    derived = {
        f"{domain}.{e['model'].lower()}": [f["name"] for f in e["fields"] if f.get("derived")] + ["updated_at"]
        for e in spec["entities"]
    }
    derived[f"{domain}.auditentry"] = ["number", "at"]
    roles = tuple(r["name"] for r in spec["roles"])
    brand = spec["brand"]
    return f'''# imported as a module so that apps.py defines exactly one AppConfig, which Django then picks
from replicas.worlds.enterprise import config


class {_camel(domain)}Config(config.EnterpriseConfig):
    """{brand["name"]}: compiled by the environment factory (manage.py factory build) from the anchor of sha256
    {spec["anchor_sha256"][:16]}; every file of this folder is generated: change the anchor and rebuild. Its pages,
    REST endpoints, writes and seed generator are the shared enterprise runtime (replicas/worlds/enterprise/)."""

    name = "replicas.{domain}"
    label = "{domain}"
    verbose_name = {brand["name"]!r}
    default_auto_field = "django.db.models.BigAutoField"

    start_pages = {start!r}
    login_path = "/login"
    roles = {roles!r}
    bench_task = {bench_task!r}
    pickers = {{"person": "replicas.{domain}.tasks.params:person"}}
    audit = {{"credential_params": ["user_email", "user_password"], "derived": {derived!r}}}
'''


# --- the tool graph ----------------------------------------------------------------------------------


def tools(spec: dict) -> list[dict]:
    """Every operation of the REST API as a tool: what it needs and what it gives."""
    out = []
    for entity in spec["entities"]:
        first = len(out)
        name, slug = entity["name"], entity["slug"]
        refs = [f for f in entity["fields"] if f["type"] == "ref" and f["to"] != "person"]
        out.append({"name": f"list_{name}", "method": "GET", "path": f"/api/{slug}", "needs": [], "gives": [name]})
        out.append(
            {"name": f"get_{name}", "method": "GET", "path": f"/api/{slug}/{{number}}", "needs": [name], "gives": []}
        )
        if "create" in entity:
            out.append(
                {
                    "name": f"create_{name}",
                    "method": "POST",
                    "path": f"/api/{slug}",
                    "needs": [f["to"] for f in refs if f["required"]],
                    "optional": [f["to"] for f in refs if not f["required"]],
                    "gives": [name],
                    "roles": entity["create"]["roles"],
                }
            )
        if "edit" in entity:
            out.append(
                {
                    "name": f"edit_{name}",
                    "method": "POST",
                    "path": f"/api/{slug}/{{number}}",
                    "needs": [name],
                    "gives": [],
                    "roles": entity["edit"]["roles"],
                }
            )
        for move in (entity["machine"] or {}).get("transitions", []):
            out.append(
                {
                    "name": f"{move['name']}_{name}",
                    "method": "POST",
                    "path": f"/api/{slug}/{{number}}/{move['slug']}",
                    "needs": [name],
                    "from": move["from"],
                    "to": move["to"],
                    "gives": [],
                    "roles": move["roles"],
                    "guards": move["guards"],
                }
            )
        _operations_name(out[first:], entity)
    return out


def _operations_name(entity_tools: list[dict], entity: dict) -> None:
    """Name the OpenAPI operation each tool of an imported entity serves (factory/openapi.py; a transition is
    the document's update of the record's status) and the MCP tool definition it was mapped from
    (factory/mcp_import.py: its name and description)."""
    operations = entity.get("operations") or {}
    definitions = entity.get("tools") or {}
    for tool in entity_tools:
        kind = tool["name"].removesuffix(f"_{entity['name']}")
        operation = operations.get(kind if kind in ("list", "get", "create", "edit") else "edit")
        if operation:
            tool["operation"] = operation["id"]
        if kind in definitions:
            tool["mcp"] = definitions[kind]


def graph(spec: dict) -> dict:
    """The weighted dependency graph of the tools: 3 when one's output is another's required input (a record it
    lists or creates, a state it moves a record into that the other starts from), 2 when it is an optional
    input, 1 (not listed) between independent tools."""
    nodes = tools(spec)
    edges = []
    for a in nodes:
        for b in nodes:
            if a is b:
                continue
            weight = 0
            if set(a["gives"]) & set(b["needs"]):
                weight = 3
            elif "to" in a and "from" in b and a["needs"] == b["needs"] and a["to"] in b["from"]:
                weight = 3
            elif set(a["gives"]) & set(b.get("optional", [])):
                weight = 2
            if weight:
                edges.append({"from": a["name"], "to": b["name"], "weight": weight})
    return {"domain": spec["domain"], "default_weight": 1, "tools": nodes, "edges": edges}


def recipe_source(spec: dict) -> str:
    """The replica's authoring recipe (tests/authoring_recipe.py), which the platform's authoring test reads for every
    installed replica: count the records of a later entity that refer to one of the first entity's."""
    first = spec["entities"][0]
    child, ref = next(
        (e, f)
        for e in spec["entities"]
        for f in e["fields"]
        if f["type"] == "ref" and f["to"] == first["name"] and f["required"]
    )
    domain = spec["domain"]
    recipe = {
        "title": f"Count a {first['label'].lower()}'s {child['plural'].lower()}",
        "record": first["name"],
        "table": f"{domain}.{first['model'].lower()}",
        "where": "{}",
        # the editor test makes the slug <replica>-<answer>-count: a word, no underscore
        "answer": "".join(ch for ch in child["plural"].lower().split()[-1] if ch.isalpha()),
        "field": (f"{first['name']}_{first['title']}", f"{first['name']}.{first['title']}"),
        "aggregate": (
            "count",
            f"{domain}.{child['model'].lower()}",
            None,
            json.dumps({ref["name"]: "{" + first["name"] + "}"}),
        ),
        "instruction": (
            f"How many {child['plural'].lower()} name the {first['label'].lower()} "
            f"{{{first['name']}_{first['title']}}}? Reply with the number only."
        ),
        "start_page": f"/{child['slug']}",
    }
    return (
        '"""What an author does in the task editor to make a task of this compiled replica from scratch, read by\n'
        "the platform's authoring test (tests/frontend/test_authoring_browser.py). Written by the environment "
        'factory."""'
        f"\n\nRECIPE = {recipe!r}\n"
    )


# --- the folder --------------------------------------------------------------------------------------


def _json(doc) -> str:
    return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def replica_files(spec: dict, bench_task: str, families: int = 0) -> dict[str, str]:
    """Every file of the replica but its migration and its tasks: path inside the folder -> text. `families`: how many
    variant families it serves (its families file, which its runtime derives them from)."""
    domain = spec["domain"]
    files = {
        "__init__.py": f'"""{spec["brand"]["name"]}: a replica compiled by the environment factory from its '
        'anchor."""\n',
        "apps.py": apps_source(spec, bench_task),
        "models.py": models_source(spec),
        "spec.json": _json(spec),
        "graph.json": _json(graph(spec)),
        FAMILIES: families_json(families),
        "migrations/__init__.py": "",
        "tests/__init__.py": "",
        "tests/authoring_recipe.py": recipe_source(spec),
        "tasks/__init__.py": '"""The synthesised task pack: one JSON file per task, its answer key recorded in '
        'a sandbox world."""\n',
        f"static/{domain}/brand.css": (
            f"/* {spec['brand']['name']}: the brand over the factory's UI kit */\n"
            f":root {{ --brand: {spec['brand']['color']}; }}\n"
        ),
    }
    for source, target in BINDINGS.items():
        text = (SKELETON / source).read_text()
        files[target] = text.replace("__ANCHOR_SHA256__", spec["anchor_sha256"])
    return files
