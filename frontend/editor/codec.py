"""The task editor's form as a task spec and back: every input is named `<type>:<json path>`.

The type says how the text becomes JSON (`i` integer, `n` number, `s` string, `e` a JSON-encoded
choice, `v` JSON if it parses else text, `j` JSON, `l` one string per line, `c` comma-separated
strings, `m` a multiple choice), so the server rebuilds the spec without knowing the form, and an
error's JSON path names the input it belongs to.
"""

import json
import re
from decimal import Decimal, InvalidOperation

from replicagym.jsonintake import JsonIntakeError, json_intake

PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+\])*")
TOKEN = re.compile(r"([A-Za-z_]\w*)|\[(\d+)\]")
TYPES = set("inseljvcm")


class Form:
    """A decoded form: the spec, the raw text of each input (to show it back), and input errors."""

    def __init__(self):
        self.spec: dict = {}
        self.raw: dict[str, str] = {}
        self.errors: list[tuple[str, str]] = []
        self.paths: list[str] = []


def parse_path(path: str) -> list:
    if not PATH.fullmatch(path):
        raise ValueError(f"bad path {path!r}")
    return [m.group(1) if m.group(1) else int(m.group(2)) for m in TOKEN.finditer(path)]


def put(doc: dict, parts: list, value) -> None:
    node = doc
    for part, following in zip(parts, parts[1:], strict=False):
        empty = [] if isinstance(following, int) else {}
        if isinstance(part, int):
            while len(node) <= part:
                node.append(None)
            if node[part] is None:
                node[part] = empty
            node = node[part]
        else:
            node = node.setdefault(part, empty)
    last = parts[-1]
    if isinstance(last, int):
        while len(node) <= last:
            node.append(None)
        node[last] = value
    else:
        node[last] = value


def _compact(node):
    """Lists lose the holes that removed or empty items left."""
    if isinstance(node, dict):
        return {k: _compact(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_compact(v) for v in node if v is not None]
    return node


def _convert(kind: str, text: str, values: list[str]):
    if kind == "m":
        return [json_intake(v) for v in values if v != ""] or None
    text = text.strip() if kind not in ("s", "l") else text
    if text.strip() == "":
        return None
    if kind == "s":
        return text.replace("\r\n", "\n").strip()
    if kind == "i":
        if not re.fullmatch(r"-?\d+", text):
            raise ValueError(f"must be a whole number, not {text!r}")
        return int(text)
    if kind == "n":
        try:
            number = Decimal(text)
        except InvalidOperation:
            raise ValueError(f"must be a number, not {text!r}") from None
        return int(number) if number == number.to_integral_value() and "." not in text else float(number)
    # JSON typed into a field goes through the platform's intake: too deep, too big or NaN is refused, never a 500
    if kind == "e":
        return json_intake(text)
    if kind == "j":
        try:
            return json_intake(text)
        except JsonIntakeError as exc:
            raise ValueError(exc.relative()) from None
    if kind == "v":
        try:
            return json_intake(text)
        except JsonIntakeError:
            return text
    if kind == "l":
        return [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()] or None
    return [part.strip() for part in text.split(",") if part.strip()] or None  # c


def decode(post) -> Form:
    """The spec a submitted editor form describes (a QueryDict or a dict of lists)."""
    form = Form()
    for name in post:
        kind, _, path = name.partition(":")
        if kind not in TYPES or not path:
            continue
        values = post.getlist(name) if hasattr(post, "getlist") else list(post[name])
        text = values[-1] if values else ""
        try:
            parts = parse_path(path)
        except ValueError as exc:
            form.errors.append((path, str(exc)))
            continue
        form.paths.append(path)
        form.raw[path] = text if kind != "m" else json.dumps(values)
        try:
            value = _convert(kind, text, values)
        except ValueError as exc:
            form.errors.append((path, str(exc)))
            continue
        if value is not None:
            put(form.spec, parts, value)
    form.spec = _compact(form.spec)
    return form


def remove(spec: dict, path: str) -> None:
    """Delete the list item at `path` (an editor's remove button)."""
    parts = parse_path(path)
    node = spec
    for part in parts[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return  # an item left empty was never sent: nothing to remove
    if isinstance(parts[-1], int) and isinstance(node, list) and parts[-1] < len(node):
        node.pop(parts[-1])


def append(spec: dict, path: str, item) -> str:
    """Add `item` at the end of the list at `path`, creating it; returns the new item's path."""
    parts = parse_path(path)
    node = spec
    for part, following in zip(parts, parts[1:], strict=False):
        node = node.setdefault(part, [] if isinstance(following, int) else {}) if isinstance(node, dict) else node[part]
    items = node.setdefault(parts[-1], [])
    items.append(item)
    return f"{path}[{len(items) - 1}]"
