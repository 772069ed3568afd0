"""The observation space: what an agent sees after each step, and how it is collected.

Elements carry BrowserGym-style `bid` attributes stamped into the DOM (numbers in
document order; new elements get the next numbers, existing ones keep theirs), so
the same actions on the same world give the same bids. The accessibility tree is
Chromium's own (CDP `Accessibility.getFullAXTree`), flattened to text lines such as
`[12] button 'Submit as Solved', focused`, with each node's bid.
"""

import base64
from dataclasses import dataclass, field
from pathlib import Path

ENGINE_JS = (Path(__file__).parent / "js" / "engine.js").read_text()

# Run in the page: install the helper if this document lacks it (about:blank, error
# pages), then stamp bids and report the focused element.
STAMP_JS = f"() => {{ {ENGINE_JS}\n return window.__replicagym.stamp(); }}"
SETTLED_JS = f"(quietMs) => {{ {ENGINE_JS}\n return window.__replicagym.settled(quietMs); }}"
HTML_JS = f"() => {{ {ENGINE_JS}\n return window.__replicagym.html(); }}"

# Roles that say nothing by themselves: shown only through their children.
_TRANSPARENT_ROLES = {"generic", "none", "presentation", "LineBreak", "InlineTextBox"}
# AX properties worth an agent's attention, in this order.
_PROPERTIES = (
    "focused",
    "disabled",
    "required",
    "readonly",
    "invalid",
    "checked",
    "pressed",
    "selected",
    "expanded",
    "level",
    "multiselectable",
    "haspopup",
    "valuemin",
    "valuemax",
    "valuetext",
    "autocomplete",
)
_VALUE_ROLES = {"textbox", "searchbox", "combobox", "spinbutton", "slider", "ListBox", "listbox"}


@dataclass
class Observation:
    url: str
    title: str
    screenshot: bytes
    axtree: str
    focused_bid: str | None
    tabs: list[dict]
    active_tab: int
    instruction: str
    chat: list[dict]
    step: int
    elapsed_ms: float
    last_action: str = ""
    last_action_error: str = ""
    html: str | None = None
    viewport: tuple[int, int] = (1280, 800)
    extra: dict = field(default_factory=dict)

    def to_dict(self, *, screenshot: bool = True) -> dict:
        """JSON-able form (the screenshot as base64 PNG) for HTTP agents and storage."""
        return {
            "url": self.url,
            "title": self.title,
            "screenshot": base64.b64encode(self.screenshot).decode("ascii") if screenshot else None,
            "axtree": self.axtree,
            "focused_bid": self.focused_bid,
            "tabs": self.tabs,
            "active_tab": self.active_tab,
            "instruction": self.instruction,
            "chat": self.chat,
            "step": self.step,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "last_action": self.last_action,
            "last_action_error": self.last_action_error,
            "html": self.html,
            "viewport": list(self.viewport),
        }


def bid_map(dom_root: dict) -> dict[int, str]:
    """backendNodeId -> bid for every stamped element of a CDP `DOM.getDocument` tree."""
    out: dict[int, str] = {}
    stack = [dom_root]
    while stack:
        node = stack.pop()
        attrs = node.get("attributes")
        if attrs:
            for i in range(0, len(attrs) - 1, 2):
                if attrs[i] == "bid":
                    out[node["backendNodeId"]] = attrs[i + 1]
                    break
        stack.extend(node.get("children", ()))
        stack.extend(node.get("shadowRoots", ()))
        if "contentDocument" in node:
            stack.append(node["contentDocument"])
    return out


def _quote(text: str) -> str:
    return repr(" ".join(str(text).split()))


def flatten_axtree(nodes: list[dict], bids: dict[int, str]) -> str:
    """Chromium AX nodes -> indented text lines, one per meaningful node, with bids."""
    if not nodes:
        return ""
    by_id = {n["nodeId"]: n for n in nodes}
    lines: list[str] = []

    def visit(node: dict, depth: int, parent_name: str):
        role = (node.get("role") or {}).get("value", "")
        name = str((node.get("name") or {}).get("value", "") or "").strip()
        children = [by_id[c] for c in node.get("childIds", ()) if c in by_id]
        shown = not node.get("ignored") and not (role in _TRANSPARENT_ROLES and not name)
        if role == "InlineTextBox":
            return
        if role == "StaticText" and (not name or name == parent_name):
            shown = False
        if shown:
            bid = bids.get(node.get("backendDOMNodeId"))
            parts = [f"[{bid}] " if bid is not None else "", role]
            if name:
                parts.append(" " + _quote(name))
            props = []
            value = (node.get("value") or {}).get("value")
            if role in _VALUE_ROLES and value not in (None, ""):
                props.append(f"value={_quote(value)}")
            found = {p["name"]: (p.get("value") or {}).get("value") for p in node.get("properties", ())}
            for key in _PROPERTIES:
                if key not in found:
                    continue
                v = found[key]
                if v is True:
                    props.append(key)
                elif v in (False, None, "", "false") and key not in ("checked", "pressed", "expanded"):
                    continue
                else:
                    props.append(f"{key}={v!r}" if isinstance(v, str) else f"{key}={v}")
            line = "".join(parts) + (", " + ", ".join(props) if props else "")
            lines.append("\t" * depth + line)
        for child in children:
            visit(child, depth + 1 if shown else depth, name if shown else parent_name)

    visit(nodes[0], 0, "")
    return "\n".join(lines)
