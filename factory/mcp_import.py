"""Importing MCP tool definitions into an anchor (issue 33): an anchor that names `mcp: FILE` (a `tools/list`
result in its folder, `{"tools": [{name, description, inputSchema}, ...]}`) maps each tool to an operation of one of
its entities: `list`, `get`, `create`, `edit` or one of the entity's transitions. A tool maps by its name,
`<verb>_<entity>` (`approve_purchase_order`, `update_` is `edit_`), or through the anchor's `mcp_names`
(`{tool: <verb>_<entity>}`) for definitions named otherwise. Its input schema is checked against what that
operation takes (a create's or an edit's properties are fields of the entity the operation may write; a transition
takes the record's `number` and a `comment`), and a transition whose comment the anchor leaves unsaid takes it from
the schema: `required` when the schema requires `comment`, `optional` when it only has one. The entity records the
tools it serves (`tools`: verb -> name and description), which graph.json and the replica's MCP server carry.
Every problem is (path, message), a path into the file as FILE#/json/pointer; nothing is written unless the whole
import succeeds."""

import json
from pathlib import Path

from .openapi import _pointer

SIMPLE = ("list", "get", "create", "edit")
SYNONYMS = {"update": "edit"}
IDENTITY = "number"  # the record a get, an edit or a transition acts on


class MCPImportError(ValueError):
    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{path}: {message}" for path, message in errors))


def definitions_read(path: Path) -> tuple[list, bytes]:
    """The tool definitions of the file at `path`, checked for shape; MCPImportError naming each bad one."""
    name = path.name
    if not path.is_file():
        raise MCPImportError([(name, f"{path} does not exist")])
    raw = path.read_bytes()
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        raise MCPImportError([(name, f"not valid JSON: {exc}")]) from None
    tools = doc.get("tools") if isinstance(doc, dict) else None
    if not isinstance(tools, list) or not tools:
        raise MCPImportError([(f"{name}{_pointer('tools')}", "must be a non-empty list (a tools/list result)")])
    errors = []
    for i, tool in enumerate(tools):
        at = f"{name}{_pointer('tools', i)}"
        if not isinstance(tool, dict):
            errors.append((at, "a tool definition is a mapping"))
            continue
        if not isinstance(tool.get("name"), str) or not tool["name"]:
            errors.append((f"{at}/name", "required string is missing"))
        if not isinstance(tool.get("description", ""), str):
            errors.append((f"{at}/description", "must be a string"))
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            errors.append((f"{at}/inputSchema", "must be a JSON Schema of type object"))
        elif not isinstance(schema.get("properties", {}), dict) or not isinstance(schema.get("required", []), list):
            errors.append((f"{at}/inputSchema", "properties must be a mapping and required a list"))
    if errors:
        raise MCPImportError(errors)
    return tools, raw


def _verbs(entity: dict) -> list[str]:
    """What the replica serves on an entity: list and get always, create and edit when the anchor allows them,
    each transition of its machine."""
    verbs = ["list", "get", *(v for v in ("create", "edit") if v in entity)]
    moves = (entity.get("machine") or {}).get("transitions", [])
    return verbs + [m["name"] for m in moves if isinstance(m, dict) and isinstance(m.get("name"), str)]


def _target(operation: str, entities: dict) -> tuple[str, str] | None:
    """(entity, verb) of `<verb>_<entity>`, the longest entity name that ends it; None when none does."""
    for name in sorted(entities, key=len, reverse=True):
        if operation.endswith(f"_{name}"):
            verb = operation.removesuffix(f"_{name}")
            return name, SYNONYMS.get(verb, verb)
    return None


def _input_errors(tool: dict, entity: dict, verb: str, at: str) -> list[tuple[str, str]]:
    """What the tool's input schema asks for that the operation does not take."""
    fields = {f["name"] for f in entity.get("fields", [])}
    takes = {
        "list": {"q", "page", (entity.get("machine") or {}).get("field")},
        "get": {IDENTITY},
        "create": fields | {"currency"},
        "edit": {IDENTITY, *entity.get("edit", {}).get("fields", [])},
    }.get(verb, {IDENTITY, "comment"})
    errors = []
    for prop in tool["inputSchema"].get("properties", {}):
        if prop not in takes:
            what = "a transition" if verb not in SIMPLE else f"{verb} of {entity['name']}"
            known = ", ".join(sorted(t for t in takes if t))
            errors.append((f"{at}/inputSchema/properties/{prop}", f"{what} takes no {prop!r} (it takes {known})"))
    return errors


def anchor_import(anchor: dict, folder: Path) -> tuple[dict, bytes]:
    """The anchor with each entity's `tools` imported from its MCP definitions, and the file's bytes (part of the
    anchor's hash); MCPImportError naming each problem's path otherwise."""
    file = anchor.get("mcp")
    if not isinstance(file, str) or not file or Path(file).name != file:
        raise MCPImportError([("mcp", "must name a file in the anchor's folder, such as tools.json")])
    names = anchor.get("mcp_names", {})
    if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
        raise MCPImportError([("mcp_names", "must map tool names to operations such as approve_purchase_order")])
    tools, raw = definitions_read(Path(folder) / file)
    if not isinstance(anchor.get("entities"), list):
        raise MCPImportError([("entities", "must be a list")])
    entities = {e["name"]: e for e in anchor["entities"] if isinstance(e, dict) and isinstance(e.get("name"), str)}
    errors: list[tuple[str, str]] = []
    imported: dict[str, dict] = {}
    seen: dict[tuple[str, str], str] = {}
    for i, tool in enumerate(tools):
        at = f"{file}{_pointer('tools', i)}"
        operation = names.get(tool["name"], tool["name"])
        target = _target(operation, entities)
        verbs = _verbs(entities[target[0]]) if target else []
        if target is None or target[1] not in verbs:
            hint = f" ({target[0]} serves {', '.join(verbs)})" if target else f" (entities: {', '.join(entities)})"
            errors.append(
                (
                    f"{at}/name",
                    f"{tool['name']!r} maps to no operation: name it <verb>_<entity> or map it in mcp_names{hint}",
                )
            )
            continue
        if target in seen:
            errors.append((f"{at}/name", f"{target[1]}_{target[0]} is already the tool {seen[target]!r}"))
            continue
        seen[target] = tool["name"]
        entity_name, verb = target
        errors += _input_errors(tool, entities[entity_name], verb, at)
        entry = {"name": tool["name"], "description": tool.get("description", "")}
        imported.setdefault(entity_name, {})[verb] = (entry, tool["inputSchema"])
    for tool in names:
        if tool not in {t["name"] for t in tools}:
            errors.append((f"mcp_names.{tool}", f"{file} defines no tool {tool!r}"))
    if errors:
        raise MCPImportError(errors)
    expanded = [_entity(e, imported.get(e.get("name"), {})) if isinstance(e, dict) else e for e in anchor["entities"]]
    return {**anchor, "entities": expanded}, raw


def _entity(entity: dict, found: dict[str, tuple[dict, dict]]) -> dict:
    """The entity with the tools it serves, and each transition's comment from its tool when the anchor has none."""
    if not found:
        return entity
    out = {**entity, "tools": {verb: entry for verb, (entry, _) in sorted(found.items())}}
    machine = entity.get("machine")
    if isinstance(machine, dict) and isinstance(machine.get("transitions"), list):
        moves = []
        for move in machine["transitions"]:
            schema = found.get(move.get("name"), (None, {}))[1] if isinstance(move, dict) else {}
            if isinstance(move, dict) and "comment" not in move and "comment" in schema.get("properties", {}):
                move = {**move, "comment": "required" if "comment" in schema.get("required", []) else "optional"}
            moves.append(move)
        out["machine"] = {**machine, "transitions": moves}
    return out
