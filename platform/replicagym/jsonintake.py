"""The one door for JSON from outside (API bodies, gateway messages, task files and imports).

Python's json module takes any depth until the interpreter's recursion limit (a RecursionError,
so a 500, where the client sent bad input), any size, and NaN, Infinity and 1e400 as numbers,
which no database column or JSON encoder downstream accepts. Here every document is held to a
size, a depth and a string length, and to finite numbers, and a refusal names the JSON path of
what is wrong ($ is the document, $.limits.max_seconds a member, $.task[0] an item).
"""

import json
import math
import re

MAX_BYTES = 1_000_000
# Task files nest 8 deep (a verifier's assertions); 32 leaves room without letting a parser recurse far.
MAX_DEPTH = 32
MAX_STRING = 100_000

CONTAINERS = (dict, list)
SCALARS = (str, float)  # what _scalar_refusal may refuse: ints, booleans and null always stand
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# what a depth scan needs of a document: its strings (skipped whole) and its punctuation
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


class JsonIntakeError(ValueError):
    """A document refused; `path` says where (JSONPath), `message` what is wrong."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message

    @property
    def member(self) -> str:
        """The path without its "$" (as the catalogue's error lists write paths): "" for the document itself."""
        return self.path[1:].removeprefix(".")

    def relative(self) -> str:
        """'member: message', or the message alone for the document itself (the catalogue's error lines)."""
        return f"{self.member}: {self.message}" if self.member else self.message


def json_path(parent: str, key) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if _NAME.match(key) else f"{parent}[{json.dumps(key)[:60]}]"


def json_check(value, *, max_depth: int = MAX_DEPTH, max_string: int = MAX_STRING, path: str = "$") -> None:
    """JsonIntakeError at the first place `value` (parsed JSON, or a dict built from a form) is
    nested deeper than `max_depth`, holds a string longer than `max_string` or a number that is not finite.

    Walked with a stack, not recursion, so a deep value cannot exhaust the interpreter's stack here either.
    Scalars are checked where they stand and a path is written only for a container (or an error):
    most of a document is scalars, and writing each one's path made the walk 20-25% slower.
    """
    if why := _scalar_refusal(value, max_string):
        raise JsonIntakeError(path, why)
    stack = [(value, path, 0)] if isinstance(value, CONTAINERS) else []
    while stack:
        item, where, depth = stack.pop()
        if depth >= max_depth:
            raise JsonIntakeError(where, f"nested deeper than {max_depth} levels")
        containers = []
        for key, child in item.items() if isinstance(item, dict) else enumerate(item):
            if isinstance(key, str) and len(key) > max_string:
                raise JsonIntakeError(where, f"a member name of {len(key)} characters, over the limit of {max_string}")
            if isinstance(child, CONTAINERS):
                containers.append((child, key))
            elif isinstance(child, SCALARS) and (why := _scalar_refusal(child, max_string)):
                raise JsonIntakeError(json_path(where, key), why)
        # in reverse, so the first in document order is checked first
        stack.extend((child, json_path(where, key), depth + 1) for child, key in reversed(containers))


def _scalar_refusal(value, max_string: int) -> str:
    """Why a string or number may not stand in a document ("" when it may, or for anything else)."""
    if isinstance(value, float) and not math.isfinite(value):
        name = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return f"{name} is not a finite number: send a number JSON allows"
    if isinstance(value, str) and len(value) > max_string:
        return f"a string of {len(value)} characters, over the limit of {max_string}"
    return ""


def _deep_path(text: str, max_depth: int) -> str:
    """Where `text` first nests deeper than `max_depth`, found without parsing it (it is too deep to parse)."""
    frames: list[list] = []  # per open container: [path, is_object, next index or the member name seen last]
    path = "$"
    for match in _TOKENS.finditer(text):
        token = match.group()
        top = frames[-1] if frames else None
        if token in "[{":
            if top is not None:
                path = json_path(top[0], top[2])
            if len(frames) >= max_depth:
                return path
            frames.append([path, token == "{", 0 if token == "[" else ""])
        elif token in "]}":
            frames.pop()
        elif token == "," and top is not None and not top[1]:
            top[2] += 1
        elif token.startswith('"') and top is not None and top[1]:
            # a member name (its value comes after ':'); a string value is overwritten by the next name anyway
            try:
                top[2] = json.loads(token)
            except ValueError:
                top[2] = token[1:-1]
    return path


def json_intake(
    raw: bytes | str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH, max_string: int = MAX_STRING
):
    """The parsed document, or JsonIntakeError saying where and why it is refused."""
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise JsonIntakeError("$", f"the document is over {max_bytes} bytes")
    try:
        value = json.loads(raw)
    except RecursionError:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        raise JsonIntakeError(_deep_path(text, max_depth), f"nested deeper than {max_depth} levels") from None
    except UnicodeDecodeError:
        raise JsonIntakeError("$", "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise JsonIntakeError("$", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    json_check(value, max_depth=max_depth, max_string=max_string)
    return value
