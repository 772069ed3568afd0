"""`{name}` placeholders of task files, filled from a task's params (its answer key).

One rule for every part of a task: instruction, start page, actions, fault specs and
the verifier spec. A string that is exactly `"{name}"` becomes the param's value with
its JSON type; inside a longer string the value is spliced in as text (escaped under
keys whose strings are regular expressions). `{{` and `}}` stand for literal braces.
"""

import copy
import json
import re

PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")


class MissingParam(ValueError):
    """A placeholder with no param; `path` is its JSON path in the filled value."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}" if path else message)
        self.path, self.message = path, message


def placeholder_paths(value, path: str = ""):
    """(JSON path, name) of every placeholder in the value's strings."""
    if isinstance(value, str):
        for m in PLACEHOLDER.finditer(value):
            yield path, m.group(1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from placeholder_paths(v, f"{path}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from placeholder_paths(v, f"{path}.{k}" if path else k)


def fill(value, params: dict, *, regex_keys=frozenset(), strict: bool = True):
    """A copy of `value` with its placeholders filled from `params`.

    Strict (the default): a placeholder with no param raises MissingParam. With
    `strict=False` (a value that may be filled already) such placeholders stay and
    braces are not unescaped, so filling twice changes nothing more.
    """
    params = params or {}

    def missing(path, name, shown):
        known = ", ".join(sorted(params)) or "none"
        raise MissingParam(path, f"no param {name!r} for placeholder {shown} (params: {known})")

    def walk(node, path, key):
        if isinstance(node, dict):
            return {k: walk(v, f"{path}.{k}" if path else k, k) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, f"{path}[{i}]", key) for i, v in enumerate(node)]
        if not isinstance(node, str):
            return copy.deepcopy(node)
        whole = PLACEHOLDER.fullmatch(node)
        if whole:
            name = whole.group(1)
            if name in params:
                return copy.deepcopy(params[name])
            if strict:
                missing(path, name, repr(node))
            return node

        def splice(m):
            name = m.group(1)
            if name not in params:
                if strict:
                    missing(path, name, f"{{{name}}}")
                return m.group(0)
            value = params[name]
            text = value if isinstance(value, str) else json.dumps(value)
            return re.escape(text) if key in regex_keys else text

        filled = PLACEHOLDER.sub(splice, node)
        return filled.replace("{{", "{").replace("}}", "}") if strict else filled

    return walk(value, "", None)


def fill_text(text: str, params: dict) -> str:
    """A string with its placeholders filled, always as text (an instruction, a page, an action)."""
    filled = fill(text, params)
    return filled if isinstance(filled, str) else str(filled)
