"""Reading an anchor: anchor.yaml checked against docs/schemas/anchor.schema.json, then the cross-references
a schema cannot state, every problem as (json_path, message); then normalised into the spec a replica runs on."""

import hashlib
from pathlib import Path

import yaml

from replicas.worlds.enterprise.runtime import PAGES
from replicas.worlds.schema_errors import schema_errors, schema_validator

from .compiler import entity_names
from .mcp_import import MCPImportError, anchor_import
from .openapi import OpenAPIError, anchor_expand

SCHEMA = "anchor.schema.json"
PERSON = "person"
# fields every generated model has, so an anchor may not declare them
DOC_BYTES = 64_000  # a context page is a policy or a PRD someone reads in the app, not a manual
RESERVED = {"id", "world", "number", "created_at", "updated_at", "currency", PERSON}


class AnchorError(ValueError):
    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{path}: {message}" if path else message for path, message in errors))


def anchor_read(folder: Path) -> tuple[dict, str]:
    """The anchor of `folder` (its anchor.yaml), valid, and the sha256 of the file; AnchorError otherwise."""
    path = Path(folder) / "anchor.yaml"
    if not path.is_file():
        raise AnchorError([("", f"{path} does not exist")])
    raw = path.read_bytes()
    try:
        doc = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise AnchorError([("", f"{path.name} is not valid YAML: {exc}")]) from None
    if isinstance(doc, dict) and "openapi" in doc:
        # entities imported from an OpenAPI document (factory/openapi.py); the document is part of the hash
        try:
            doc, document = anchor_expand(doc, path.parent)
        except OpenAPIError as exc:
            raise AnchorError(exc.errors) from None
        raw += b"\0" + document
    if isinstance(doc, dict) and "mcp" in doc:
        # each entity's tools mapped from MCP tool definitions (factory/mcp_import.py), after the OpenAPI import
        # so that they are checked against the imported fields; the file is part of the hash
        try:
            doc, definitions = anchor_import(doc, path.parent)
        except MCPImportError as exc:
            raise AnchorError(exc.errors) from None
        raw += b"\0" + definitions
    errors = anchor_errors(doc)
    if errors:
        raise AnchorError(errors)
    doc, pages = docs_read(doc, path.parent)
    return doc, hashlib.sha256(raw + pages).hexdigest()


def docs_read(doc: dict, folder: Path) -> tuple[dict, bytes]:
    """The anchor with its `docs` (PRD and policy documents in Markdown, named by path) read into `pages`, the
    context pages the replica serves: slug (the file's stem), title (its first line, `# Title`) and text; and their
    bytes, part of the anchor's hash (none without docs, so such an anchor's hash is its file's). AnchorError naming
    each file that is missing, not UTF-8, too long or has no title."""
    pages, raw, errors = [], b"", []
    for i, name in enumerate(doc.get("docs", [])):
        file = folder / name
        if not file.is_file():
            errors.append((f"docs[{i}]", f"{name} does not exist in the anchor's folder"))
            continue
        data = file.read_bytes()
        try:
            text = data.decode()
        except UnicodeDecodeError:
            errors.append((f"docs[{i}]", f"{name} is not UTF-8 text"))
            continue
        first = text.split("\n", 1)[0]
        if len(data) > DOC_BYTES:
            errors.append((f"docs[{i}]", f"{name} is longer than {DOC_BYTES} bytes"))
        elif not first.startswith("# ") or not first[2:].strip():
            errors.append((f"docs[{i}]", f"{name} must start with its title, a line '# Title'"))
        else:
            pages.append({"slug": Path(name).stem, "title": first[2:].strip(), "markdown": text})
            raw += b"\0" + data
    if errors:
        raise AnchorError(errors)
    return {**doc, "pages": pages}, raw


def anchor_errors(doc) -> list[tuple[str, str]]:
    errors = schema_errors(schema_validator(SCHEMA), doc)
    if errors:
        return errors  # the cross-references below assume the shapes the schema guarantees
    return _reference_errors(doc)


def _duplicates(items, path: str, errors: list) -> None:
    seen = set()
    for i, item in enumerate(items):
        if item["name"] in seen:
            errors.append((f"{path}[{i}].name", f"{item['name']!r} is declared twice"))
        seen.add(item["name"])


def _reference_errors(doc: dict) -> list[tuple[str, str]]:
    errors: list[tuple[str, str]] = []
    roles = {r["name"] for r in doc["roles"]}
    policies = {p["name"]: p for p in doc.get("policies", [])}
    _duplicates(doc["roles"], "roles", errors)
    _duplicates(doc["entities"], "entities", errors)
    _duplicates(doc.get("policies", []), "policies", errors)
    entities: dict[str, dict] = {}

    def role_errors(names, path):
        for j, name in enumerate(names):
            if name not in roles:
                errors.append((f"{path}[{j}]", f"unknown role {name!r} (roles: {', '.join(sorted(roles))})"))

    for i, entity in enumerate(doc["entities"]):
        at = f"entities[{i}]"
        if entity["name"] in RESERVED:
            errors.append((f"{at}.name", f"{entity['name']!r} is reserved"))
        slug = entity_names(entity)[2]
        if slug in PAGES:
            errors.append(
                (f"{at}.plural", f"its pages would be at /{slug}, a page every replica has: name it otherwise")
            )
        fields = {f["name"]: f for f in entity["fields"]}
        _duplicates(entity["fields"], f"{at}.fields", errors)
        if entity["title"] not in fields:
            errors.append((f"{at}.title", f"{entity['title']!r} is not a field of {entity['name']}"))
        for j, field in enumerate(entity["fields"]):
            _field_errors(field, f"{at}.fields[{j}]", fields, entities, roles, errors)
        for key in ("create", "edit"):
            if key in entity:
                role_errors(entity[key]["roles"], f"{at}.{key}.roles")
        machine = entity.get("machine")
        states = set(machine["states"]) if machine else set()
        if "edit" in entity:
            for j, name in enumerate(entity["edit"]["fields"]):
                if name not in fields or fields[name]["type"] == "ref":
                    errors.append((f"{at}.edit.fields[{j}]", f"{name!r} is not an editable field of {entity['name']}"))
            for j, state in enumerate(entity["edit"].get("states", [])):
                if state not in states:
                    errors.append((f"{at}.edit.states[{j}]", f"unknown state {state!r}"))
        if machine:
            _machine_errors(machine, f"{at}.machine", entity, fields, policies, role_errors, errors)
        entities[entity["name"]] = entity
    pages = sorted(Path(name).stem for name in doc.get("docs", []))
    for i, policy in enumerate(doc.get("policies", [])):
        _policy_errors(policy, f"policies[{i}]", entities, errors)
        if "doc" in policy and policy["doc"] not in pages:
            known = ", ".join(pages) or "none"
            errors.append((f"policies[{i}].doc", f"{policy['doc']!r} is not one of the anchor's docs ({known})"))
    return errors


def _field_errors(field, at, fields, entities, roles, errors) -> None:
    name, kind, seed = field["name"], field["type"], field.get("seed", {})
    if name in RESERVED:
        errors.append((f"{at}.name", f"{name!r} is reserved"))
    if kind == "ref":
        target = field.get("to")
        if target is None:
            errors.append((f"{at}.to", "required key is missing"))
        elif target != PERSON and target not in entities:
            known = ", ".join([PERSON, *entities])
            errors.append((f"{at}.to", f"{target!r} is not an entity declared before this one (known: {known})"))
        if target == PERSON:
            for j, value in enumerate(seed.get("values", [])):
                if value not in roles:
                    errors.append((f"{at}.seed.values[{j}]", f"a person ref draws from roles; unknown role {value!r}"))
    elif "to" in field:
        errors.append((f"{at}.to", "only a ref field refers to an entity"))
    if kind == "choice" and not field.get("choices"):
        errors.append((f"{at}.choices", "required key is missing"))
    for key in ("product",):
        for j, other in enumerate(seed.get(key, [])):
            if other not in fields or fields[other]["type"] not in ("integer", "money"):
                errors.append((f"{at}.seed.{key}[{j}]", f"{other!r} is not a number field of this entity"))
    # a date drawn after another date of the record, a count of the weekdays between two: both read fields the
    # seed has drawn already, so they must come earlier
    earlier = list(fields)[: list(fields).index(name)] if name in fields else []
    dates = {other for other in earlier if fields[other]["type"] == "date"}
    rules = {"after": ("date", [seed["after"]] if "after" in seed else []), "business": ("date", [])}
    rules["business_days"] = ("integer", seed.get("business_days", []))
    for key, (needs, names) in rules.items():
        if key not in seed:
            continue
        if kind != needs:
            errors.append((f"{at}.seed.{key}", f"only a field of type {needs} has it"))
        for j, other in enumerate(names):
            if other not in dates:
                where = f"{at}.seed.{key}" + (f"[{j}]" if key == "business_days" else "")
                errors.append((where, f"{other!r} is not a date field declared before {name!r}"))
    for key in ("copy", "same"):
        if key in seed:
            ref, _, target_field = seed[key].partition(".")
            ref_field = fields.get(ref)
            if ref_field is None or ref_field["type"] != "ref" or ref_field.get("to") not in entities:
                errors.append((f"{at}.seed.{key}", f"{ref!r} is not a ref field to an entity of this anchor"))
            elif target_field not in {f["name"] for f in entities[ref_field["to"]]["fields"]}:
                errors.append((f"{at}.seed.{key}", f"{ref_field['to']} has no field {target_field!r}"))


def _machine_errors(machine, at, entity, fields, policies, role_errors, errors) -> None:
    states = set(machine["states"])
    if machine["field"] in fields:
        errors.append((f"{at}.field", f"{machine['field']!r} is already a field of {entity['name']}"))
    if machine["initial"] not in states:
        errors.append((f"{at}.initial", f"unknown state {machine['initial']!r}"))
    for state in machine.get("seed", {}):
        if state not in states:
            errors.append((f"{at}.seed.{state}", f"unknown state {state!r}"))
    _duplicates(machine["transitions"], f"{at}.transitions", errors)
    for j, move in enumerate(machine["transitions"]):
        where = f"{at}.transitions[{j}]"
        for k, state in enumerate(move["from"]):
            if state not in states:
                errors.append((f"{where}.from[{k}]", f"unknown state {state!r}"))
        if move["to"] not in states:
            errors.append((f"{where}.to", f"unknown state {move['to']!r}"))
        role_errors(move["roles"], f"{where}.roles")
        for k, guard in enumerate(move.get("guards", [])):
            if guard not in policies:
                errors.append((f"{where}.guards[{k}]", f"unknown policy {guard!r}"))
            elif policies[guard]["entity"] != entity["name"]:
                errors.append((f"{where}.guards[{k}]", f"policy {guard!r} is about {policies[guard]['entity']}"))
        stamp = move.get("stamp")
        if stamp is not None and stamp in fields:
            errors.append((f"{where}.stamp", f"{stamp!r} is already a field of {entity['name']}"))


def _policy_errors(policy, at, entities, errors) -> None:
    entity = entities.get(policy["entity"])
    if entity is None:
        errors.append((f"{at}.entity", f"unknown entity {policy['entity']!r}"))
        return
    fields = {f["name"]: f for f in entity["fields"]}

    def need(key, types, follow=False):
        value = policy[key]
        if follow:
            ref, _, name = value.partition(".")
            ref_field = fields.get(ref)
            if ref_field is None or ref_field["type"] != "ref" or ref_field["to"] not in entities:
                errors.append((f"{at}.{key}", f"{ref!r} is not a ref field of {entity['name']}"))
                return
            target = {f["name"]: f for f in entities[ref_field["to"]]["fields"]}.get(name)
        else:
            target = fields.get(value)
        if target is None or target["type"] not in types:
            errors.append((f"{at}.{key}", f"{value!r} is not a {' or '.join(types)} field"))

    kind = policy["kind"]
    if kind == "budget_cap":
        need("amount", ("money",))
    elif kind in ("delegated_approver", "segregation_of_duties"):
        field = fields.get(policy["field"])
        if field is None or field["type"] != "ref" or field["to"] != PERSON:
            errors.append((f"{at}.field", f"{policy['field']!r} is not a ref to a person"))
    elif kind == "three_way_match":
        need("amount", ("money",))
        need("quantity", ("integer",))
        need("order_amount", ("money",), follow=True)
        need("received_quantity", ("integer",), follow=True)
