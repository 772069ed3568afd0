"""A subset of JQL, the product's query language: parsed into a tree, then run over a world's issues.

    project = AGENT AND status in ("To Do", "In Progress") AND assignee = currentUser() ORDER BY priority DESC

Fields: project, key, type (issuetype), status, statusCategory, resolution, priority, assignee,
reporter, watcher, labels, component, fixVersion, sprint, epic, parent (a sub-task's parent or a work
item's epic), summary, text, storyPoints, issueLinkType (the issue's links as phrases: blocks, "is
blocked by", duplicates, "is duplicated by", "relates to"), and the dates created, updated, resolved
and due (duedate). Operators: = != in, not in, ~ (contains words), is EMPTY, is not EMPTY,
< <= > >= (numbers and dates), WAS, WAS NOT, WAS IN, WAS NOT IN (status, assignee, priority and
resolution as their history reads). AND binds tighter than OR; NOT and parentheses work. Functions:
currentUser(), openSprints(), closedSprints(), futureSprints(), and the dates now(), startOfDay(),
endOfDay(), startOfWeek(), endOfWeek(), startOfMonth(), endOfMonth(), startOfYear(), endOfYear(),
each with an optional offset (startOfWeek(-1w)). A date is "yyyy-MM-dd", "yyyy/MM/dd", either with
" HH:mm", or a period from now: -30d, 2w, "-4w 2d", 3h, 15m. The search (search.py) reads periods
and functions on the world clock.
Custom fields by name ("Customer tier" = Enterprise) or by id (cf[10010] = Enterprise): the runner
passes the world's fields to the parser, which checks each operator against the field's kind.
Errors read like the product's, with the position of the bad token.
"""

import re
from dataclasses import dataclass

from . import workflow as W

TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')|(?P<op>!=|>=|<=|!~|[=~<>(),])|(?P<word>[^\s=!~<>(),"\']+))'
)
FIELDS = {
    "project": "project",
    "key": "key",
    "issuekey": "key",
    "id": "key",
    "type": "type",
    "issuetype": "type",
    "status": "status",
    "resolution": "resolution",
    "priority": "priority",
    "assignee": "assignee",
    "reporter": "reporter",
    "labels": "labels",
    "label": "labels",
    "component": "component",
    "fixversion": "fixVersion",
    "sprint": "sprint",
    "epic": "epic",
    '"epic link"': "epic",
    "parent": "parent",
    "summary": "summary",
    "text": "text",
    "storypoints": "storyPoints",
    '"story points"': "storyPoints",
    "description": "description",
    "issuelinktype": "issueLinkType",
    "statuscategory": "statusCategory",
    "watcher": "watcher",
    "watchers": "watcher",
    "created": "created",
    "createddate": "created",
    "updated": "updated",
    "updateddate": "updated",
    "resolved": "resolved",
    "resolutiondate": "resolved",
    "due": "due",
    "duedate": "due",
    "rank": "rank",
}
ORDERABLE = {"priority", "key", "status", "assignee", "created", "updated", "resolved", "rank", "storyPoints", "due"}
ORDERABLE |= {"type"}
LIST_FIELDS = {"labels", "component", "fixVersion", "issueLinkType", "watcher"}
TEXT_FIELDS = {"summary", "text", "description"}
NUMBER_FIELDS = {"storyPoints"}
DATE_FIELDS = {"created", "updated", "resolved", "due"}
HISTORY_FIELDS = {"status", "assignee", "priority", "resolution"}  # what WAS reads, as the product allows
DATE_FUNCTIONS = {
    "now",
    "startofday",
    "endofday",
    "startofweek",
    "endofweek",
    "startofmonth",
    "endofmonth",
    "startofyear",
    "endofyear",
}
FUNCTIONS = {"currentuser", "opensprints", "closedsprints", "futuresprints"} | DATE_FUNCTIONS
PRIORITY_ORDER = {p: i for i, p in enumerate(reversed(W.PRIORITIES))}  # Lowest 0 ... Highest 4


class JQLError(ValueError):
    """The product's message for a query it can't run."""


@dataclass
class Tok:
    kind: str  # str, op, word, end
    text: str
    pos: int

    @property
    def value(self) -> str:
        if self.kind == "str":
            return re.sub(r"\\(.)", r"\1", self.text[1:-1])
        return self.text

    def is_word(self, *words) -> bool:
        return self.kind == "word" and self.text.lower() in words


def tokenize(text: str) -> list[Tok]:
    tokens, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise JQLError(
                f"Error in the JQL Query: The character '{text[pos:].strip()[0]}' is a reserved JQL character. "
                f"You must enclose it in a string or use the escape '\\u{ord(text[pos:].strip()[0]):04x}' instead. "
                f"(line 1, character {pos + 1})"
            )
        kind = m.lastgroup
        tokens.append(Tok(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    tokens.append(Tok("end", "", len(text)))
    return tokens


@dataclass
class Clause:
    field: str
    op: str  # =, !=, in, not in, ~, !~, is, is not, <, <=, >, >=, was, was not, was in, was not in
    values: list  # strings, or ("fn", name, argument or None)


@dataclass
class BoolNode:
    op: str  # and, or, not
    children: list


@dataclass
class Query:
    where: object  # Clause | BoolNode | None
    order: list  # (field, descending)


CUSTOM_OPERATORS = {  # kind -> operators the product allows on it
    "text": {"~", "!~", "is", "is not"},
    "number": {"=", "!=", "in", "not in", "<", "<=", ">", ">=", "is", "is not"},
    "select": {"=", "!=", "in", "not in", "is", "is not"},
    "date": {"=", "!=", "<", "<=", ">", ">=", "is", "is not"},
}


class Parser:
    def __init__(self, text: str, custom: dict | None = None):
        """`custom`: a custom field's lower-case name and its `cf[id]` -> ("cf:<id>", kind)."""
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.custom = custom or {}
        self.custom_kinds = dict(self.custom.values())

    @property
    def tok(self) -> Tok:
        return self.tokens[self.i]

    def take(self) -> Tok:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def fail(self, expecting: str):
        tok = self.tok
        got = "the end of the query" if tok.kind == "end" else f"'{tok.text}'"
        raise JQLError(
            f"Error in the JQL Query: Expecting {expecting} but got {got}. (line 1, character {tok.pos + 1})"
        )

    def parse(self) -> Query:
        where = None
        if not (self.tok.kind == "end" or self.tok.is_word("order")):
            where = self.or_expr()
        order = []
        if self.tok.is_word("order"):
            self.take()
            if not self.tok.is_word("by"):
                self.fail("'by'")
            self.take()
            while True:
                tok = self.take()
                if tok.kind not in ("word", "str"):
                    self.i -= 1
                    self.fail("a field name")
                name = self.field_name(tok)
                if name not in ORDERABLE:
                    raise JQLError(f"Field '{tok.value}' does not support sorting.")
                desc = False
                if self.tok.is_word("asc", "desc"):
                    desc = self.take().text.lower() == "desc"
                order.append((name, desc))
                if self.tok.kind == "op" and self.tok.text == ",":
                    self.take()
                    continue
                break
        if self.tok.kind != "end":
            self.fail("either 'OR' or 'AND'" if not order else "',' or the end of the query")
        return Query(where, order)

    def or_expr(self):
        children = [self.and_expr()]
        while self.tok.is_word("or"):
            self.take()
            children.append(self.and_expr())
        return children[0] if len(children) == 1 else BoolNode("or", children)

    def and_expr(self):
        children = [self.not_expr()]
        while self.tok.is_word("and"):
            self.take()
            children.append(self.not_expr())
        return children[0] if len(children) == 1 else BoolNode("and", children)

    def not_expr(self):
        if self.tok.is_word("not"):
            self.take()
            return BoolNode("not", [self.not_expr()])
        if self.tok.kind == "op" and self.tok.text == "(":
            self.take()
            node = self.or_expr()
            if not (self.tok.kind == "op" and self.tok.text == ")"):
                self.fail("')'")
            self.take()
            return node
        return self.clause()

    def field_name(self, tok: Tok) -> str:
        raw = tok.text.lower()
        name = FIELDS.get(raw) or FIELDS.get(tok.value.lower())
        if not name and tok.value.lower() in self.custom:
            name = self.custom[tok.value.lower()][0]
        if not name:
            raise JQLError(f"Field '{tok.value}' does not exist or you do not have permission to view it.")
        return name

    def clause(self) -> Clause:
        tok = self.tok
        if tok.kind not in ("word", "str"):
            self.fail("a field name")
        self.take()
        field = self.field_name(tok)
        if field == "rank":
            raise JQLError(f"Field '{tok.value}' can only be used to sort in this search.")
        op_tok = self.tok
        if op_tok.is_word("was"):
            op = self.history_operator()
            if field not in HISTORY_FIELDS:
                raise JQLError(f"The operator '{op.upper()}' is not supported by the '{tok.value}' field.")
        elif op_tok.kind == "op" and op_tok.text in ("=", "!=", "~", "!~", "<", "<=", ">", ">="):
            op = self.take().text
        elif op_tok.is_word("in"):
            self.take()
            op = "in"
        elif op_tok.is_word("not") and self.tokens[self.i + 1].is_word("in"):
            self.i += 2
            op = "not in"
        elif op_tok.is_word("is"):
            self.take()
            op = "is"
            if self.tok.is_word("not"):
                self.take()
                op = "is not"
            if not self.tok.is_word("empty", "null"):
                self.fail("'EMPTY'")
            self.take()
            return Clause(field, op, [])
        else:
            self.fail("an operator (=, !=, ~, in, not in, is)")
        if op.endswith("in") and self.tok.kind == "word" and self.tokens[self.i + 1].text == "(":
            values = [self.value()]  # a function returning a list: sprint in openSprints()
        elif op.endswith("in"):
            if not (self.tok.kind == "op" and self.tok.text == "("):
                self.fail("'('")
            self.take()
            values = [self.value()]
            while self.tok.kind == "op" and self.tok.text == ",":
                self.take()
                values.append(self.value())
            if not (self.tok.kind == "op" and self.tok.text == ")"):
                self.fail("',' or ')'")
            self.take()
        else:
            values = [self.value()]
        if field in self.custom_kinds:
            if op not in CUSTOM_OPERATORS[self.custom_kinds[field]]:
                raise JQLError(f"The operator '{op}' is not supported by the '{tok.value}' field.")
            return Clause(field, op, values)
        if op in ("~", "!~") and field not in TEXT_FIELDS:
            raise JQLError(f"The operator '{op}' is not supported by the '{tok.value}' field.")
        if op in ("<", "<=", ">", ">=") and field not in NUMBER_FIELDS | DATE_FIELDS:
            raise JQLError(f"The operator '{op}' is not supported by the '{tok.value}' field.")
        for value in values:
            if isinstance(value, tuple) and (value[1] in DATE_FUNCTIONS) != (field in DATE_FIELDS):
                raise JQLError(f"Function '{value[1]}()' can't be used with the field '{tok.value}'.")
        return Clause(field, op, values)

    def history_operator(self) -> str:
        """WAS, WAS NOT, WAS IN, WAS NOT IN: the words after the field, taken."""
        self.take()
        op = "was"
        if self.tok.is_word("not"):
            self.take()
            op += " not"
        if self.tok.is_word("in"):
            self.take()
            op += " in"
        return op

    def value(self):
        tok = self.tok
        if tok.kind == "str":
            self.take()
            return tok.value
        if tok.kind != "word" or tok.is_word("and", "or", "order"):
            self.fail("either a value, an empty string or a function")
        self.take()
        if self.tok.kind == "op" and self.tok.text == "(":
            if tok.text.lower() not in FUNCTIONS:
                raise JQLError(f"Unable to find JQL function '{tok.text}()'.")
            self.take()
            argument = None
            if tok.text.lower() in DATE_FUNCTIONS and self.tok.kind in ("word", "str"):
                argument = self.take().value  # an offset: startOfWeek(-1w), endOfDay("+2d")
            if not (self.tok.kind == "op" and self.tok.text == ")"):
                self.fail("')'")
            self.take()
            return ("fn", tok.text.lower(), argument)
        return tok.text


def parse(text: str, custom: dict | None = None) -> Query:
    return Parser(text, custom).parse()
