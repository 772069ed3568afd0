"""The task editor's inputs, generated from the published JSON Schemas.

The fault builder reads docs/schemas/fault.schema.json (one entry per fault of the library,
its parameters with titles, ranges and defaults), the verifier builder
docs/schemas/verifier.schema.json (one set of inputs per assertion kind), the template builder
docs/schemas/template.schema.json: a new fault, assertion kind or template param kind shows up
in the editor without touching it. Tables are picked from the replica's models.
"""

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from django.conf import settings

from catalogue.task_templates import KINDS as PARAM_KINDS
from catalogue.task_templates import function_summary, kind_of
from replicas.worlds.registry import get_replica
from verifiers.fields import tables

SCHEMAS = Path(settings.BASE_DIR) / "docs" / "schemas"
REWARD_SIGNALS = ("task_completion", "efficiency", "error_recovery", "action_precision", "collateral")
LONG_TEXT = {"instruction", "description", "pattern"}


@cache
def schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


def resolve(root: dict, node: dict) -> dict:
    """A schema node with its $ref followed (the referring node's title and description win)."""
    while "$ref" in node:
        target = root
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


@dataclass
class Input:
    name: str  # "<type>:<json path>" (frontend.editor.codec)
    path: str
    label: str
    widget: str  # text, textarea, number, select, multi, json, lines
    value: str = ""
    help: str = ""
    options: list = field(default_factory=list)  # (value, label) pairs
    selected: list = field(default_factory=list)
    refresh: bool = False  # changing it re-renders the form (a kind, a table, the replica)
    chips: list = field(default_factory=list)  # names an author may click to insert (fields, params)
    minimum: int | None = None
    maximum: int | None = None
    optional: bool = False

    @property
    def slot(self) -> str:
        return slot_id(self.path)

    @property
    def rows(self) -> int:
        """A text box as tall as what it holds (a for_each's parts, a reference of twenty actions), within bounds."""
        least = {"textarea": 4, "lines": 5}.get(self.widget, 2)
        return max(least, min(24, self.value.count("\n") + 1))

    @property
    def folded(self) -> bool:
        """An optional input left empty: shown under "More fields" to keep the form short."""
        return self.optional and self.value in ("", "[]") and not self.selected


def slot_id(path: str) -> str:
    return "err-" + "".join(c if c.isalnum() else "-" for c in path)


@dataclass
class Item:
    """One entry of a list section (a template param, a fault, an assertion...)."""

    path: str
    title: str
    inputs: list
    removable: bool = True

    @property
    def folded_count(self) -> int:
        return sum(1 for i in self.inputs if i.folded)


def _text(kind: str, value) -> str:
    if value is None:
        return ""
    if kind in ("s", "i", "n"):
        return str(value)
    if kind == "l":
        return "\n".join(str(v) for v in value) if isinstance(value, list) else str(value)
    if kind == "c":
        return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    if kind == "v" and isinstance(value, str):
        return value
    if kind == "j":
        return (
            json.dumps(value, ensure_ascii=False, indent=1)
            if isinstance(value, (dict, list)) and len(json.dumps(value)) > 60
            else json.dumps(value, ensure_ascii=False)
        )
    return json.dumps(value, ensure_ascii=False)


def make(kind: str, path: str, label: str, widget: str, value, raw: dict, **extra) -> Input:
    text = raw[path] if path in raw and kind != "m" else _text(kind, value)
    return Input(name=f"{kind}:{path}", path=path, label=label, widget=widget, value=text, **extra)


def from_schema(root: dict, node: dict, path: str, value, raw: dict, *, name: str, replica: str, required=()) -> Input:
    """The input a schema property asks for: a choice, a number, a line of text, a list, or JSON."""
    node = resolve(root, node)
    label = node.get("title") or name.replace("_", " ").capitalize()
    label += "" if name in required else " (optional)"
    help_text = node.get("description", "")
    types = node.get("type")
    if name == "table" or (isinstance(types, str) and types == "string" and name == "table"):
        options = [("", "choose a table")] + [(t, t) for t in sorted(tables(replica))]
        return make("s", path, label, "select", value, raw, help=help_text, options=options, refresh=True)
    if "const" in node:
        return make(
            "e",
            path,
            label,
            "select",
            value,
            raw,
            help=help_text,
            options=[("", "(no)"), (json.dumps(node["const"]), "yes" if node["const"] is True else str(node["const"]))],
        )
    if "enum" in node:
        options = ([] if name in required else [("", "(default)")]) + [(json.dumps(v), str(v)) for v in node["enum"]]
        return make(
            "e",
            path,
            label,
            "select",
            value,
            raw,
            help=help_text,
            options=options,
            refresh=name in ("kind", "name") and name in required,
        )
    if types == "integer":
        return make(
            "i",
            path,
            label,
            "number",
            value,
            raw,
            help=help_text,
            minimum=node.get("minimum"),
            maximum=node.get("maximum"),
        )
    if types == "number":
        return make("n", path, label, "number", value, raw, help=help_text)
    if types == "boolean":
        return make(
            "e",
            path,
            label,
            "select",
            value,
            raw,
            help=help_text,
            options=[("", "(default)"), ("true", "yes"), ("false", "no")],
        )
    if types == "string":
        widget = "textarea" if name in LONG_TEXT else "text"
        return make("s", path, label, widget, value, raw, help=help_text)
    items = resolve(root, node.get("items", {})) if types == "array" else {}
    if types == "array" and "enum" in items:
        current = value if isinstance(value, list) else []
        return make(
            "m",
            path,
            label,
            "multi",
            value,
            raw,
            help=help_text,
            options=[(json.dumps(v), str(v)) for v in items["enum"]],
            selected=[json.dumps(v) for v in current],
        )
    if types == "array" and items.get("type") == "string":
        return make("l", path, label, "lines", value, raw, help=help_text + " One per line.")
    if isinstance(types, list) or types is None and "oneOf" not in node and "properties" not in node:
        return make("v", path, label, "text", value, raw, help=help_text + " A number, true/false, or text.")
    return make("j", path, label, "json", value, raw, help=help_text + " JSON.")


def _object_inputs(root, node, path, value, raw, *, replica, skip=()) -> list[Input]:
    node = resolve(root, node)
    value = value if isinstance(value, dict) else {}
    required = tuple(node.get("required", ()))
    names = [n for n in node.get("properties", {}) if n not in skip]
    names.sort(key=lambda n: (n not in ("name",), n not in required))
    inputs = [
        from_schema(
            root, node["properties"][n], f"{path}.{n}", value.get(n), raw, name=n, replica=replica, required=required
        )
        for n in names
    ]
    for i, n in zip(inputs, names, strict=True):
        i.optional = n not in required
    table = value.get("table")
    if table in tables(replica):
        fields = sorted(tables(replica)[table])
        for i in inputs:
            if i.path.rsplit(".", 1)[-1] in ("where", "expect", "changes", "fields", "field"):
                i.chips = fields
    return inputs


# --- the sections ------------------------------------------------------------------------------


def assertion_items(spec: dict, raw: dict, replica: str) -> list[Item]:
    root = schema("verifier")
    kinds = root["properties"]["assertions"]["items"]["properties"]["kind"]["enum"]
    items = []
    for i, assertion in enumerate((spec.get("verifier") or {}).get("assertions") or []):
        path = f"verifier.assertions[{i}]"
        kind = assertion.get("kind") if assertion.get("kind") in kinds else "state"
        kind_input = make(
            "e",
            f"{path}.kind",
            "Kind",
            "select",
            kind,
            raw,
            refresh=True,
            options=[(json.dumps(k), k) for k in kinds],
            help=root["$defs"][kind].get("description", ""),
        )
        inputs = _object_inputs(root, root["$defs"][kind], path, assertion, raw, replica=replica, skip=("kind",))
        items.append(Item(path, f"Assertion {i + 1}: {assertion.get('name') or kind}", [kind_input, *inputs]))
    return items


def allowed_change_items(spec: dict, raw: dict, replica: str) -> list[Item]:
    root = schema("verifier")
    return [
        Item(
            f"verifier.allowed_changes[{i}]",
            f"Allowed change {i + 1}",
            _object_inputs(
                root, root["$defs"]["allowed_change"], f"verifier.allowed_changes[{i}]", rule, raw, replica=replica
            ),
        )
        for i, rule in enumerate((spec.get("verifier") or {}).get("allowed_changes") or [])
    ]


def checkpoint_items(spec: dict, raw: dict, replica: str) -> list[Item]:
    """The verifier's ordered milestones: a name, points, and the names of the assertions that must all hold."""
    root = schema("verifier")
    node = root["properties"]["checkpoints"]["items"]
    verifier = spec.get("verifier") or {}
    named = [a["name"] for a in verifier.get("assertions") or [] if isinstance(a, dict) and a.get("name")]
    items = []
    for i, checkpoint in enumerate(verifier.get("checkpoints") or []):
        path = f"verifier.checkpoints[{i}]"
        inputs = _object_inputs(root, node, path, checkpoint, raw, replica=replica)
        for field_input in inputs:
            if field_input.path == f"{path}.assertions" and named:
                field_input.help += " This verifier's assertions: " + "; ".join(named) + "."
        title = checkpoint.get("name") if isinstance(checkpoint, dict) else None
        items.append(Item(path, f"Checkpoint {i + 1}" + (f": {title}" if title else ""), inputs))
    return items


def fault_names() -> list[str]:
    return schema("fault")["$defs"]["fault"]["properties"]["name"]["enum"]


def fault_items(spec: dict, raw: dict, replica: str) -> list[Item]:
    root = schema("fault")
    info = root["$defs"]["fault"]["properties"]["name"].get("x-faults", {})
    items = []
    for i, fault in enumerate(spec.get("faults") or []):
        path = f"faults[{i}]"
        name = fault.get("name") if fault.get("name") in fault_names() else fault_names()[0]
        name_input = make(
            "e",
            f"{path}.name",
            "Fault",
            "select",
            name,
            raw,
            refresh=True,
            options=[(json.dumps(n), n) for n in fault_names()],
            help=info.get(name, {}).get("description", ""),
        )
        params = _object_inputs(
            root, root["$defs"]["params"][name], f"{path}.params", fault.get("params"), raw, replica=replica
        )
        trigger = []
        if info.get(name, {}).get("triggerable", True):
            trigger = _object_inputs(
                root, root["$defs"]["trigger"], f"{path}.trigger", fault.get("trigger"), raw, replica=replica
            )
        items.append(Item(path, f"Fault {i + 1}: {name}", [name_input, *params, *trigger]))
    return items


def param_items(spec: dict, raw: dict, replica: str, kinds: dict) -> list[Item]:
    """Template params: a name, a kind, and the kind's inputs from template.schema.json."""
    root = schema("template")
    props = root["$defs"]["param"]["properties"]
    config = get_replica(replica)
    steps = spec.get("params") if isinstance(spec.get("params"), list) else []
    items = []
    for i, step in enumerate(steps):
        path = f"params[{i}]"
        kind = kinds.get(path) or next((k for k in PARAM_KINDS if k in step), "pick")
        kind_input = Input(
            name=f"kind:{path}",
            path=f"{path}.kind",
            label="Kind",
            widget="select",
            value=kind,
            refresh=True,
            options=[(k, k) for k in PARAM_KINDS],
            help=resolve(root, props[kind]).get("description", ""),
        )
        inputs = [
            make(
                "s",
                f"{path}.name",
                "Name",
                "text",
                step.get("name"),
                raw,
                help="used as {name} in the instruction, start page, faults and verifier",
            ),
            kind_input,
        ]
        body = step.get(kind)
        node = resolve(root, props[kind])
        if "properties" in node:
            inputs += _object_inputs(root, node, f"{path}.{kind}", body, raw, replica=replica)
        elif kind in ("policy", "picker"):
            refs = config.policies if kind == "policy" else config.pickers
            summaries = {name: function_summary(ref) for name, ref in refs.items()}  # 19 bare names said nothing
            chosen = summaries.get(body) if isinstance(body, str) else ""
            inputs.append(
                make(
                    "s",
                    f"{path}.{kind}",
                    kind.capitalize(),
                    "select",
                    body,
                    raw,
                    options=[("", f"choose a {kind}")]
                    + [(n, f"{n}: {summaries[n]}" if summaries[n] else n) for n in sorted(refs)],
                    help=chosen or node.get("description", ""),
                )
            )
            inputs.append(
                make(
                    "j",
                    f"{path}.args",
                    "Arguments (optional)",
                    "json",
                    step.get("args"),
                    raw,
                    help="JSON object; strings may hold {placeholders} of earlier params.",
                )
            )
            # "" (keep the picker's own keys) differs from no prefix (<name>_), so the choice is a select of JSON values
            prefixes = [("", f"(default: {step.get('name') or 'name'}_)"), ('""', "none: keep the keys as they are")]
            if isinstance(step.get("prefix"), str) and step["prefix"]:
                prefixes.append((json.dumps(step["prefix"]), step["prefix"]))
            inputs.append(
                make(
                    "e",
                    f"{path}.prefix",
                    "Key prefix (optional)",
                    "select",
                    step.get("prefix"),
                    raw,
                    options=prefixes,
                    help=props["prefix"].get("description", ""),
                )
            )
        elif kind == "value":
            inputs.append(make("v", f"{path}.value", "Value", "text", body, raw, help=node.get("description", "")))
        else:
            inputs.append(
                make("s", f"{path}.{kind}", kind.capitalize(), "text", body, raw, help=node.get("description", ""))
            )
        # what every kind may carry: a note for authors, and whether the value stays out of the answer key
        inputs.append(make("s", f"{path}.description", "Description (optional)", "text", step.get("description"), raw))
        inputs.append(
            from_schema(
                root, props["internal"], f"{path}.internal", step.get("internal"), raw, name="internal", replica=replica
            )
        )
        items.append(Item(path, f"Param {i + 1}: {step.get('name') or kind}", inputs))
    return items


def negative_items(spec: dict, raw: dict) -> list[Item]:
    return [
        Item(
            f"negative_examples[{i}]",
            f"Negative example {i + 1}",
            [
                make("s", f"negative_examples[{i}].name", "What it does wrong", "text", ex.get("name"), raw),
                make(
                    "l",
                    f"negative_examples[{i}].actions",
                    "Actions",
                    "lines",
                    ex.get("actions"),
                    raw,
                    help='One action per line, as the agent would write it: click("a51"), '
                    'fill("#id_email", "{agent_email}").',
                ),
            ],
        )
        for i, ex in enumerate(spec.get("negative_examples") or [])
    ]


def basic_inputs(spec: dict, raw: dict, replica_names: list[str]) -> dict[str, Input]:
    replica = spec.get("replica")
    variants = sorted(get_replica(replica).variants) if replica in replica_names else []
    start_pages = list(get_replica(replica).start_pages.values()) if replica in replica_names else []
    limits = spec.get("limits") or {}
    weights = spec.get("reward_weights") or {}
    out = {
        "slug": make(
            "s",
            "slug",
            "Slug",
            "text",
            spec.get("slug"),
            raw,
            help="lowercase words joined by -; the task id is <replica>.<slug>",
        ),
        "title": make("s", "title", "Title", "text", spec.get("title"), raw),
        "difficulty": make(
            "s",
            "difficulty",
            "Difficulty",
            "select",
            spec.get("difficulty"),
            raw,
            options=[("", "choose"), ("easy", "easy"), ("medium", "medium"), ("hard", "hard")],
        ),
        "replica": make(
            "s",
            "replica",
            "Replica",
            "select",
            replica,
            raw,
            refresh=True,
            options=[("", "choose a replica")] + [(r, r) for r in replica_names],
        ),
        "variant": make(
            "s", "variant", "Variant", "select", spec.get("variant"), raw, options=[(v, v) for v in variants]
        ),
        "seed": make(
            "i",
            "seed",
            "Seed",
            "number",
            spec.get("seed"),
            raw,
            minimum=0,
            help="the world the answer key is computed on",
        ),
        "instruction": make(
            "s",
            "instruction",
            "Instruction",
            "textarea",
            spec.get("instruction"),
            raw,
            help="What the agent is told. {name} inserts a param of the template.",
        ),
        "start_page": make(
            "s",
            "start_page",
            "Start page",
            "text",
            spec.get("start_page"),
            raw,
            help="A path in the world; may hold {placeholders}. The replica's pages: " + ", ".join(start_pages),
        ),
        "tags": make("c", "tags", "Tags", "text", spec.get("tags"), raw, help="comma-separated"),
        "description": make(
            "s",
            "description",
            "Notes for authors (optional)",
            "textarea",
            spec.get("description"),
            raw,
            help="Why the task exists and what it tests; agents never see it.",
        ),
        "reference_solution": make(
            "l",
            "reference_solution",
            "Reference solution",
            "lines",
            spec.get("reference_solution"),
            raw,
            help="One action per line; it must pass the verifier. A line for_each t in {list}: action plays it once "
            "per item of a list param (consecutive lines of one head are one block).",
        ),
        "interaction": make(
            "j",
            "interaction",
            "Interaction the task requires (optional)",
            "json",
            spec.get("interaction"),
            raw,
            help='For a task about a UI interaction: {"action": "drag_and_drop", "writes": [{"table": ..., '
            '"id": "{key}"}], "reason": ...} (or a list): those rows must be written by a step of that '
            'action and no other, "fault" names one that must have fired by then. JSON.',
        ),
        "audit": make(
            "j",
            "audit",
            "Mutation audit declarations (optional)",
            "json",
            spec.get("audit"),
            raw,
            help='What audit_tasks is told, each with a one-line reason: {"equivalent": {"<mutant id pattern>": '
            '"why the instruction allows it"}, "unread_params": {"<param>": "why no assertion reads it"}, '
            '"fixed_key": "why the answer is the same on every seed"}. JSON.',
        ),
    }
    for name, label in (
        ("max_steps", "Max steps"),
        ("max_seconds", "Max seconds"),
        ("step_seconds", "World seconds per step"),
    ):
        out[f"limits.{name}"] = make(
            "i", f"limits.{name}", label + " (optional)", "number", limits.get(name), raw, minimum=1
        )
    for signal in REWARD_SIGNALS:
        out[f"reward_weights.{signal}"] = make(
            "n", f"reward_weights.{signal}", signal.replace("_", " ").capitalize(), "number", weights.get(signal), raw
        )
    return out


def param_names(spec: dict, params: dict | None) -> list[str]:
    """The names the instruction may use: the computed answer key's, else the template's own."""
    if params:
        return sorted(params)
    steps = spec.get("params") if isinstance(spec.get("params"), list) else []
    return [s["name"] for s in steps if isinstance(s, dict) and isinstance(s.get("name"), str)]


# param kinds whose body is an object of inputs (the others hold one value)
OBJECT_KINDS = ("pick", "aggregate", "date", "list")


def new_param(kind: str, index: int) -> dict:
    return {"name": f"param_{index + 1}", **({kind: {}} if kind in OBJECT_KINDS else {})}


def step_kind(step: dict) -> str:
    try:
        return kind_of(step)
    except StopIteration:
        return "pick"
