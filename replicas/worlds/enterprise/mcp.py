"""A compiled replica's operations as MCP tools (the official `mcp` SDK): one tool per tool of its graph.json (list,
read, create, edit, each transition), typed from the spec, each a thin client of the world's REST endpoint of the
same operation (api.py). So a tool honours exactly the roles and policies the endpoint does, and works against any
served world: the server is given the world's origin and the person it acts as (HTTP Basic, as the REST API).

Run: `manage.py factory mcp DOMAIN --url ORIGIN --email EMAIL --password PASSWORD` (stdio)."""

import inspect
from decimal import Decimal
from typing import Annotated, Any, Literal

import httpx2
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from .domain import Domain

NUMBER = "The record's number (1004 for TO-1004)."
TIMEOUT = 60
# a field's type as a tool parameter, by the spec's field types (services.value_clean reads each of these)
KIND_TYPES = {
    "string": str,
    "text": str,
    "email": str,
    "date": str,
    "integer": int,
    "money": Decimal,
    "boolean": bool,
    "ref": int | str,
}


def _field_type(field: dict):
    if field["type"] == "choice":
        return Literal[tuple(field["choices"])]
    return KIND_TYPES[field["type"]]


def _field_description(field: dict) -> str:
    what = {
        "date": " (YYYY-MM-DD)",
        "ref": f" (the {field.get('to', 'record').replace('_', ' ')}'s number or code)",
        "money": " (an amount, at most two decimals)",
    }.get(field["type"], "")
    limits = (("min", "at least"), ("max", "at most"))
    bounds = "".join(f", {word} {field[key]}" for key, word in limits if key in field)
    return f"{field['label']}{what}{bounds}."


def _parameter(name: str, kind, description: str, required: bool) -> inspect.Parameter:
    annotated = Annotated[kind if required else kind | None, Field(description=description)]
    default = inspect.Parameter.empty if required else None
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotated, default=default)


class ReplicaTools:
    """The tools of one replica against one world's origin, acting as one person."""

    def __init__(self, domain: Domain, graph: dict, http: httpx2.AsyncClient):
        self.domain = domain
        self.graph = graph
        self.http = http

    def _fields(self, entity: dict, names: list[str]) -> list[inspect.Parameter]:
        params = []
        for name in names:
            if name == "currency":
                field = {"name": "currency", "label": "Currency", "type": "choice", "required": True}
                field["choices"] = sorted(self.domain.spec["currencies"])
            else:
                field = self.domain.field(entity, name)
            required = bool(field.get("required")) and field["type"] != "boolean"
            params.append(_parameter(name, _field_type(field), _field_description(field), required))
        return params

    def _shape(self, tool: dict) -> tuple[dict, str, list[inspect.Parameter], str]:
        """(entity, kind, parameters, description) of a graph tool: kind list, get, create, edit or transition."""
        parts = tool["path"].removeprefix("/api/").split("/")
        entity = self.domain.by_slug[parts[0]]
        label, number = entity["label"].lower(), _parameter("number", int, NUMBER, True)
        if "to" in tool:
            move = self.domain.move(entity, parts[2].replace("-", "_"))
            need = {"required": "required", "optional": "optional", "none": "not asked for"}[move["comment"]]
            comment = _parameter("comment", str, f"Why (a comment is {need}).", False)
            roles = ", ".join(tool["roles"])
            states = " or ".join(move["from"])
            text = f"{move['label']} a {label} ({states} -> {move['to']}; roles: {roles})."
            return entity, "transition", [number, comment], text
        if tool["method"] == "GET" and len(parts) > 1:
            return entity, "get", [number], f"Read one {label} by its number."
        if tool["method"] == "GET":
            params = [
                _parameter("q", str, "Text to search for, or a code.", False),
                _parameter("page", int, "The page of 50 records, from 1.", False),
            ]
            machine = entity.get("machine")
            if machine:
                state = Literal[tuple(machine["states"])]
                params.insert(0, _parameter(machine["field"], state, "Only the records in this state.", False))
            return entity, "list", params, f"List the {entity['plural'].lower()} (50 a page, by number)."
        if len(parts) == 1:
            names = [f["name"] for f in entity["fields"] if not f.get("derived")]
            names += ["currency"] if entity["has_currency"] else []
            text = f"Create a {label} (roles: {', '.join(tool['roles'])})."
            return entity, "create", self._fields(entity, names), text
        text = (
            f"Edit a {label} (roles: {', '.join(tool['roles'])}). Send every editable field: one left out is "
            "cleared, as the REST endpoint does."
        )
        return entity, "edit", [number, *self._fields(entity, entity["edit"]["fields"])], text

    async def call(self, tool: dict, kind: str, values: dict) -> dict:
        """The REST call of one tool; its JSON answer, or ToolError with the endpoint's error."""
        values = {name: value for name, value in values.items() if value is not None}
        path = tool["path"].replace("{number}", str(values.pop("number", "")))
        try:
            if kind in ("list", "get"):
                response = await self.http.get(path, params=values)
            else:
                body = {name: str(value) if isinstance(value, Decimal) else value for name, value in values.items()}
                response = await self.http.post(path, json=body)
        except httpx2.HTTPError as exc:
            raise ToolError(f"the world at {self.http.base_url} did not answer: {exc}") from None
        if not response.headers.get("content-type", "").startswith("application/json"):
            # a page rather than the API's JSON: no world at that origin, or not this replica's
            raise ToolError(f"{response.status_code}: {self.http.base_url} answered with no JSON (is it a world?)")
        document = response.json()
        if response.is_error:
            fields = document.get("fields")
            raise ToolError(f"{response.status_code}: {document.get('error')}" + (f" {fields}" if fields else ""))
        return document

    def function(self, tool: dict):
        entity, kind, params, description = self._shape(tool)

        async def run(**values) -> dict[str, Any]:
            return await self.call(tool, kind, values)

        run.__signature__ = inspect.Signature(params, return_annotation=dict[str, Any])
        run.__annotations__ = {p.name: p.annotation for p in params} | {"return": dict[str, Any]}
        run.__name__ = tool["name"]
        # the wording of the MCP definition the anchor imported for this operation (factory/mcp_import.py), if any
        return run, (tool.get("mcp") or {}).get("description") or description

    def server(self) -> MCPServer:
        server = MCPServer(
            name=self.domain.label,
            instructions=(
                f"The operations of {self.domain.spec['brand']['name']}, one tool each, acting as the person this "
                "server signs in as; a tool refused by a role or a policy returns the reason as an error."
            ),
        )
        for tool in self.graph["tools"]:
            function, description = self.function(tool)
            server.add_tool(function, name=tool["name"], description=description)
        return server


def replica_mcp_server(
    domain: Domain, graph: dict, *, url: str, email: str, password: str, http: httpx2.AsyncClient | None = None
) -> MCPServer:
    """The MCP server of a replica's tools against the world served at `url`, acting as `email`. `http` replaces the
    HTTP client (its base URL and credentials with it): a test's in-process transport."""
    http = http or httpx2.AsyncClient(base_url=url, auth=(email, password), timeout=TIMEOUT)
    return ReplicaTools(domain, graph, http).server()
