"""Reads of the issue board: projects, work items and what their pages show, the board's cards and
swimlanes, backlog sections, sprints, people, saved filters.

Everything here reads the bound world through world-scoped managers and tells time by the world
clock; nothing writes. A lookup that finds nothing answers None; views turn that into a 404.
"""

from collections import Counter
from datetime import timedelta
from types import SimpleNamespace

from django.db.models import Count, Max, Q

from replicas.worlds.clock import now

from . import jql
from . import workflow as W
from .models import BoardColumn, Change, Component, Filter, Issue, Mention, Person, Project, ProjectPage, Sprint
from .search import custom_fields, world_statuses

KANBAN_DONE_DAYS = 14  # a kanban board hides work resolved longer ago than this, as the product does
NOT_RANKED = ("epic", "subtask")  # the backlog and its sprints list neither


def projects() -> list[Project]:
    return list(Project.objects.order_by("key"))


def project_by_key(key: str) -> Project | None:
    return Project.objects.select_related("workflow").filter(key=key.upper()).first()


def project_pages(project: Project) -> list[ProjectPage]:
    """The project's pages in the sidebar's order (their bodies are read only by the page itself)."""
    return list(project.pages.order_by("position").only("project", "slug", "title", "position"))


def project_page(project: Project, slug: str) -> ProjectPage | None:
    return project.pages.select_related("author").filter(slug=slug).first()


def people_names() -> dict[str, str]:
    """username -> today's name of everyone, people who left included (a page may still name them)."""
    return dict(Person.objects.values_list("username", "name"))


def issue_by_key(key: str) -> Issue | None:
    return (
        Issue.objects.select_related("project__workflow", "assignee", "reporter", "sprint", "epic", "parent")
        .filter(key=key.upper())
        .first()
    )


def epic_of_project(project: Project, key: str) -> Issue | None:
    return Issue.objects.filter(key=key.upper(), issue_type="epic", project=project).first()


# --- people -----------------------------------------------------------------------------------------


def active_people() -> list[Person]:
    return list(Person.objects.filter(active=True).order_by("name"))


def active_person(username: str) -> Person | None:
    return Person.objects.filter(username=username, active=True).first()


def person_by_username(username: str) -> Person | None:
    return Person.objects.filter(username=username).first()


# --- the board --------------------------------------------------------------------------------------


def by_rank(issues) -> list[Issue]:
    return sorted(issues, key=lambda i: (i.rank, i.key))


def active_sprint(project: Project) -> Sprint | None:
    return project.sprints.filter(state=Sprint.State.ACTIVE).first()


def board_columns(project: Project) -> list[BoardColumn]:
    return list(BoardColumn.objects.filter(project=project).order_by("position"))


# What the board page reads of its cards, their assignees, parents and epics: read as plain rows, not
# model instances (a kanban board holds a few hundred), by board_cards. Keep in step with board_card.
CARD_COLUMNS = ("id", "key", "issue_type", "summary", "status", "resolution", "priority", "labels")
CARD_COLUMNS += ("story_points", "rank", "updated_at", "assignee_id", "epic_id", "parent_id", "parent__key")
CARD_COLUMNS += ("epic__key", "epic__summary", "epic__rank", "epic__status")
CARD_COLUMNS += ("assignee__public_id", "assignee__username", "assignee__name", "assignee__avatar_color")


class Card:
    """A work item as the board shows it: the fields of CARD_COLUMNS, with `assignee` a Person (one
    object per person, shared by their cards), `epic` and `parent` the few fields a card shows of them."""

    __slots__ = (*(c for c in CARD_COLUMNS if "__" not in c), "assignee", "epic", "parent")

    def __init__(self, row: dict, people: dict):
        for name in self.__slots__[:-3]:
            setattr(self, name, row[name])
        self.assignee = None
        if self.assignee_id is not None:
            self.assignee = people.get(self.assignee_id)
            if self.assignee is None:
                self.assignee = people[self.assignee_id] = Person(
                    id=self.assignee_id,
                    public_id=row["assignee__public_id"],
                    username=row["assignee__username"],
                    name=row["assignee__name"],
                    avatar_color=row["assignee__avatar_color"],
                )
        self.epic = self.parent = None
        if self.epic_id is not None:
            self.epic = SimpleNamespace(
                id=self.epic_id,
                key=row["epic__key"],
                summary=row["epic__summary"],
                rank=row["epic__rank"],
                status=row["epic__status"],
            )
        if self.parent_id is not None:
            self.parent = SimpleNamespace(id=self.parent_id, key=row["parent__key"])


def board_cards(project: Project, sprint: Sprint | None) -> list[Card]:
    """board_issues as the board page shows them (cards, its toolbar and swimlanes): plain rows of
    CARD_COLUMNS, a fraction of the cost of model instances."""
    people: dict[int, Person] = {}
    return [Card(row, people) for row in _board_rows(project, sprint).values(*CARD_COLUMNS)]


def board_issues(project: Project, sprint: Sprint | None) -> list[Issue]:
    """A scrum board shows its active sprint; a kanban board all open work of the project and what
    was resolved in the last two weeks."""
    return list(_board_rows(project, sprint).select_related("assignee", "parent", "epic"))


def _board_rows(project: Project, sprint: Sprint | None):
    rows = Issue.objects.exclude(issue_type="epic")
    if project.board_type == Project.BoardType.KANBAN:
        since = now() - timedelta(days=KANBAN_DONE_DAYS)
        return rows.filter(project=project).filter(~Q(status=W.DONE) | Q(resolved_at__gte=since))
    return rows.filter(sprint=sprint) if sprint is not None else rows.none()


def board_lanes(project: Project, heads: list[dict], shown: list[Issue]) -> list[dict]:
    """Rows of the board by the project's swimlanes: assignees by name then Unassigned; epics in rank
    order then "Issues without epic". A lane shows only when it holds a card, as in the product."""
    by = project.swimlanes
    if by == Project.Swimlanes.ASSIGNEE:
        owner = {i.key: i.assignee for i in shown}
        people = sorted({p.username: p for p in owner.values() if p}.values(), key=lambda p: (p.name, p.username))
        lanes = [(p.username, p.name, p) for p in people] + [("", "Unassigned", None)]
        lane_of = {k: (p.username if p else "") for k, p in owner.items()}
    elif by == Project.Swimlanes.EPIC:
        epics = sorted({i.epic.key: i.epic for i in shown if i.epic_id}.values(), key=lambda e: (e.rank, e.key))
        lanes = [(e.key, e.summary, e) for e in epics] + [("", "Issues without epic", None)]
        lane_of = {i.key: (i.epic.key if i.epic_id else "") for i in shown}
    else:
        lanes, lane_of = [(None, "", None)], {i.key: None for i in shown}
    result = []
    for key, title, head in lanes:
        cards = [i for i in shown if lane_of[i.key] == key]
        if key is not None and not cards:
            continue
        by_status = {h["column"].status: [] for h in heads}
        for issue in by_rank(cards):
            by_status.setdefault(issue.status, []).append(issue)
        result.append(
            {
                "key": key,
                "title": title,
                "head": head,
                "count": len(cards),
                "cells": [{"column": h["column"], "head": h, "issues": by_status[h["column"].status]} for h in heads],
            }
        )
    return result


# --- backlog and sprints ----------------------------------------------------------------------------


def open_sprints(project: Project) -> list[Sprint]:
    return list(project.sprints.exclude(state=Sprint.State.CLOSED).order_by("number"))


def future_sprints(project: Project) -> list[Sprint]:
    return list(project.sprints.filter(state=Sprint.State.FUTURE).order_by("number"))


def started_sprints(project: Project) -> list[Sprint]:
    """Active and closed sprints, the latest first (the reports' sprint picker)."""
    return list(project.sprints.exclude(state=Sprint.State.FUTURE).order_by("-number"))


def sprint_by_id(project: Project, public_id) -> Sprint | None:
    return project.sprints.filter(public_id=public_id).first() if str(public_id).isdigit() else None


def _epic_filter(rows, epic: Issue | None | str):
    """`epic`: an epic's work only; "none": work without an epic; "": everything."""
    if epic == "none":
        return rows.filter(epic__isnull=True)
    return rows.filter(epic=epic) if epic else rows


def sprint_issues(sprint: Sprint, epic: Issue | None | str = "") -> list[Issue]:
    """A sprint's work in rank order, as the backlog lists it."""
    rows = sprint.issues.exclude(issue_type__in=NOT_RANKED).select_related("assignee", "epic")
    return by_rank(_epic_filter(rows, epic))


def backlog_issues(project: Project, epic: Issue | None | str = "") -> list[Issue]:
    """Open work of the project in no sprint, in rank order."""
    rows = Issue.objects.filter(project=project, sprint__isnull=True).exclude(issue_type__in=NOT_RANKED)
    return by_rank(_epic_filter(rows.exclude(status=W.DONE).select_related("assignee", "epic"), epic))


def project_epics(project: Project) -> list[dict]:
    """The backlog's epic panel: open epics in rank order, each with how much of its work is done."""
    epics = by_rank(Issue.objects.filter(project=project, issue_type="epic").exclude(status=W.DONE))
    counts = Issue.objects.filter(epic__in=epics).values("epic_id", "status").annotate(n=Count("id"))
    total, done = Counter(), Counter()
    for row in counts:
        total[row["epic_id"]] += row["n"]
        done[row["epic_id"]] += row["n"] if row["status"] == W.DONE else 0
    return [
        {
            "key": e.key,
            "summary": e.summary,
            "total": total[e.id],
            "done": done[e.id],
            "percent": round(100 * done[e.id] / total[e.id]) if total[e.id] else 0,
        }
        for e in epics
    ]


def sprint_open_issues(sprint: Sprint) -> list[Issue]:
    return list(sprint.issues.exclude(status=W.DONE))


def sprint_done_count(sprint: Sprint) -> int:
    return sprint.issues.filter(status=W.DONE).count()


def backlog_peers(issue: Issue) -> list[Issue]:
    """The issues `issue` is ranked among in the backlog: its sprint's, or the backlog's."""
    rows = Issue.objects.filter(project=issue.project).exclude(issue_type__in=NOT_RANKED)
    if issue.sprint is not None:
        return list(rows.filter(sprint=issue.sprint))
    return list(rows.filter(sprint__isnull=True).exclude(status=W.DONE))


# --- a work item's page -----------------------------------------------------------------------------


def issue_details(issue: Issue) -> dict:
    """Comments, history, links both ways, sub-tasks, watchers and attachments of an issue."""
    links = [(W.LINK_KINDS[lk.kind][0], lk.target) for lk in issue.outward_links.select_related("target")]
    links += [(W.LINK_KINDS[lk.kind][1], lk.source) for lk in issue.inward_links.select_related("source")]
    return {
        "comments": list(
            issue.comments.select_related("author")
            .prefetch_related("mentions__person")
            .order_by("created_at", "public_id")
        ),
        "history": list(issue.changes.select_related("author").order_by("-created_at", "-public_id")),
        "links": sorted(links, key=lambda x: (x[0], x[1].key)),
        "subtasks": list(issue.subtasks.select_related("assignee").order_by("number")),
        "watchers": list(issue.watchers.select_related("person").order_by("person__name")),
        "attachments": list(issue.attachments.select_related("author").order_by("created_at", "public_id")),
    }


def attachment_of(issue: Issue, public_id: int):
    return issue.attachments.filter(public_id=public_id).first()


def components(project: Project) -> list[Component]:
    return list(project.components.select_related("lead").order_by("name"))


def issues_by_keys(keys) -> list[Issue]:
    return list(Issue.objects.select_related("project__workflow").filter(key__in=keys).order_by("key"))


def key_exists(key: str) -> bool:
    return Issue.objects.filter(key=key.upper()).exists()


# --- saved filters ----------------------------------------------------------------------------------


def filter_by_id(public_id) -> Filter | None:
    if not str(public_id).isdigit():
        return None
    return Filter.objects.select_related("owner").filter(public_id=public_id).first()


def filters_of(person: Person) -> list[Filter]:
    return list(Filter.objects.filter(owner=person).order_by("-starred", "name"))


# --- navigation: your work, notifications, a project's summary and timeline --------------------------

NOTIFICATIONS = 8
RECENT_WORK = 10


def mentions_of(person: Person) -> list[Mention]:
    """The notifications menu: the latest comments that mention `person`, newest first."""
    return list(
        Mention.objects.filter(person=person)
        .select_related("comment__author", "comment__issue")
        .order_by("-comment__created_at", "-comment__public_id")[:NOTIFICATIONS]
    )


def mention_count(person: Person) -> int:
    """How many items the notifications menu holds (at most NOTIFICATIONS): the bell's dot and label."""
    return len(Mention.objects.filter(person=person).values_list("id", flat=True)[:NOTIFICATIONS])


def assigned_open(person: Person) -> list[Issue]:
    """Your work's "Assigned to me": open work items, most recently updated first."""
    rows = Issue.objects.filter(assignee=person).exclude(status=W.DONE).select_related("project")
    return list(rows.order_by("-updated_at", "key"))


def worked_on(person: Person) -> list[Issue]:
    """Your work's "Worked on": the work items `person` last changed, newest first."""
    changes = Change.objects.filter(author=person).order_by("-created_at", "-public_id")
    keys = list(dict.fromkeys(changes.values_list("issue__key", flat=True)[: RECENT_WORK * 5]))[:RECENT_WORK]
    found = {i.key: i for i in Issue.objects.filter(key__in=keys).select_related("project")}
    return [found[k] for k in keys if k in found]


def project_overview(project: Project) -> dict:
    """The Summary page: work items by status, type and priority, and what changed in the last week."""
    rows = Issue.objects.filter(project=project).exclude(issue_type="subtask")
    by = {}
    for name in ("status", "issue_type", "priority"):
        counts = dict(rows.values_list(name).annotate(n=Count("id")).order_by())
        by[name] = counts
    week = now() - timedelta(days=7)
    total = sum(by["status"].values())
    return {
        "total": total,
        "statuses": [(s, by["status"].get(s, 0)) for s in project.workflow.statuses],
        "types": sorted(by["issue_type"].items(), key=lambda kv: list(W.TYPE_NAMES).index(kv[0])),
        "priorities": [(p, by["priority"].get(p, 0)) for p in W.PRIORITIES],
        "created": rows.filter(created_at__gte=week).count(),
        "updated": rows.filter(updated_at__gte=week).count(),
        "done": rows.filter(resolved_at__gte=week).count(),
        "due": rows.filter(due_date__gte=now().date(), due_date__lte=(now() + timedelta(days=7)).date()).count(),
    }


def project_timeline(project: Project) -> list[dict]:
    """The Timeline: each epic from its creation to its due date (or its latest child's), in rank order."""
    epics = by_rank(Issue.objects.filter(project=project, issue_type="epic"))
    ends = dict(
        Issue.objects.filter(epic__in=epics, due_date__isnull=False)
        .values("epic_id")
        .annotate(last=Max("due_date"))
        .values_list("epic_id", "last")
    )
    return [{"epic": e, "start": e.created_at.date(), "end": e.due_date or ends.get(e.id)} for e in epics]


# --- the search page's JQL autocomplete ---------------------------------------------------------------

DATE_SUGGESTIONS = ["-1d", "-7d", "-30d", "startOfDay()", "startOfWeek()", "startOfMonth()", "now()"]


def jql_vocabulary() -> dict:
    """What the JQL box suggests: field names, the operators each takes, and the values of this world."""
    people = [p.username for p in Person.objects.filter(active=True).order_by("username")]
    values = {
        "project": [p.key for p in Project.objects.order_by("key")],
        "type": [W.TYPE_NAMES[t] for t in W.TYPE_NAMES],
        "status": world_statuses(),
        "statusCategory": ["To Do", "In Progress", "Done"],
        "priority": list(W.PRIORITIES),
        "resolution": ["Unresolved", *W.RESOLUTIONS],
        "assignee": ["currentUser()", "EMPTY", *people],
        "reporter": ["currentUser()", *people],
        "watcher": ["currentUser()", *people],
        "sprint": ["openSprints()", "futureSprints()", "closedSprints()"]
        + [s.name for s in Sprint.objects.order_by("project__key", "number")],
        "labels": sorted({lbl for labels in Issue.objects.values_list("labels", flat=True) for lbl in labels}),
        "component": sorted(set(Component.objects.values_list("name", flat=True))),
        **{f: DATE_SUGGESTIONS for f in jql.DATE_FIELDS},
    }
    values["parent"] = values["epic"] = list(
        Issue.objects.filter(issue_type="epic").order_by("project__key", "number").values_list("key", flat=True)
    )
    fields = sorted(set(jql.FIELDS.values()) | {f.name for f in custom_fields().values()}, key=str.lower)
    operators = {}
    for field in fields:
        if field in jql.TEXT_FIELDS:
            ops = ["~", "!~", "is", "is not"]
        elif field in jql.DATE_FIELDS | jql.NUMBER_FIELDS:
            ops = ["=", "!=", ">", ">=", "<", "<=", "is", "is not"]
        else:
            ops = ["=", "!=", "in", "not in", "is", "is not"]
        operators[field] = ops + (["was", "was in", "was not", "changed"] if field in jql.HISTORY_FIELDS else [])
    return {"fields": fields, "operators": operators, "values": values, "orderable": sorted(jql.ORDERABLE)}


def basic_choices() -> dict:
    """The Basic search's pickers: value -> label, as the JQL each value writes."""
    return {
        "project": {p.key: p.name for p in Project.objects.order_by("key")},
        "type": {W.TYPE_NAMES[t]: W.TYPE_NAMES[t] for t in W.TYPE_NAMES},
        "status": {s: s for s in world_statuses()},
        "assignee": {"currentUser()": "Current user", "EMPTY": "Unassigned"}
        | {p.username: p.name for p in Person.objects.filter(active=True).order_by("name")},
    }
