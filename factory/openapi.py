"""Importing an OpenAPI 3 document into an anchor (issue 33): an anchor that names `openapi: FILE` gets, for each
entity that names a `schema` of the document, its fields (types, lengths, bounds, required, enums as choices, ids
and $refs of other imported schemas as relations), the states of its machine from the enum of its status property,
and the document's operations on that schema (list, get, create, edit, delete), which become the replica's tools.
What a document does not carry (the brand, roles, who may make which transition, policies, seeds, layers) stays in
anchor.yaml. Every problem is (path, message): a path into the document as FILE#/json/pointer, or into the anchor;
the anchor is expanded in memory and nothing is written unless the whole import succeeds."""

import re
from pathlib import Path

import yaml

VERSION = re.compile(r"^3\.\d+\.\d+$")
ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"
METHODS = ("get", "post", "put", "patch", "delete")
TEXT_ABOVE = 500  # a longer string than the anchor's string type holds is text
CHOICE_WIDTH = 40


class OpenAPIError(ValueError):
    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{path}: {message}" for path, message in errors))


def _pointer(*parts) -> str:
    return "#/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def document_read(path: Path) -> tuple[dict, bytes]:
    """The OpenAPI document at `path`, checked for what the import relies on; OpenAPIError otherwise."""
    name = path.name
    if not path.is_file():
        raise OpenAPIError([(name, f"{path} does not exist")])
    raw = path.read_bytes()
    try:
        doc = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise OpenAPIError([(name, f"not valid YAML or JSON: {exc}")]) from None
    errors = document_errors(doc, name)
    if errors:
        raise OpenAPIError(errors)
    return doc, raw


def document_errors(doc, name: str) -> list[tuple[str, str]]:
    if not isinstance(doc, dict):
        return [(name, "an OpenAPI document is a mapping")]
    errors = []
    if not isinstance(doc.get("openapi"), str) or not VERSION.match(doc["openapi"]):
        errors.append((f"{name}{_pointer('openapi')}", "must be an OpenAPI 3 version such as 3.0.3"))
    info = doc.get("info")
    if not isinstance(info, dict) or not all(isinstance(info.get(k), str) for k in ("title", "version")):
        errors.append((f"{name}{_pointer('info')}", "must be a mapping with a title and a version"))
    for key, parent in (("paths", ()), ("schemas", ("components",))):
        node = doc
        for part in parent:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict) or not node.get(key) or not isinstance(node[key], dict):
            errors.append((f"{name}{_pointer(*parent, key)}", "required mapping is missing or empty"))
    if errors:
        return errors
    for route, item in doc["paths"].items():
        if not isinstance(item, dict):
            errors.append((f"{name}{_pointer('paths', route)}", "a path item is a mapping"))
            continue
        for method in METHODS:
            op = item.get(method)
            if op is not None and not (isinstance(op, dict) and isinstance(op.get("operationId"), str)):
                errors.append((f"{name}{_pointer('paths', route, method)}", "an operation needs an operationId"))
    _ref_errors(doc, doc, (), name, errors)
    return errors


def _ref_errors(doc, node, at: tuple, name: str, errors: list) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                if _resolve(doc, value) is None:
                    errors.append((f"{name}{_pointer(*at, key)}", f"unresolved reference {value!r}"))
            else:
                _ref_errors(doc, value, (*at, key), name, errors)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _ref_errors(doc, value, (*at, i), name, errors)


def _resolve(doc, ref: str):
    """The node a local reference points to, or None (a reference outside the document is not followed)."""
    if not ref.startswith("#/"):
        return None
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _deref(doc, node: dict) -> dict:
    """Follow $refs (and a single-member allOf) down to a schema, keeping the outermost title."""
    title = node.get("title")
    for _ in range(20):  # a reference cycle ends here rather than hanging the build
        if "$ref" in node:
            node = _resolve(doc, node["$ref"])
        elif len(node.get("allOf", [])) == 1:
            node = node["allOf"][0]
        else:
            break
        title = title or node.get("title")
    return {**node, "title": title} if title else node


# --- operations --------------------------------------------------------------------------------------


def _subject(doc, node, depth: int = 0) -> str | None:
    """The component schema an operation's body or response is about: through $refs, `data` and array items."""
    if not isinstance(node, dict) or depth > 8:
        return None
    ref = node.get("$ref")
    if isinstance(ref, str):
        parts = ref.split("/")
        if ref.startswith("#/components/schemas/") and len(parts) == 4:
            target = _resolve(doc, ref)
            inner = _subject(doc, target, depth + 1)
            return inner or (parts[3] if target.get("type", "object") == "object" else None)
        return _subject(doc, _resolve(doc, ref), depth + 1)
    for key in ("content", "schema", "items", "properties", "data"):
        if key in node:
            inner = node[key]
            if key == "content":
                inner = inner.get("application/json", {})
            elif key == "properties":
                inner = inner.get("data", {})
            found = _subject(doc, inner, depth + 1)
            if found:
                return found
    return None


def _kind(method: str, route: str) -> str:
    item = route.rstrip("/").endswith("}")
    return {
        ("get", False): "list",
        ("post", False): "create",
        ("get", True): "get",
        ("patch", True): "edit",
        ("put", True): "edit",
        ("delete", True): "delete",
    }.get((method, item), "other")


def document_operations(doc: dict) -> dict[str, dict[str, dict]]:
    """schema name -> kind -> the first operation of that kind on it, in the document's order."""
    out: dict[str, dict[str, dict]] = {}
    for route, item in doc["paths"].items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            kind = _kind(method, route)
            # a delete answers with an id alone: it is about what a get of the same path returns
            about = item.get("get") if kind == "delete" and isinstance(item.get("get"), dict) else op
            body = about.get("requestBody") or {}
            ok = [v for code, v in sorted((about.get("responses") or {}).items()) if str(code).startswith("2")]
            subject = _subject(doc, body) or next((s for s in (_subject(doc, r) for r in ok) if s), None)
            if subject and kind != "other":
                found = {"id": op["operationId"], "method": method.upper(), "path": route}
                out.setdefault(subject, {}).setdefault(kind, found)
    return out


# --- fields ------------------------------------------------------------------------------------------


def _field(doc, prop: dict, name: str, required: bool, refs: dict, at: str) -> tuple[dict | None, tuple | None]:
    """The anchor field of one schema property, or (path, the reason it has none)."""
    raw_ref = prop.get("$ref", "")
    if raw_ref.startswith("#/components/schemas/") and raw_ref.split("/")[-1] in refs:
        return {"name": name, "type": "ref", "to": refs[raw_ref.split("/")[-1]], "required": required}, None
    schema = _deref(doc, prop)
    out: dict = {"name": name, "required": required}
    if isinstance(schema.get("title"), str) and len(schema["title"]) <= 40:
        out["label"] = schema["title"]
    kind, fmt = schema.get("type"), schema.get("format")
    if name.endswith("_id") and name[:-3] in refs.values():
        return {**out, "name": name[:-3], "type": "ref", "to": name[:-3]}, None
    if kind == "string" and "enum" in schema:
        choices = [str(v) for v in schema["enum"] if v is not None]
        if not choices or any(len(c) > CHOICE_WIDTH for c in choices):
            return None, (at, f"an enum needs 1 or more values of at most {CHOICE_WIDTH} characters")
        return {**out, "type": "choice", "choices": choices}, None
    if kind == "string":
        if fmt == "email":
            return {**out, "type": "email"}, None
        if fmt in ("date", "date-time") or schema.get("pattern") == ISO_DATE:
            return {**out, "type": "date"}, None
        length = schema.get("maxLength")
        if isinstance(length, int) and length > TEXT_ABOVE:
            return {**out, "type": "text"}, None
        return {**out, "type": "string", **({"max_length": length} if isinstance(length, int) else {})}, None
    if kind in ("integer", "number"):
        bounds = {k: schema[o] for k, o in (("min", "minimum"), ("max", "maximum")) if isinstance(schema.get(o), int)}
        return {**out, "type": "integer" if kind == "integer" else "money", **bounds}, None
    if kind == "boolean":
        return {**out, "type": "boolean"}, None
    return None, (at, f"type {kind or 'unknown'!r} has no field type in the anchor (string, number, boolean, a ref)")


def _entity(doc, name: str, entity: dict, at: str, refs: dict, ops: dict, errors: list) -> dict:
    """One anchor entity with its schema imported: the document's fields, then the anchor's own; the machine's
    states from the status enum; the operations on the schema."""
    schema_name = entity["schema"]
    where = f"{name}{_pointer('components', 'schemas', schema_name)}"
    schema = _deref(doc, doc["components"]["schemas"][schema_name])
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    overlay = entity.get("properties") or {}
    if not isinstance(overlay, dict):
        errors.append((f"{at}.properties", "must map property names to field settings"))
        return entity
    fields = []
    for prop_name, extra in overlay.items():
        if prop_name not in props:
            errors.append((f"{at}.properties.{prop_name}", f"{schema_name} has no property {prop_name!r} ({where})"))
            continue
        if extra is not None and not isinstance(extra, dict):
            errors.append((f"{at}.properties.{prop_name}", "must be a mapping of field settings (or empty)"))
            continue
        field, problem = _field(
            doc, props[prop_name], prop_name, prop_name in required, refs, f"{where}/properties/{prop_name}"
        )
        if problem:
            errors.append(problem)
            continue
        fields.append({**field, **(extra or {})})
    out = {k: v for k, v in entity.items() if k != "properties"}
    out["fields"] = fields + list(entity.get("fields", []))
    machine = entity.get("machine")
    if isinstance(machine, dict) and machine.get("field") in props:
        status = _deref(doc, props[machine["field"]])
        enum = [str(v) for v in status.get("enum", []) if v is not None]
        if not enum:
            errors.append((f"{where}/properties/{machine['field']}", "the machine's field has no enum of states"))
        for i, state in enumerate(machine.get("states", [])):
            if state not in enum:
                errors.append((f"{at}.machine.states[{i}]", f"{state!r} is not in the enum of {machine['field']}"))
        out["machine"] = {**machine, "states": machine.get("states", enum)}
    found = ops.get(schema_name, {})
    for key, kind in (("create", "create"), ("edit", "edit")):
        if key in entity and kind not in found:
            errors.append((f"{at}.{key}", f"the document has no {kind} operation on {schema_name}"))
    out["operations"] = dict(sorted(found.items()))
    return out


def anchor_expand(anchor: dict, folder: Path) -> tuple[dict, bytes]:
    """The anchor with every `schema` entity imported from its OpenAPI document, and the document's bytes (part
    of the anchor's hash); OpenAPIError naming each problem's path otherwise."""
    file = anchor.get("openapi")
    if not isinstance(file, str) or not file or Path(file).name != file:
        raise OpenAPIError([("openapi", "must name a file in the anchor's folder, such as openapi.yaml")])
    doc, raw = document_read(Path(folder) / file)
    entities = anchor.get("entities")
    if not isinstance(entities, list):
        raise OpenAPIError([("entities", "must be a list")])
    schemas = doc["components"]["schemas"]
    errors: list[tuple[str, str]] = []
    refs = {}
    for i, entity in enumerate(entities):
        if isinstance(entity, dict) and "schema" in entity:
            if entity["schema"] not in schemas:
                known = ", ".join(sorted(schemas))
                errors.append((f"entities[{i}].schema", f"{entity['schema']!r} is not a schema of {file} ({known})"))
            elif isinstance(entity.get("name"), str):
                refs[entity["schema"]] = entity["name"]
    if errors:
        raise OpenAPIError(errors)
    ops = document_operations(doc)
    expanded = [
        _entity(doc, file, e, f"entities[{i}]", refs, ops, errors) if isinstance(e, dict) and "schema" in e else e
        for i, e in enumerate(entities)
    ]
    if errors:
        raise OpenAPIError(errors)
    return {**anchor, "entities": expanded}, raw
