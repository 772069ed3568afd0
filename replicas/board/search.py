"""Runs a JQL query (jql.py) over the bound world's issues, as a person sees them."""

import re
from decimal import Decimal, InvalidOperation

from . import jql
from . import workflow as W
from .models import CustomField, FieldValue, Issue, Link, Person, Project, Sprint, Workflow

TYPE_ALIASES = {
    "epic": "epic",
    "story": "story",
    "task": "task",
    "bug": "bug",
    "sub-task": "subtask",
    "subtask": "subtask",
}
MAX_RESULTS = 500


def _values_error(field: str, value: str):
    return jql.JQLError(f"The value '{value}' does not exist for the field '{field}'.")


DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def world_statuses() -> list[str]:
    """The statuses of the bound world's workflows (every project's), in workflow.ALL_STATUSES order."""
    known = {s for statuses in Workflow.objects.values_list("statuses", flat=True) for s in statuses}
    return [s for s in W.ALL_STATUSES if s in known]


LINK_PHRASES = [phrase for pair in W.LINK_KINDS.values() for phrase in pair]


def custom_fields() -> dict[str, CustomField]:
    """The bound world's custom fields by their JQL id, "cf:<public id>"."""
    return {f"cf:{f.public_id}": f for f in CustomField.objects.order_by("public_id")}


def parser_fields(fields: dict[str, CustomField]) -> dict:
    """What jql.parse needs to know of them: each name and cf[id] -> (JQL id, kind)."""
    names = {}
    for ref, field in fields.items():
        names[field.name.lower()] = (ref, field.kind)
        names[f"cf[{field.public_id}]"] = (ref, field.kind)
    return names


def query_check(query: str) -> jql.Query:
    """Parse `query` against the bound world's fields; raises jql.JQLError with the product's message."""
    return jql.parse(query, parser_fields(custom_fields()))


class Runner:
    def __init__(self, person: Person, fields: dict[str, CustomField]):
        self.person = person
        self.people = {p.username.lower(): p for p in Person.objects.all()}
        self.people_by_name = {p.name.lower(): p for p in self.people.values()}
        self.projects = {p.key.lower(): p for p in Project.objects.all()}
        self.sprints = list(Sprint.objects.all())
        self.fields = fields
        self._values = None
        self._links = None

    def custom_value(self, ref: str, issue: Issue):
        if self._values is None:  # read only by queries that name a custom field
            self._values = {
                (v.issue_id, f"cf:{v.field.public_id}"): v.value for v in FieldValue.objects.select_related("field")
            }
        value = self._values.get((issue.id, ref))
        if value is not None and self.fields[ref].kind == "number":
            try:
                return Decimal(value)
            except InvalidOperation:
                return None  # a legacy value that is not a number matches no comparison
        return value

    def link_phrases(self, issue: Issue) -> list[str]:
        """How the issue's links read from its side: AGENT-3 "blocks", AGENT-9 "is blocked by"."""
        if self._links is None:  # read only by queries that name issueLinkType
            self._links = {}
            for source_id, kind, target_id in Link.objects.values_list("source_id", "kind", "target_id"):
                outward, inward = W.LINK_KINDS[kind]
                self._links.setdefault(source_id, set()).add(outward)
                self._links.setdefault(target_id, set()).add(inward)
        return sorted(self._links.get(issue.id, ()))

    def custom_normalise(self, ref: str, value):
        field = self.fields[ref]
        if isinstance(value, tuple):
            raise jql.JQLError(f"Function '{value[1]}()' can't be used with the field '{field.name}'.")
        if field.kind == "number":
            try:
                return Decimal(value)
            except InvalidOperation:
                raise jql.JQLError(f"The value '{value}' is not a number: '{field.name}' takes numbers.") from None
        if field.kind == "date":
            if not DATE.fullmatch(value):
                raise jql.JQLError(
                    f"Date value '{value}' for field '{field.name}' is invalid. The valid format is 'yyyy-MM-dd'."
                )
            return value
        if field.kind == "select":
            option = next((o for o in field.options if o.lower() == value.lower()), None)
            if option is not None:
                return option
            if field.values.filter(value=value).exists():  # an option renamed since, still on old issues
                return value
            raise jql.JQLError(f"The option '{value}' for field '{field.name}' does not exist.")
        return value

    def person_ids(self, clause, value):
        if isinstance(value, tuple):
            if value[1] != "currentuser":
                raise jql.JQLError(f"Function '{value[1]}()' can't be used with the field '{clause.field}'.")
            return self.person.id
        found = self.people.get(value.lower()) or self.people_by_name.get(value.lower())
        if found is None:
            raise _values_error(clause.field, value)
        return found.id

    def sprint_ids(self, value) -> set:
        if isinstance(value, tuple):
            state = {"opensprints": "active", "closedsprints": "closed", "futuresprints": "future"}.get(value[1])
            if state is None:
                raise jql.JQLError(f"Function '{value[1]}()' can't be used with the field 'sprint'.")
            return {s.id for s in self.sprints if s.state == state}
        found = {s.id for s in self.sprints if s.name.lower() == value.lower() or str(s.public_id) == value}
        if not found:
            raise _values_error("sprint", value)
        return found

    def normalise(self, clause, value):
        """The value as stored on the issue (or a set of ids for sprints), checked to exist."""
        field = clause.field
        if field in self.fields:
            return self.custom_normalise(field, value)
        if isinstance(value, tuple) and field not in ("assignee", "reporter", "sprint"):
            raise jql.JQLError(f"Function '{value[1]}()' can't be used with the field '{field}'.")
        if field == "project":
            project = self.projects.get(value.lower())
            if project is None:
                raise _values_error("project", value)
            return project.id
        if field in ("assignee", "reporter"):
            return self.person_ids(clause, value)
        if field == "sprint":
            return self.sprint_ids(value)
        if field == "status":
            # the statuses of the world's workflows (any project's): a status no workflow has does not exist
            match = next((s for s in world_statuses() if s.lower() == value.lower()), None)
            if match is None:
                raise _values_error("status", value)
            return match
        if field == "priority":
            match = next((p for p in W.PRIORITIES if p.lower() == value.lower()), None)
            if match is None:
                raise _values_error("priority", value)
            return match
        if field == "resolution":
            if value.lower() in ("unresolved", ""):
                return ""
            match = next((r for r in W.RESOLUTIONS if r.lower() == value.lower()), None)
            if match is None:
                raise _values_error("resolution", value)
            return match
        if field == "type":
            if value.lower() not in TYPE_ALIASES:
                raise _values_error("issuetype", value)
            return TYPE_ALIASES[value.lower()]
        if field in ("key", "epic", "parent"):
            return value.upper()
        if field == "issueLinkType":
            match = next((p for p in LINK_PHRASES if p == " ".join(value.lower().split())), None)
            if match is None:
                raise _values_error("issueLinkType", value)
            return match
        if field == "storyPoints":
            try:
                return int(value)
            except ValueError:
                raise jql.JQLError(f"The value '{value}' is not a number: 'storyPoints' takes whole numbers.") from None
        return value

    def getter(self, field):
        if field in self.fields:
            return lambda i: self.custom_value(field, i)
        return {
            "project": lambda i: i.project_id,
            "key": lambda i: i.key,
            "type": lambda i: i.issue_type,
            "status": lambda i: i.status,
            "resolution": lambda i: i.resolution,
            "priority": lambda i: i.priority,
            "assignee": lambda i: i.assignee_id,
            "reporter": lambda i: i.reporter_id,
            "labels": lambda i: i.labels,
            "component": lambda i: i.components,
            "fixVersion": lambda i: i.fix_versions,
            "sprint": lambda i: i.sprint_id,
            "epic": lambda i: i.epic.key if i.epic_id else None,
            "parent": lambda i: i.parent.key if i.parent_id else None,
            "summary": lambda i: i.summary,
            "description": lambda i: i.description,
            "text": lambda i: f"{i.summary}\n{i.description}",
            "storyPoints": lambda i: i.story_points,
            "issueLinkType": self.link_phrases,
        }[field]

    def compile(self, node):
        if node is None:
            return lambda issue: True
        if isinstance(node, jql.BoolNode):
            parts = [self.compile(c) for c in node.children]
            if node.op == "and":
                return lambda issue: all(p(issue) for p in parts)
            if node.op == "or":
                return lambda issue: any(p(issue) for p in parts)
            return lambda issue: not parts[0](issue)
        get, op, field = self.getter(node.field), node.op, node.field
        if op in ("is", "is not"):
            empty = (
                (lambda v: not v)
                if field in jql.LIST_FIELDS or field in ("resolution",)
                else (lambda v: v is None or v == "")
            )
            return (lambda issue: empty(get(issue))) if op == "is" else (lambda issue: not empty(get(issue)))
        values = [self.normalise(node, v) for v in node.values]
        if field in jql.TEXT_FIELDS or op in ("~", "!~"):
            words = [w.lower() for w in re_words(values[0])]
            hit = lambda issue: all(w in (get(issue) or "").lower() for w in words)  # noqa: E731
            return hit if op == "~" else (lambda issue: not hit(issue))
        if op in ("<", "<=", ">", ">="):
            bound = values[0]
            cmp = {
                "<": lambda a: a < bound,
                "<=": lambda a: a <= bound,
                ">": lambda a: a > bound,
                ">=": lambda a: a >= bound,
            }[op]
            return lambda issue: get(issue) is not None and cmp(get(issue))
        if field == "sprint":
            ids = set().union(*values)
            hit = lambda issue: get(issue) in ids  # noqa: E731
        elif field in jql.LIST_FIELDS:
            wanted = set(values)
            hit = lambda issue: bool(wanted & set(get(issue)))  # noqa: E731
        else:
            wanted = set(values)
            hit = lambda issue: get(issue) in wanted  # noqa: E731
        return hit if op in ("=", "in") else (lambda issue: not hit(issue))

    def project_ids(self, node) -> set | None:
        """The projects every match is in, when the query's top level says so (`project = X`, `project in
        (...)`, or an AND holding one), so only their issues are read; None when the query does not bound them."""
        if isinstance(node, jql.Clause):
            if node.field == "project" and node.op in ("=", "in"):
                return {self.normalise(node, v) for v in node.values}
            return None
        if isinstance(node, jql.BoolNode) and node.op == "and":
            bounds = [b for b in map(self.project_ids, node.children) if b is not None]
            return set.intersection(*bounds) if bounds else None
        return None

    def sort_key(self, order):
        def key(issue):
            parts = []
            for field, desc in order:
                value = {
                    "priority": jql.PRIORITY_ORDER[issue.priority],
                    "key": (issue.project.key, issue.number),
                    "status": W.ALL_STATUSES.index(issue.status),
                    "assignee": issue.assignee.name if issue.assignee_id else "~",
                    "created": issue.created_at.timestamp(),
                    "updated": issue.updated_at.timestamp(),
                    "rank": issue.rank,
                    "storyPoints": issue.story_points if issue.story_points is not None else -1,
                    "duedate": issue.due_date.toordinal() if issue.due_date else 0,
                    "type": issue.issue_type,
                }[field]
                parts.append(Desc(value) if desc else value)
            parts.append((issue.project.key, issue.number))
            return parts

        return key


class Desc:
    """Reverses the order of one sort key part."""

    def __init__(self, value):
        self.value = value

    def __lt__(self, other):
        return other.value < self.value

    def __eq__(self, other):
        return self.value == other.value


def re_words(text: str) -> list[str]:
    return [w for w in text.replace("*", " ").split() if w]


def issues_search(*, query: str, person: Person) -> tuple[list[Issue], int]:
    """Issues matching `query` in its order (default: newest first), at most MAX_RESULTS, and the total count.

    Raises jql.JQLError with the product's message when the query is wrong.
    """
    fields = custom_fields()
    parsed = jql.parse(query, parser_fields(fields))
    runner = Runner(person, fields)
    match = runner.compile(parsed.where)
    rows = Issue.objects.select_related("project", "assignee", "epic", "parent", "sprint")
    projects = runner.project_ids(parsed.where)
    if projects is not None:  # a narrower read; `match` still decides, so the result is the same
        rows = rows.filter(project_id__in=projects)
    found = [i for i in rows if match(i)]
    found.sort(key=runner.sort_key(parsed.order or [("created", True)]))
    return found[:MAX_RESULTS], len(found)
