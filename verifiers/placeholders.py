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


def placeholder_paths(value, path: str = "", kept=frozenset()):
    """(JSON path, name) of every placeholder in the value's strings that params must fill: a for_each's
    item (`for_each t in {tickets}: ...` lines, a for_each assertion's `as`) is filled by the loop."""
    if isinstance(value, str):
        head = for_each_line(value)
        if head:
            kept = kept | {head[0]}
        for m in PLACEHOLDER.finditer(value):
            if m.group(1) not in kept:
                yield path, m.group(1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from placeholder_paths(v, f"{path}[{i}]", kept)
    elif isinstance(value, dict):
        loop = value.get("kind") == "for_each" and isinstance(value.get("as"), str)
        for k, v in value.items():
            inner = kept | {value["as"]} if loop and k == "assert" else kept
            yield from placeholder_paths(v, f"{path}.{k}" if path else k, inner)


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

    def walk(node, path, key, kept=frozenset()):
        if isinstance(node, dict):
            if node.get("kind") == "for_each" and isinstance(node.get("as"), str):
                # the item's name is filled per item when the assertion is judged (verifiers.engine)
                inner = kept | {node["as"]}
                return {
                    k: walk(v, f"{path}.{k}" if path else k, k, inner if k == "assert" else kept)
                    for k, v in node.items()
                }
            return {k: walk(v, f"{path}.{k}" if path else k, k, kept) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, f"{path}[{i}]", key, kept) for i, v in enumerate(node)]
        if not isinstance(node, str):
            return copy.deepcopy(node)
        whole = PLACEHOLDER.fullmatch(node)
        if whole:
            name = whole.group(1)
            if name in params and name not in kept:
                return copy.deepcopy(params[name])
            if strict and name not in kept:
                missing(path, name, repr(node))
            return node

        def splice(m):
            name = m.group(1)
            if name not in params or name in kept:
                if strict and name not in kept:
                    missing(path, name, f"{{{name}}}")
                return m.group(0)
            text = as_text(params[name])
            return re.escape(text) if key in regex_keys else text

        filled = PLACEHOLDER.sub(splice, node)
        # braces stay escaped where an item is still to be filled: it is filled, and unescaped, once more
        return filled.replace("{{", "{").replace("}}", "}") if strict and not kept else filled

    return walk(value, "", None)


def as_text(value) -> str:
    """A param spliced into text: a string as it is, a list as its items joined by commas (a bulk task's
    tickets read "8003, 8007"), anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(as_text(v) for v in value)
    return json.dumps(value)


FOR_EACH = re.compile(r"^\s*for_each\s+([a-z_][a-z0-9_]*)\s+in\s+\{([A-Za-z_][A-Za-z0-9_]*)\}\s*:\s*(.+)$", re.S)


def for_each_line(action: str):
    """(item name, list param, action) of a `for_each t in {tickets}: action` line; None for a plain action."""
    m = FOR_EACH.match(action)
    return (m.group(1), m.group(2), m.group(3)) if m else None


def expand_actions(actions: list[str], params: dict) -> list[str]:
    """A task's action lines filled from its params, `for_each` lines repeated for each item of their list.

    Consecutive lines with the same head (`for_each t in {tickets}:`) are one block, played in order for
    the first item, then for the next: open, close, save per ticket. A list param that is not a list, or
    an item name a param already has, raises MissingParam naming the line."""
    out, i = [], 0
    while i < len(actions):
        head = for_each_line(actions[i])
        if head is None:
            out.append(fill_text(actions[i], params))
            i += 1
            continue
        item, source, _ = head
        block = []
        while i < len(actions) and (line := for_each_line(actions[i])) and line[:2] == head[:2]:
            block.append(line[2])
            i += 1
        where = f"[{i - len(block)}]"
        if source not in params:
            raise MissingParam(
                where, f"no param {source!r} for for_each (params: {', '.join(sorted(params)) or 'none'})"
            )
        if not isinstance(params[source], list):
            raise MissingParam(where, f"for_each needs a list param; {source!r} holds {params[source]!r}")
        if item in params:
            raise MissingParam(where, f"for_each item {item!r} has the name of a param")
        for value in params[source]:
            out += [fill_text(a, {**params, item: value}) for a in block]
    return out


def fill_text(text: str, params: dict) -> str:
    """A string with its placeholders filled, always as text (an instruction, a page, an action)."""
    filled = fill(text, params)
    return filled if isinstance(filled, str) else str(filled)


# a link's role selector (the recorder's) whose name has no quote or backslash to unescape
LINK_NAME = re.compile(r"role=link\[name='([^'\\]+)'\]")


def generalise_action(action: str, params: dict) -> str:
    """`action` with each literal that is a param's value written as that param's placeholder, so an action
    recorded on one seed's world plays on another's: a typed value equal to a param, a path segment of a URL
    equal to one, a param of 3 characters or more inside a typed text (at word bounds). The element an
    action addresses is never rewritten (a bid "12" is not note 12), but for the name of a link that is a
    param's value as a whole (`role=link[name='{title}']`: the seed's own record; a button's name is the
    page's, a status param "Open" is no "Open" button). A value two params
    share is ambiguous and stays literal; an action that does not parse comes back as it was."""
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
    link = LINK_NAME.fullmatch(getattr(parsed, skip)) if skip else None
    if link and link.group(1) in names:
        changes[skip] = f"role=link[name='{{{names[link.group(1)]}}}']"
    return str(replace(parsed, **changes))
