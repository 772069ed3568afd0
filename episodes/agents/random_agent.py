"""A seeded random baseline: valid actions over the visible interactive elements of the AX tree."""

import json
import random
import re

from .base import Agent

_LINE = re.compile(
    r"^(?P<indent>\t*)\[(?P<bid>[a-z]{0,2}\d+)\] (?P<role>\S+)(?: "
    r"(?P<name>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"))?(?P<props>.*)$"
)
_CLICKABLE = {
    "link",
    "button",
    "checkbox",
    "radio",
    "menuitem",
    "tab",
    "switch",
    "option",
    "treeitem",
    "menuitemcheckbox",
    "menuitemradio",
}
_TEXT = {"textbox", "searchbox"}
_WORDS = ("refund", "urgent", "thanks", "order", "duplicate", "invoice", "hello", "42", "escalate", "closed")


def interactive_elements(axtree: str) -> list[dict]:
    """[{bid, role, name, options}] for enabled interactive nodes of a flattened AX tree."""
    found: list[dict] = []
    current_combo = None
    for line in axtree.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        role, props = m["role"], m["props"]
        if "disabled" in props:
            continue
        name = _unquote(m["name"]) if m["name"] else ""
        depth = len(m["indent"])
        if current_combo is not None and depth <= current_combo["depth"]:
            current_combo = None
        if role == "option" and current_combo is not None:
            current_combo["options"].append(name)
            continue
        if role == "combobox" or role == "listbox":
            current_combo = {"bid": m["bid"], "role": role, "name": name, "options": [], "depth": depth}
            found.append(current_combo)
        elif role in _CLICKABLE or role in _TEXT:
            found.append({"bid": m["bid"], "role": role, "name": name, "options": [], "depth": depth})
    return found


def _unquote(text: str) -> str:
    body = text[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


class RandomAgent(Agent):
    """Same seed and same observations give the same actions."""

    name = "random"

    def __init__(self, seed: int = 0):
        super().__init__()
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, not {seed!r}")
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, task_info=None):
        super().reset(task_info)
        self.rng = random.Random(self.seed)

    def act(self, observation) -> str:
        elements = interactive_elements(observation.axtree)
        rng = self.rng
        roll = rng.random()
        if not elements or roll < 0.08:
            return f"scroll(0, {rng.choice((-400, -200, 200, 400))})"
        if roll < 0.12 and observation.step > 0:
            return "go_back()"
        el = rng.choice(elements)
        q = json.dumps
        if el["role"] in _TEXT:
            return f"fill({q(el['bid'])}, {q(rng.choice(_WORDS))})"
        if el["role"] in ("combobox", "listbox"):
            if el["options"]:
                return f"select_option({q(el['bid'])}, {q(rng.choice(el['options']))})"
            return f"click({q(el['bid'])})"
        return f"click({q(el['bid'])})"
