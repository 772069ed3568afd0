"""Importing MCP tool definitions into an anchor (factory/mcp_import.py): each tool of a `tools/list` result maps to
an entity's operation or transition, which graph.json names with the definition's name and description; a tool the
import cannot map, or an input the operation does not take, is refused with the path of the problem in the file."""

import json
import shutil
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from factory.anchor import AnchorError, anchor_read
from factory.compiler import graph, spec_compile
from replicas.worlds.enterprise.domain import Domain
from replicas.worlds.enterprise.mcp import ReplicaTools

ANCHOR = Path(settings.BASE_DIR) / "anchors" / "procurement"
FILE = "tools.json"


def _tool(name, description="", properties=(), required=()):
    schema = {"type": "object", "properties": {p: {"type": "string"} for p in properties}, "required": list(required)}
    return {"name": name, "description": description, "inputSchema": schema}


GOOD = [
    _tool("search_vendors", "Find suppliers by name or code.", ["q", "page"]),
    _tool("update_vendor", "Change a supplier's contact details.", ["number", "contact_email", "city"]),
    _tool(
        "activate_vendor", "Let a supplier be ordered from, saying why.", ["number", "comment"], ["number", "comment"]
    ),
    _tool("approve_purchase_request", "Approve a request within your limit.", ["number", "comment"]),
]


def _anchor(tmp_path, tools, names=None, body=None):
    """A copy of the procurement anchor naming MCP definitions `tools` (or the raw `body` of the file)."""
    folder = tmp_path / "anchor"
    shutil.copytree(ANCHOR, folder)
    doc = yaml.safe_load((folder / "anchor.yaml").read_text())
    doc["mcp"] = FILE
    if names:
        doc["mcp_names"] = names
    (folder / "anchor.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    (folder / FILE).write_text(body if body is not None else json.dumps({"tools": tools}))
    return folder


def _errors(folder) -> list[tuple[str, str]]:
    with pytest.raises(AnchorError) as caught:
        anchor_read(folder)
    return caught.value.errors


def test_each_tool_maps_to_an_operation_that_graph_json_names(tmp_path):
    folder = _anchor(tmp_path, GOOD, names={"search_vendors": "list_vendor"})
    doc, sha = anchor_read(folder)
    by_name = {t["name"]: t for t in graph(spec_compile(doc, sha))["tools"]}
    assert by_name["list_vendor"]["mcp"] == {"name": "search_vendors", "description": "Find suppliers by name or code."}
    assert by_name["edit_vendor"]["mcp"]["name"] == "update_vendor"  # update_ is edit_
    assert by_name["activate_vendor"]["mcp"]["name"] == "activate_vendor"
    assert by_name["approve_purchase_request"]["mcp"]["name"] == "approve_purchase_request"
    # the tools no definition maps keep no `mcp`
    assert "mcp" not in by_name["get_vendor"] and "mcp" not in by_name["block_vendor"]
    # the definitions are part of the anchor's hash: other definitions, another anchor
    assert sha != anchor_read(_anchor(tmp_path / "other", GOOD[1:]))[1]


def test_the_replicas_mcp_server_describes_a_tool_in_its_definitions_words(tmp_path):
    doc, sha = anchor_read(_anchor(tmp_path, GOOD, names={"search_vendors": "list_vendor"}))
    spec = spec_compile(doc, sha)
    tools = ReplicaTools(Domain(spec), graph(spec), http=None)
    by_name = {t["name"]: t for t in tools.graph["tools"]}
    assert tools.function(by_name["activate_vendor"])[1] == "Let a supplier be ordered from, saying why."
    # a tool no definition maps keeps the wording made from the spec
    assert tools.function(by_name["block_vendor"])[1].startswith("Block a vendor (pending or active -> blocked")


def test_a_transition_takes_its_comment_rule_from_the_input_schema_unless_the_anchor_sets_it(tmp_path):
    tools = [*GOOD, _tool("block_vendor", "Block a supplier.", ["number", "comment"])]
    doc, _ = anchor_read(_anchor(tmp_path, tools, names={"search_vendors": "list_vendor"}))
    vendor = next(e for e in doc["entities"] if e["name"] == "vendor")
    moves = {m["name"]: m for m in vendor["machine"]["transitions"]}
    assert moves["activate"]["comment"] == "required"  # the schema requires it; the anchor says nothing
    assert moves["block"]["comment"] == "required"  # the anchor's own rule wins over the schema's optional comment
    request = next(e for e in doc["entities"] if e["name"] == "purchase_request")
    approve = next(m for m in request["machine"]["transitions"] if m["name"] == "approve")
    assert approve["comment"] == "optional"  # a comment it may take, not required


@pytest.mark.parametrize(
    ("tools", "names", "path", "words"),
    [
        ([_tool("delete_vendor")], None, "tools.json#/tools/0/name", "maps to no operation"),
        ([_tool("ping")], None, "tools.json#/tools/0/name", "maps to no operation"),
        ([_tool("reject_invoice")], None, "tools.json#/tools/0/name", "invoice serves list, get, create"),
        (
            [_tool("edit_vendor", properties=["number", "name"])],
            None,
            "tools.json#/tools/0/inputSchema/properties/name",
            "takes no 'name'",
        ),
        (
            [_tool("block_vendor", properties=["number", "reason"])],
            None,
            "tools.json#/tools/0/inputSchema/properties/reason",
            "a transition takes no 'reason'",
        ),
        ([GOOD[1], _tool("edit_vendor")], None, "tools.json#/tools/1/name", "already the tool 'update_vendor'"),
        (
            [{"name": "get_vendor", "inputSchema": {"type": "string"}}],
            None,
            "tools.json#/tools/0/inputSchema",
            "type object",
        ),
        ([GOOD[1]], {"missing_tool": "list_vendor"}, "mcp_names.missing_tool", "defines no tool"),
    ],
)
def test_what_cannot_be_mapped_is_refused_with_its_path(tmp_path, tools, names, path, words):
    errors = _errors(_anchor(tmp_path, tools, names=names))
    assert any(p == path and words in message for p, message in errors), errors


@pytest.mark.parametrize(
    ("body", "path"),
    [("not json", "tools.json"), ('{"tools": []}', "tools.json#/tools"), ('[{"name": "x"}]', "tools.json#/tools")],
)
def test_a_malformed_file_is_refused(tmp_path, body, path):
    assert [p for p, _ in _errors(_anchor(tmp_path, [], body=body))] == [path]
