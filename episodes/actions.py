"""The action space: BrowserGym-compatible action strings parsed into typed actions.

An agent's action is text such as `click("a51")` or `fill("a12", "text")`. It is read
by a small tokenizer and a grammar for one Python-style call with literal arguments,
never by eval/exec, and checked against each action's signature (the same names,
order and defaults as BrowserGym's `browsergym.core.action.functions`):

    action   := NAME "(" [ argument ("," argument)* [","] ] ")"
    argument := [ NAME "=" ] value
    value    := STRING | ["-"] NUMBER | True | False | "[" [ value ("," value)* [","] ] "]"

Exactly one action per step: anything after the closing parenthesis other than
whitespace (a second call, a `;`, a comment) is an error, so an agent can never
smuggle a second effect into a step. Strings take single or double quotes and the
escapes \\\\ \\' \\" \\n \\r \\t \\0 \\xHH \\uHHHH \\UHHHHHHHH.

An element argument is a bid (`^[a-z]{0,2}\\d+$`, stamped into the DOM by the
engine) or else a Playwright selector (`role=button[name='Submit']`, `#id`, ...).
"""
import json
import math
import re
from dataclasses import MISSING, dataclass, field, fields
from typing import ClassVar

BID_RE = re.compile(r"^[a-z]{0,2}\d+$")
MAX_ACTION_CHARS = 100_000
MAX_NOOP_MS = 10_000
MAX_ABS_COORD = 100_000.0
BUTTONS = ("left", "middle", "right")
MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")


class ActionError(ValueError):
    """The action text is not a valid action; the message says what is wrong and where."""


def is_bid(element: str) -> bool:
    return bool(BID_RE.match(element))


# --- tokenizer -------------------------------------------------------------------

@dataclass(frozen=True)
class _Token:
    kind: str  # NAME, STRING, NUMBER, PUNCT, END
    value: object
    pos: int


_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "r": "\r", "t": "\t", "0": "\0"}
_NUMBER_RE = re.compile(r"(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _tokenize(text: str) -> list[_Token]:
    tokens, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "()[],=-":
            tokens.append(_Token("PUNCT", c, i))
            i += 1
        elif c in "'\"":
            value, i = _read_string(text, i)
            tokens.append(value)
        elif c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            m = _NUMBER_RE.match(text, i)
            raw = m.group(0)
            is_float = "." in raw or m.group(2) is not None
            tokens.append(_Token("NUMBER", float(raw) if is_float else int(raw), i))
            i = m.end()
        elif c.isalpha() or c == "_":
            m = _NAME_RE.match(text, i)
            tokens.append(_Token("NAME", m.group(0), i))
            i = m.end()
        else:
            raise ActionError(f"unexpected character {c!r} at column {i + 1}")
    tokens.append(_Token("END", None, n))
    return tokens


def _read_string(text: str, start: int) -> tuple[_Token, int]:
    quote, i, out = text[start], start + 1, []
    while True:
        if i >= len(text):
            raise ActionError(f"unterminated string starting at column {start + 1}")
        c = text[i]
        if c == quote:
            return _Token("STRING", "".join(out), start), i + 1
        if c == "\n":
            raise ActionError(f"unterminated string starting at column {start + 1} (a newline inside quotes; write \\n)")
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 >= len(text):
            raise ActionError(f"unterminated string starting at column {start + 1}")
        e = text[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = text[i + 2 : i + 2 + width]
            if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise ActionError(f"bad \\{e} escape at column {i + 1}")
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise ActionError(f"bad \\{e} escape at column {i + 1}: not a character")
            out.append(chr(code))
            i += 2 + width
        else:
            raise ActionError(f"unknown escape \\{e} at column {i + 1}")


# --- grammar ---------------------------------------------------------------------

class _Parser:
    def __init__(self, text: str):
        self.tokens = _tokenize(text)
        self.i = 0

    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, punct: str, what: str) -> _Token:
        tok = self.take()
        if tok.kind != "PUNCT" or tok.value != punct:
            raise ActionError(f"expected {what} at column {tok.pos + 1}, found {_describe(tok)}")
        return tok

    def call(self) -> tuple[str, list, dict]:
        head = self.take()
        if head.kind == "END":
            raise ActionError("empty action: write one call such as click(\"a12\") or noop()")
        if head.kind != "NAME":
            raise ActionError(f"an action starts with a function name, found {_describe(head)} at column {head.pos + 1}")
        self.expect("(", f"'(' after {head.value}")
        args, kwargs = [], {}
        while not (self.peek().kind == "PUNCT" and self.peek().value == ")"):
            tok = self.peek()
            nxt = self.tokens[self.i + 1]
            if tok.kind == "NAME" and nxt.kind == "PUNCT" and nxt.value == "=":
                self.i += 2
                if tok.value in kwargs:
                    raise ActionError(f"{head.value}() got argument {tok.value!r} twice")
                kwargs[tok.value] = self.value()
            else:
                if kwargs:
                    raise ActionError(f"positional argument after a keyword argument at column {tok.pos + 1}")
                args.append(self.value())
            sep = self.peek()
            if sep.kind == "PUNCT" and sep.value == ",":
                self.i += 1
            elif not (sep.kind == "PUNCT" and sep.value == ")"):
                if sep.kind == "END":
                    raise ActionError(f"missing ')' to close {head.value}(")
                raise ActionError(f"expected ',' or ')' at column {sep.pos + 1}, found {_describe(sep)}")
        self.take()
        rest = self.peek()
        if rest.kind != "END":
            raise ActionError(
                f"unexpected text after the action at column {rest.pos + 1} ({_describe(rest)}): "
                "send exactly one action per step"
            )
        return head.value, args, kwargs

    def value(self):
        tok = self.take()
        if tok.kind in ("STRING", "NUMBER"):
            return tok.value
        if tok.kind == "PUNCT" and tok.value == "-":
            num = self.take()
            if num.kind != "NUMBER":
                raise ActionError(f"expected a number after '-' at column {tok.pos + 1}")
            return -num.value
        if tok.kind == "NAME" and tok.value in ("True", "False"):
            return tok.value == "True"
        if tok.kind == "PUNCT" and tok.value == "[":
            items = []
            while not (self.peek().kind == "PUNCT" and self.peek().value == "]"):
                items.append(self.value())
                sep = self.peek()
                if sep.kind == "PUNCT" and sep.value == ",":
                    self.i += 1
                elif not (sep.kind == "PUNCT" and sep.value == "]"):
                    raise ActionError(f"expected ',' or ']' at column {sep.pos + 1}, found {_describe(sep)}")
            self.take()
            return items
        if tok.kind == "END":
            raise ActionError("the action ends where a value was expected")
        if tok.kind == "NAME":
            raise ActionError(
                f"{tok.value!r} at column {tok.pos + 1} is not a literal: arguments are strings, numbers, "
                "True/False or lists of strings"
            )
        raise ActionError(f"expected a value at column {tok.pos + 1}, found {_describe(tok)}")


def _describe(tok: _Token) -> str:
    if tok.kind == "END":
        return "the end of the action"
    if tok.kind == "STRING":
        return "a string"
    return repr(tok.value)


# --- argument kinds ----------------------------------------------------------------

def _check(kind: str, value, where: str):
    """Validate and normalise one argument; `where` names it in messages."""
    if kind in ("element", "str", "key", "url"):
        if not isinstance(value, str):
            raise ActionError(f"{where} must be a string, not {_type_name(value)}")
        if kind in ("element", "key", "url") and not value.strip():
            raise ActionError(f"{where} must not be empty")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ActionError(f"{where} must be a number, not {_type_name(value)}")
        value = float(value)
        if not math.isfinite(value) or abs(value) > MAX_ABS_COORD:
            raise ActionError(f"{where} must be a finite number within ±{MAX_ABS_COORD:g}")
        return value
    if kind == "index":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ActionError(f"{where} must be an integer, not {_type_name(value)}")
        if value < 0:
            raise ActionError(f"{where} must be 0 or more")
        return value
    if kind == "wait_ms":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ActionError(f"{where} must be a number, not {_type_name(value)}")
        if not 0 <= value <= MAX_NOOP_MS:
            raise ActionError(f"{where} must be from 0 to {MAX_NOOP_MS} milliseconds")
        return float(value)
    if kind == "button":
        if value not in BUTTONS:
            raise ActionError(f"{where} must be one of {', '.join(map(repr, BUTTONS))}, not {value!r}")
        return value
    if kind == "modifiers":
        if not isinstance(value, list):
            raise ActionError(f"{where} must be a list such as [\"Shift\"], not {_type_name(value)}")
        for m in value:
            if m not in MODIFIERS:
                raise ActionError(f"{where}: {m!r} is not one of {', '.join(MODIFIERS)}")
        return tuple(value)
    if kind == "strs":
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise ActionError(f"{where} must be a string or a list of strings, not {_type_name(value)}")
    raise AssertionError(kind)


def _type_name(value) -> str:
    if isinstance(value, bool):
        return "a boolean"
    return {str: "a string", int: "an integer", float: "a number", list: "a list"}.get(type(value), type(value).__name__)


def _arg(kind: str, default=MISSING):
    return field(default=default, metadata={"kind": kind})


# --- the actions ----------------------------------------------------------------------

@dataclass(frozen=True)
class Action:
    """Base of all actions: `name` is the function name, fields are its parameters in order."""

    name: ClassVar[str] = ""
    # True for actions that address an element (bid or selector) by their first field.
    targets_element: ClassVar[bool] = False

    def __str__(self) -> str:
        """Canonical action text; parse_action(str(a)) == a."""
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.default is not MISSING and value == f.default:
                continue
            text = _literal(value)
            parts.append(text if f.default is MISSING else f"{f.name}={text}")
        return f"{self.name}({', '.join(parts)})"

    def to_dict(self) -> dict:
        return {"name": self.name, **{f.name: _jsonable(getattr(self, f.name)) for f in fields(self)}}


def _literal(value) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def _jsonable(value):
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class ElementAction(Action):
    targets_element: ClassVar[bool] = True

    @property
    def element(self) -> str:
        return getattr(self, fields(self)[0].name)


@dataclass(frozen=True)
class Click(ElementAction):
    name: ClassVar[str] = "click"
    bid: str = _arg("element")
    button: str = _arg("button", "left")
    modifiers: tuple = _arg("modifiers", ())


@dataclass(frozen=True)
class DblClick(ElementAction):
    name: ClassVar[str] = "dblclick"
    bid: str = _arg("element")
    button: str = _arg("button", "left")
    modifiers: tuple = _arg("modifiers", ())


@dataclass(frozen=True)
class Hover(ElementAction):
    name: ClassVar[str] = "hover"
    bid: str = _arg("element")


@dataclass(frozen=True)
class Fill(ElementAction):
    name: ClassVar[str] = "fill"
    bid: str = _arg("element")
    value: str = _arg("str")


@dataclass(frozen=True)
class Clear(ElementAction):
    name: ClassVar[str] = "clear"
    bid: str = _arg("element")


@dataclass(frozen=True)
class SelectOption(ElementAction):
    name: ClassVar[str] = "select_option"
    bid: str = _arg("element")
    options: str | tuple = _arg("strs")


@dataclass(frozen=True)
class Check(ElementAction):
    name: ClassVar[str] = "check"
    bid: str = _arg("element")


@dataclass(frozen=True)
class Uncheck(ElementAction):
    name: ClassVar[str] = "uncheck"
    bid: str = _arg("element")


@dataclass(frozen=True)
class Press(ElementAction):
    name: ClassVar[str] = "press"
    bid: str = _arg("element")
    key_comb: str = _arg("key")


@dataclass(frozen=True)
class Focus(ElementAction):
    name: ClassVar[str] = "focus"
    bid: str = _arg("element")


@dataclass(frozen=True)
class DragAndDrop(ElementAction):
    name: ClassVar[str] = "drag_and_drop"
    from_bid: str = _arg("element")
    to_bid: str = _arg("element")


@dataclass(frozen=True)
class UploadFile(ElementAction):
    name: ClassVar[str] = "upload_file"
    bid: str = _arg("element")
    file: str | tuple = _arg("strs")


@dataclass(frozen=True)
class Scroll(Action):
    name: ClassVar[str] = "scroll"
    delta_x: float = _arg("number")
    delta_y: float = _arg("number")


@dataclass(frozen=True)
class Goto(Action):
    name: ClassVar[str] = "goto"
    url: str = _arg("url")


@dataclass(frozen=True)
class GoBack(Action):
    name: ClassVar[str] = "go_back"


@dataclass(frozen=True)
class GoForward(Action):
    name: ClassVar[str] = "go_forward"


@dataclass(frozen=True)
class NewTab(Action):
    name: ClassVar[str] = "new_tab"


@dataclass(frozen=True)
class TabFocus(Action):
    name: ClassVar[str] = "tab_focus"
    index: int = _arg("index")


@dataclass(frozen=True)
class TabClose(Action):
    name: ClassVar[str] = "tab_close"


@dataclass(frozen=True)
class SendMsgToUser(Action):
    name: ClassVar[str] = "send_msg_to_user"
    text: str = _arg("str")


@dataclass(frozen=True)
class ReportInfeasible(Action):
    name: ClassVar[str] = "report_infeasible"
    reason: str = _arg("str")


@dataclass(frozen=True)
class Noop(Action):
    """Wait: BrowserGym's default is 1000 ms; ours is 0, since every step already waits
    until the page has settled. An explicit wait_ms is honoured (up to MAX_NOOP_MS)."""

    name: ClassVar[str] = "noop"
    wait_ms: float = _arg("wait_ms", 0.0)


@dataclass(frozen=True)
class MouseMove(Action):
    name: ClassVar[str] = "mouse_move"
    x: float = _arg("number")
    y: float = _arg("number")


@dataclass(frozen=True)
class MouseClick(Action):
    name: ClassVar[str] = "mouse_click"
    x: float = _arg("number")
    y: float = _arg("number")
    button: str = _arg("button", "left")


@dataclass(frozen=True)
class MouseDblClick(Action):
    name: ClassVar[str] = "mouse_dblclick"
    x: float = _arg("number")
    y: float = _arg("number")
    button: str = _arg("button", "left")


@dataclass(frozen=True)
class MouseDown(Action):
    name: ClassVar[str] = "mouse_down"
    x: float = _arg("number")
    y: float = _arg("number")
    button: str = _arg("button", "left")


@dataclass(frozen=True)
class MouseUp(Action):
    name: ClassVar[str] = "mouse_up"
    x: float = _arg("number")
    y: float = _arg("number")
    button: str = _arg("button", "left")


@dataclass(frozen=True)
class MouseDragAndDrop(Action):
    name: ClassVar[str] = "mouse_drag_and_drop"
    from_x: float = _arg("number")
    from_y: float = _arg("number")
    to_x: float = _arg("number")
    to_y: float = _arg("number")


@dataclass(frozen=True)
class MouseUploadFile(Action):
    name: ClassVar[str] = "mouse_upload_file"
    x: float = _arg("number")
    y: float = _arg("number")
    file: str | tuple = _arg("strs")


@dataclass(frozen=True)
class KeyboardType(Action):
    name: ClassVar[str] = "keyboard_type"
    text: str = _arg("str")


@dataclass(frozen=True)
class KeyboardInsertText(Action):
    name: ClassVar[str] = "keyboard_insert_text"
    text: str = _arg("str")


@dataclass(frozen=True)
class KeyboardPress(Action):
    name: ClassVar[str] = "keyboard_press"
    key: str = _arg("key")


@dataclass(frozen=True)
class KeyboardDown(Action):
    name: ClassVar[str] = "keyboard_down"
    key: str = _arg("key")


@dataclass(frozen=True)
class KeyboardUp(Action):
    name: ClassVar[str] = "keyboard_up"
    key: str = _arg("key")


ACTIONS: dict[str, type[Action]] = {
    cls.name: cls
    for cls in (
        Click, DblClick, Hover, Fill, Clear, SelectOption, Check, Uncheck, Press, Focus, DragAndDrop,
        UploadFile, Scroll, Goto, GoBack, GoForward, NewTab, TabFocus, TabClose, SendMsgToUser,
        ReportInfeasible, Noop, MouseMove, MouseClick, MouseDblClick, MouseDown, MouseUp,
        MouseDragAndDrop, MouseUploadFile, KeyboardType, KeyboardInsertText, KeyboardPress,
        KeyboardDown, KeyboardUp,
    )
}
# Other names agents use for the same action.
ALIASES = {"mouse_drag": "mouse_drag_and_drop", "send_message_to_user": "send_msg_to_user"}


def signature(name: str) -> str:
    """`click(bid, button='left', modifiers=[])`: for error messages and agent prompts."""
    cls = ACTIONS[name]
    parts = []
    for f in fields(cls):
        parts.append(f.name if f.default is MISSING else f"{f.name}={_literal(f.default)}")
    return f"{name}({', '.join(parts)})"


def parse_action(text: str) -> Action:
    """Parse one action string into its typed Action; raises ActionError."""
    if not isinstance(text, str):
        raise ActionError(f"an action is a string, not {_type_name(text)}")
    if len(text) > MAX_ACTION_CHARS:
        raise ActionError(f"the action is longer than {MAX_ACTION_CHARS} characters")
    name, args, kwargs = _Parser(text).call()
    cls = ACTIONS.get(ALIASES.get(name, name))
    if cls is None:
        raise ActionError(f"unknown action {name!r}; known actions: {', '.join(sorted(ACTIONS))}")
    params = fields(cls)
    if len(args) > len(params):
        raise ActionError(f"{name}() takes at most {len(params)} argument(s), got {len(args)}: {signature(cls.name)}")
    values = {}
    for f, value in zip(params, args, strict=False):
        values[f.name] = value
    for key, value in kwargs.items():
        if key not in {f.name for f in params}:
            raise ActionError(f"{name}() has no argument {key!r}: {signature(cls.name)}")
        if key in values:
            raise ActionError(f"{name}() got argument {key!r} twice")
        values[key] = value
    checked = {}
    for f in params:
        if f.name not in values:
            if f.default is MISSING:
                raise ActionError(f"{name}() is missing argument {f.name!r}: {signature(cls.name)}")
            continue
        checked[f.name] = _check(f.metadata["kind"], values[f.name], f"{name}() argument {f.name!r}")
    return cls(**checked)
