"""The action grammar: BrowserGym-compatible action strings parsed into typed actions, and formatted back.

It lives in the verifiers layer, the lowest that reads actions: verifiers judge parsed
trajectories, the catalogue checks task packs' reference solutions, the episode engine
executes parsed actions (episodes/engine/browser.py) and the BrowserGym bench driver rewrites
them; all of them import this one module. It uses the standard library only, so the
bench driver can import it from BrowserGym's own virtualenv.

An agent's action is text such as `click("a51")` or `fill("a12", "text")`: one
Python-style call with literal arguments, as BrowserGym writes them. Python's parser
(`ast.parse` in eval mode, which builds a tree and runs nothing) reads it; the tree
must be exactly one call of a bare name whose arguments are strings, numbers,
True/False or lists of those. Nothing is ever eval'd or exec'd, and anything after
the call (a second call, a `;`) is refused, so an agent cannot smuggle a second
effect into a step. Arguments are then checked against each action's signature (the
same names, order and defaults as BrowserGym's `browsergym.core.action.functions`).

`parse_action` takes any value and either returns an Action or raises ActionError
with a message for the agent; no other exception leaves it (fuzzed in
tests/episodes/test_action_fuzz.py).

An element argument is a bid (`^[a-z]{0,2}\\d+$`, stamped into the DOM by the
engine) or else a Playwright selector (`role=button[name='Submit']`, `#id`, ...).
"""

import ast
import json
import math
import re
import warnings
from dataclasses import MISSING, dataclass, field, fields, replace
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


# --- grammar ---------------------------------------------------------------------

_LITERAL_TYPES = (str, int, float)  # bool is an int
_NAME_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*$")


def _parse_call(text: str) -> tuple[str, list, dict]:
    """(name, positional values, keyword values) of the one call `text` holds.

    Python's own parser reads the text into a syntax tree (`ast.parse`, which runs
    nothing); only a call of a bare name with literal arguments is accepted from it.
    Every failure, of the parser or of the tree, becomes an ActionError.
    """
    # Columns count from the first non-blank character: leading blanks are an "unexpected indent" to Python.
    text = text.lstrip()
    if not text.rstrip():
        raise ActionError('empty action: write one call such as click("a12") or noop()')
    tree = _syntax_tree(text)
    call = tree.body
    if isinstance(call, ast.Name):
        raise ActionError(f"expected '(' after {call.id}: an action is a call such as {call.id}(...)")
    if not isinstance(call, ast.Call):
        raise ActionError(
            f"an action starts with a function name, found {_snippet(call)} at column {_column(text, call)}"
        )
    if not isinstance(call.func, ast.Name):
        raise ActionError(
            f"an action starts with a function name, found {_snippet(call.func)} at column {_column(text, call.func)}"
        )
    name = call.func.id
    args, kwargs = [], {}
    for node in call.args:
        if isinstance(node, ast.Starred):
            raise ActionError(f"*arguments are not allowed (column {_column(text, node)}): write each value out")
        args.append(_literal_value(node, text))
    for kw in call.keywords:
        if kw.arg is None:
            raise ActionError(f"**arguments are not allowed (column {_column(text, kw)}): write each value out")
        if kw.arg in kwargs:
            raise ActionError(f"{name}() got argument {kw.arg!r} twice")
        kwargs[kw.arg] = _literal_value(kw.value, text)
    return name, args, kwargs


def _syntax_tree(text: str) -> ast.Expression:
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ActionError(_syntax_message(text, exc)) from None
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
        # null bytes, numbers beyond int conversion limits, nesting beyond the parser's stack
        raise ActionError(f"not one action call: {exc or 'nested too deeply'}") from None
    for warning in caught:
        m = re.search(r"invalid escape sequence '(\\.)'", str(warning.message))
        if m:
            raise ActionError(f"unknown escape {m.group(1)} in a string: write \\\\ for a backslash")
    return tree


def _syntax_message(text: str, exc: SyntaxError) -> str:
    msg, line, column = exc.msg or "invalid syntax", exc.lineno or 1, exc.offset or 1
    lines = _lines(text)
    where = f"column {column}" if len(lines) == 1 else f"line {line}, column {column}"
    if msg.startswith("unterminated string") or msg.startswith("unterminated triple-quoted"):
        hint = " (a newline inside quotes; write \\n)" if line < len(lines) else ""
        return f"unterminated string starting at {where}{hint}"
    if msg.startswith("'(' was never closed"):
        offset = _offset(lines, line, column)
        m = _NAME_BEFORE.search(text[: max(offset - 1, 0)])
        return f"missing ')' to close {m.group(1)}(" if m else f"missing ')' for '(' at {where}"
    if msg.startswith("(unicode error)"):
        m = re.search(r"truncated \\(\w)", msg)
        return f"bad \\{m.group(1)} escape in a string at {where}" if m else f"bad escape in a string at {where}: {msg}"
    if msg.startswith("positional argument follows keyword argument"):
        return f"positional argument after a keyword argument at {where}"
    if _is_one_expression(text) is False:
        return "unexpected text after the action: send exactly one action per step"
    return f"not one action call: {msg} at {where}"


def _offset(lines: list[str], line: int, column: int) -> int:
    """Index into the text of a 1-based line and column."""
    return sum(len(x) + 1 for x in lines[: line - 1]) + column


def _lines(text: str) -> list[str]:
    """Lines as Python's tokenizer counts them (str.splitlines also splits on \\x1c, \\u2028, ...)."""
    return re.split(r"\r\n?|\n", text)


def _column(text: str, node: ast.AST) -> int:
    """1-based character column of a node (the tree counts UTF-8 bytes)."""
    lines = _lines(text)
    line = lines[min(node.lineno, len(lines)) - 1]
    return len(line.encode("utf-8")[: node.col_offset].decode("utf-8", "replace")) + 1


def _is_one_expression(text: str) -> bool | None:
    """False when `text` is valid Python of more than one statement (two calls, a `;`)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    return len(module.body) == 1 and isinstance(module.body[0], ast.Expr)


def _literal_value(node: ast.expr, text: str):
    """A string, a number (optionally signed), True/False, or a list of those; else an error."""
    if isinstance(node, ast.Constant) and isinstance(node.value, _LITERAL_TYPES):
        if isinstance(node.value, str) and not node.value.isascii():
            try:
                node.value.encode("utf-8")
            except UnicodeEncodeError:  # an escaped lone surrogate ("\\ud800"): no browser or database takes it
                raise ActionError(f"the string at column {_column(text, node)} is not valid Unicode") from None
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int | float)
        and not isinstance(node.operand.value, bool)
    ):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal_value(item, text) for item in node.elts]
    raise ActionError(
        f"{_snippet(node)} at column {_column(text, node)} is not a literal: arguments are strings, numbers, "
        "True/False or lists of strings"
    )


def _snippet(node: ast.expr) -> str:
    """How to name a refused piece of the action in a message: a name, else its (short) source."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        node = node.func
    if isinstance(node, ast.Name):
        return repr(node.id)
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):  # pragma: no cover - unparse of a tree ast.parse made
        text = type(node).__name__
    return repr(text if len(text) <= 40 else text[:39] + "…")


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
        # compared before float(): a huge integer literal would overflow the conversion
        if not (isinstance(value, int) or math.isfinite(value)) or abs(value) > MAX_ABS_COORD:
            raise ActionError(f"{where} must be a finite number within ±{MAX_ABS_COORD:g}")
        return float(value)
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
            raise ActionError(f'{where} must be a list such as ["Shift"], not {_type_name(value)}')
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
    return {str: "a string", int: "an integer", float: "a number", list: "a list"}.get(
        type(value), type(value).__name__
    )


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
        return f"{self.name}({self.arguments_text()})"

    def arguments_text(self) -> str:
        """The canonical argument list, without the name and parentheses (defaults left out)."""
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.default is not MISSING and value == f.default:
                continue
            text = _literal(value)
            parts.append(text if f.default is MISSING else f"{f.name}={text}")
        return ", ".join(parts)

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

    def with_element(self, element: str) -> "ElementAction":
        """The same action addressing another element (a selector resolved to a bid, say)."""
        return replace(self, **{fields(self)[0].name: element})


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
        Click,
        DblClick,
        Hover,
        Fill,
        Clear,
        SelectOption,
        Check,
        Uncheck,
        Press,
        Focus,
        DragAndDrop,
        UploadFile,
        Scroll,
        Goto,
        GoBack,
        GoForward,
        NewTab,
        TabFocus,
        TabClose,
        SendMsgToUser,
        ReportInfeasible,
        Noop,
        MouseMove,
        MouseClick,
        MouseDblClick,
        MouseDown,
        MouseUp,
        MouseDragAndDrop,
        MouseUploadFile,
        KeyboardType,
        KeyboardInsertText,
        KeyboardPress,
        KeyboardDown,
        KeyboardUp,
    )
}
# Other names agents use for the same action.
ALIASES = {"mouse_drag": "mouse_drag_and_drop", "send_message_to_user": "send_msg_to_user"}
# The actions that answer the task, by their canonical names: they end an episode (episodes.driver), and
# rewards and diagnosis count them apart from the acting steps.
ANSWER_ACTIONS = frozenset({SendMsgToUser.name, ReportInfeasible.name})


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
    name, args, kwargs = _parse_call(text)
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


def action_parts(text) -> tuple[str, str]:
    """(name, canonical argument text) of an action string, for matching trajectories.

    A step that is no action of the grammar (an episode in the agent's own browser
    records requests such as "POST /path [fields]") is ("", its text).
    """
    try:
        action = parse_action(text)
    except ActionError:
        return "", text if isinstance(text, str) else ""
    return action.name, action.arguments_text()
