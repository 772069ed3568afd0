"""Runs a JQL query (jql.py) over the bound world's issues, as a person sees them."""

import re
from datetime import date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from functools import cached_property

from replicas.worlds.clock import now

from . import jql
from . import workflow as W
from .models import Change, CustomField, FieldValue, Issue, Link, Person, Project, Sprint, Watcher, Workflow

TYPE_ALIASES = {
    "epic": "epic",
    "story": "story",
    "task": "task",
    "bug": "bug",
    "sub-task": "subtask",
    "subtask": "subtask",
}
PAGE_SIZE = 50  # the product's issue navigator shows 50 work items a page
STATUS_CATEGORIES = {"to do": "new", "new": "new", "in progress": "indeterminate", "indeterminate": "indeterminate"}
STATUS_CATEGORIES |= {"done": "done", "complete": "done"}
PERIOD = re.compile(r"\s*(\d+)\s*([wdhm])")
ABSOLUTE = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:\s+(\d{1,2}):(\d{2}))?")
PERIOD_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes"}


def _values_error(field: str, value: str):
    return jql.JQLError(f"The value '{value}' does not exist for the field '{field}'.")


DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def world_statuses() -> list[str]:
    """The statuses of the bound world's workflows (every project's), in workflow.ALL_STATUSES order."""
    known = {s for statuses in Workflow.objects.values_list("statuses", flat=True) for s in statuses}
    return [s for s in W.ALL_STATUSES if s in known]


def date_error(field: str, value: str) -> jql.JQLError:
    return jql.JQLError(
        f"Date value '{value}' for field '{field}' is invalid. Valid formats include: 'yyyy/MM/dd HH:mm', "
        "'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'."
    )


def period(text: str) -> timedelta | None:
    """A period as JQL writes it ("-30d", "4w 2d", "+3h", "15m"), or None when `text` is not one."""
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    body = text[1:] if text[:1] in "+-" else text
    parts = PERIOD.findall(body)
    if not parts or PERIOD.sub("", body).strip():
        return None
    return sign * timedelta(**_sum_units(parts))


def _sum_units(parts) -> dict:
    units: dict[str, int] = {}
    for amount, unit in parts:
        units[PERIOD_UNITS[unit]] = units.get(PERIOD_UNITS[unit], 0) + int(amount)
    return units


def _month_start(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def date_function(field: str, name: str, argument: str | None, clock: datetime) -> datetime:
    """now(), startOfDay() ... endOfYear() on the world clock; an offset moves the unit it names or,
    bare ("-1"), the function's own unit. Weeks start on Monday."""
    offset = argument or "0"
    unit = {"week": "w", "month": "M", "year": "y"}.get(re.sub(r"^(start|end)of", "", name), "d")
    bare = re.fullmatch(r"([+-]?)(\d+)", offset.strip())
    step = timedelta(0)
    months = 0
    if bare:
        count = int(bare.group(2)) * (-1 if bare.group(1) == "-" else 1)
        if unit in ("M", "y"):
            months = count * (12 if unit == "y" else 1)
        else:
            step = timedelta(days=count * (7 if unit == "w" else 1))
    else:
        step = period(offset)
        if step is None:
            raise jql.JQLError(f"The offset '{offset}' of function '{name}()' is invalid: use e.g. '-1', '-1w', '+2d'.")
    if name == "now":
        return clock + step
    midnight = datetime.combine(clock.date(), time(), tzinfo=clock.tzinfo)
    start = {
        "day": midnight,
        "week": midnight - timedelta(days=clock.weekday()),
        "month": datetime.combine(clock.date().replace(day=1), time(), tzinfo=clock.tzinfo),
        "year": datetime.combine(clock.date().replace(month=1, day=1), time(), tzinfo=clock.tzinfo),
    }
    span = re.sub(r"^(start|end)of", "", name)
    begin = start[span]
    if months:
        begin = datetime.combine(_month_start(begin.date(), months), time(), tzinfo=clock.tzinfo)
    begin += step
    if name.startswith("start"):
        return begin
    following = {
        "day": begin + timedelta(days=1),
        "week": begin + timedelta(weeks=1),
        "month": datetime.combine(_month_start(begin.date(), 1), time(), tzinfo=clock.tzinfo),
        "year": begin.replace(year=begin.year + 1),
    }[span]
    return following - timedelta(microseconds=1)


def date_value(field: str, value, clock: datetime) -> datetime:
    """A JQL date (function, period, or absolute date) as an aware datetime on the world clock."""
    if isinstance(value, tuple):
        return date_function(field, value[1], value[2], clock)
    step = period(value)
    if step is not None:
        return clock + step
    m = ABSOLUTE.fullmatch(value.strip())
    if m is None:
        raise date_error(field, value)
    year, month, day, hour, minute = (int(g) if g else 0 for g in m.groups())
    try:
        return datetime(year, month, day, hour, minute, tzinfo=clock.tzinfo)
    except ValueError:
        raise date_error(field, value) from None


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
        self.projects = {p.key.lower(): p for p in Project.objects.all()}
        self.project_keys = {p.id: p.key for p in self.projects.values()}
        self.fields = fields
        self.clock = now()
        self._values = None
        self._links = None
        self._watchers = None
        self._history = {}
        self._keys = None

    # people and sprints are read only by the queries that name them
    @cached_property
    def people(self) -> dict[str, Person]:
        return {p.username.lower(): p for p in Person.objects.all()}

    @cached_property
    def people_by_name(self) -> dict[str, Person]:
        return {p.name.lower(): p for p in self.people.values()}

    @cached_property
    def names(self) -> dict[int, str]:
        return {p.id: p.name for p in self.people.values()}

    @cached_property
    def sprints(self) -> list[Sprint]:
        return list(Sprint.objects.all())

    @cached_property
    def statuses(self) -> list[str]:
        return world_statuses()

    def issue_key(self, issue_id: int | None) -> str | None:
        """The key of an issue by its id (an epic's, a parent's), read once for all of them when asked."""
        if issue_id is None:
            return None
        if self._keys is None:  # read only by queries that name epic or parent
            self._keys = dict(Issue.objects.values_list("id", "key"))
        return self._keys[issue_id]

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

    def watcher_ids(self, issue: Issue) -> list[int]:
        if self._watchers is None:  # read only by queries that name watcher
            self._watchers = {}
            for issue_id, person_id in Watcher.objects.values_list("issue_id", "person_id"):
                self._watchers.setdefault(issue_id, []).append(person_id)
        return self._watchers.get(issue.id, [])

    def held(self, field: str, issue: Issue) -> set[str]:
        """Every value `field` has had on the issue, as its history writes them (status names, people's
        names, "" for none): what WAS reads."""
        if field not in self._history:
            past: dict[int, set[str]] = {}
            for issue_id, old, new in Change.objects.filter(field=field).values_list(
                "issue_id", "from_value", "to_value"
            ):
                past.setdefault(issue_id, set()).update((old, new))
            self._history[field] = past
        if field == "assignee":
            current = self.names[issue.assignee_id] if issue.assignee_id else ""
        else:  # status, priority, resolution
            current = getattr(issue, field)
        return self._history[field].get(issue.id, set()) | {current}

    def history_value(self, clause, value) -> str:
        """A WAS value as the history writes it: a person's name, a status, a priority, "" for none."""
        if clause.field == "assignee":
            return Person.objects.get(id=self.person_ids(clause, value)).name
        return self.normalise(clause, value)

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
        if field in jql.DATE_FIELDS:
            bound = date_value(field, value, self.clock)
            return bound.date() if field == "due" else bound
        if isinstance(value, tuple) and field not in ("assignee", "reporter", "sprint", "watcher"):
            raise jql.JQLError(f"Function '{value[1]}()' can't be used with the field '{field}'.")
        if field == "project":
            project = self.projects.get(value.lower())
            if project is None:
                raise _values_error("project", value)
            return project.id
        if field in ("assignee", "reporter", "watcher"):
            return self.person_ids(clause, value)
        if field == "statusCategory":
            category = STATUS_CATEGORIES.get(value.lower())
            if category is None:
                raise _values_error("statusCategory", value)
            return category
        if field == "sprint":
            return self.sprint_ids(value)
        if field == "status":
            # the statuses of the world's workflows (any project's): a status no workflow has does not exist
            match = next((s for s in self.statuses if s.lower() == value.lower()), None)
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
            "epic": lambda i: self.issue_key(i.epic_id),
            # today's product: a sub-task's parent, or the epic a work item sits under
            "parent": lambda i: self.issue_key(i.parent_id or i.epic_id),
            "statusCategory": lambda i: W.CATEGORY[i.status],
            "watcher": self.watcher_ids,
            "created": lambda i: i.created_at,
            "updated": lambda i: i.updated_at,
            "resolved": lambda i: i.resolved_at,
            "due": lambda i: i.due_date,
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
        if op.startswith("was"):
            wanted = {self.history_value(node, v) for v in node.values}
            hit = lambda issue: bool(wanted & self.held(field, issue))  # noqa: E731
            return (lambda issue: not hit(issue)) if " not" in op else hit
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
        parts = {
            "priority": lambda i: jql.PRIORITY_ORDER[i.priority],
            "key": lambda i: (self.project_keys[i.project_id], i.number),
            "status": lambda i: W.ALL_STATUSES.index(i.status),
            "assignee": lambda i: self.names[i.assignee_id] if i.assignee_id else "~",
            "created": lambda i: i.created_at.timestamp(),
            "updated": lambda i: i.updated_at.timestamp(),
            "rank": lambda i: i.rank,
            "storyPoints": lambda i: i.story_points if i.story_points is not None else -1,
            "resolved": lambda i: i.resolved_at.timestamp() if i.resolved_at else 0,
            "due": lambda i: i.due_date.toordinal() if i.due_date else 0,
            "type": lambda i: i.issue_type,
        }
        steps = [(parts[field], desc) for field, desc in order]

        def key(issue):
            values = [Desc(part(issue)) if desc else part(issue) for part, desc in steps]
            values.append((self.project_keys[issue.project_id], issue.number))
            return values

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


# The columns of an issue each JQL field reads (to match or to sort): a search reads only those of
# its query's fields, besides the id, project and number every result is ordered by.
COLUMNS = {
    "project": (),
    "key": ("key",),
    "type": ("issue_type",),
    "status": ("status",),
    "statusCategory": ("status",),
    "resolution": ("resolution",),
    "priority": ("priority",),
    "assignee": ("assignee_id",),
    "reporter": ("reporter_id",),
    "labels": ("labels",),
    "component": ("components",),
    "fixVersion": ("fix_versions",),
    "sprint": ("sprint_id",),
    "epic": ("epic_id",),
    "parent": ("parent_id", "epic_id"),
    "created": ("created_at",),
    "updated": ("updated_at",),
    "resolved": ("resolved_at",),
    "due": ("due_date",),
    "summary": ("summary",),
    "description": ("description",),
    "text": ("summary", "description"),
    "storyPoints": ("story_points",),
    "rank": ("rank",),
    "watcher": (),
    "issueLinkType": (),
}
ALWAYS = ("id", "project_id", "number")
# what the navigator shows of each result (search.html); another field is read by one more query each
RESULT_FIELDS = ("key", "project_id", "number", "issue_type", "summary", "assignee", "priority", "status", "labels")
RESULT_FIELDS += ("sprint__name", "sprint__public_id", "epic_id", "parent_id", "created_at", "updated_at")


class Row:
    """An issue as the matcher and the sort read it: the columns its query names, by the model's names."""

    def __init__(self, names, values):
        self.__dict__.update(zip(names, values, strict=True))


def query_fields(node) -> set[str]:
    """Every field a query's WHERE names."""
    if node is None:
        return set()
    if isinstance(node, jql.BoolNode):
        return set().union(*map(query_fields, node.children))
    return {node.field}


def issues_search(*, query: str, person: Person, page: int | None = None) -> tuple[list[Issue], int]:
    """Issues matching `query` in its order (default: newest first), and the total count: all of them,
    or page `page` of PAGE_SIZE (the last page when past it) as the navigator shows them.

    The query is matched over rows of only the columns it names; the issues shown are then read whole.
    Raises jql.JQLError with the product's message when the query is wrong.
    """
    fields = custom_fields()
    parsed = jql.parse(query, parser_fields(fields))
    runner = Runner(person, fields)
    match = runner.compile(parsed.where)
    order = parsed.order or [("created", True)]
    names = list(ALWAYS)
    for field in sorted(query_fields(parsed.where) | {f for f, _ in order}):
        names += [c for c in COLUMNS.get(field, ()) if c not in names]
    rows = Issue.objects.all()
    projects = runner.project_ids(parsed.where)
    if projects is not None:  # a narrower read; `match` still decides, so the result is the same
        rows = rows.filter(project_id__in=projects)
    found = [row for row in (Row(names, values) for values in rows.values_list(*names)) if match(row)]
    found.sort(key=runner.sort_key(order))
    total = len(found)
    if page is not None:
        start = (page_clamp(page, total) - 1) * PAGE_SIZE
        found = found[start : start + PAGE_SIZE]
    shown = Issue.objects.select_related("assignee", "sprint").only(*RESULT_FIELDS).in_bulk([row.id for row in found])
    return [shown[row.id] for row in found], total


def page_count(total: int) -> int:
    return max(1, -(-total // PAGE_SIZE))


def page_clamp(page: int, total: int) -> int:
    return max(1, min(page, page_count(total)))
