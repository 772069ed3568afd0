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


def generalise_action(action: str, params: dict) -> str:
    """`action` with each literal that is a param's value written as that param's placeholder, so an action
    recorded on one seed's world plays on another's: a typed value equal to a param, a path segment of a URL
    equal to one, a param of 3 characters or more inside a typed text (at word bounds). The element an
    action addresses is never rewritten (a bid "12" is not note 12). A value two params share is ambiguous
    and stays literal; an action that does not parse comes back as it was."""
    from dataclasses import fields, replace

    from .actions import ActionError, parse_action

    try:
        parsed = parse_action(action)
    except ActionError:
        return action
    owners: dict[str, list[str]] = {}
    for name, value in params.items():
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            owners.setdefault(str(value), []).append(name)
    names = {value: found[0] for value, found in owners.items() if len(found) == 1}
    if not names:
        return action
    words = sorted((v for v in names if len(v) >= 3), key=len, reverse=True)

    def general(text: str) -> str:
        if text in names:
            return "{" + names[text] + "}"
        if text.startswith("/"):
            return "/".join("{" + names[part] + "}" if part in names else part for part in text.split("/"))
        for value in words:
            text = re.sub(rf"(?<![\w@.-]){re.escape(value)}(?![\w@-])", "{" + names[value] + "}", text)
        return text

    skip = fields(parsed)[0].name if parsed.targets_element else None
    changes = {
        f.name: general(getattr(parsed, f.name))
        for f in fields(parsed)
        if f.name != skip and isinstance(getattr(parsed, f.name), str)
    }
    return str(replace(parsed, **changes))
