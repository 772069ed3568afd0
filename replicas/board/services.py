"""Writes of the issue board: transitions, field edits (custom fields too), ranking, sprints, comments
with mentions, links, watchers, attachments, saved filters, board settings, bulk change.

Every change to an issue writes a line of its history (Change) as the product's changelog does,
and moves its `updated_at` to the world clock. Callers pass cleaned values; the rules of the
workflow and of sprints are checked here, so views and tasks cannot get around them.
"""

import re
from datetime import date, timedelta

from django.db import transaction
from django.db.models import Max

from replicas.worlds.clock import now

from . import workflow as W
from .models import (
    Attachment,
    Change,
    Comment,
    CustomField,
    FieldValue,
    Filter,
    Issue,
    Link,
    Mention,
    Person,
    Project,
    Sprint,
    Watcher,
)
from .search import query_check

# how the product writes a mention in a comment's text; the mention picker inserts it
MENTION = re.compile(r"\[~([A-Za-z0-9._-]{1,40})\]")


class BoardError(ValueError):
    """A request the product refuses; the message is what it shows."""


class Conflict(BoardError):
    """The issue changed since the page was loaded (someone else moved it)."""


def _next(model, start: int) -> int:
    top = model.objects.aggregate(top=Max("public_id"))["top"]
    return max(start, (top or 0) + 1)


next_public_id = _next  # for the data faults (faults.py), which add rows as the services do


def _display(field: str, value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(value)
    if isinstance(value, (Person, Sprint, Issue)):
        return str(value)
    return str(value)


def _record(issue: Issue, actor: Person, field: str, old, new) -> None:
    Change.objects.create(
        public_id=_next(Change, 100001),
        issue=issue,
        author=actor,
        field=field,
        from_value=_display(field, old),
        to_value=_display(field, new),
        created_at=now(),
    )


EDITABLE = (
    "summary",
    "description",
    "steps_to_reproduce",
    "priority",
    "assignee",
    "labels",
    "components",
    "fix_versions",
    "story_points",
    "sprint",
    "due_date",
    "resolution",
    "epic",
)


@transaction.atomic
def issue_update(*, issue: Issue, actor: Person, custom: dict | None = None, **values) -> list[str]:
    """Set fields of `issue`, and custom field values (`custom`: CustomField -> text, "" to clear);
    returns the names of those that changed (unchanged ones write no history)."""
    unknown = set(values) - set(EDITABLE)
    if unknown:
        raise BoardError(f"Field {sorted(unknown)[0]!r} can't be edited.")
    changed = _custom_update(issue, actor, custom or {})
    for field, new in values.items():
        if field in ("labels", "components", "fix_versions"):
            new = sorted(dict.fromkeys(new))
        old = getattr(issue, field)
        if old == new:
            continue
        if field == "sprint" and issue.parent_id:
            raise BoardError("A sub-task is always in its parent's sprint.")
        if field == "sprint" and new is not None and new.state == Sprint.State.CLOSED:
            raise BoardError(f"{new.name} is closed: work items can't be added to it.")
        if field == "resolution" and new and issue.status != W.DONE:
            raise BoardError("Only a done work item has a resolution: move it to Done to resolve it.")
        setattr(issue, field, new)
        _record(issue, actor, field, old, new)
        changed.append(field)
        if field == "sprint":
            for sub in issue.subtasks.all():
                _move_subtask(sub, actor, new)
    if changed:
        issue.updated_at = now()
        issue.save()
    return changed


def _custom_update(issue: Issue, actor: Person, custom: dict) -> list[str]:
    current = {v.field_id: v for v in issue.field_values.all()}
    changed = []
    for field, new in custom.items():
        if field.project_id != issue.project_id:
            raise BoardError(f"{field.name} is not a field of {issue.project.key}.")
        old = current.get(field.id)
        if (old.value if old else "") == new:
            continue
        if not new:
            old.delete()
        elif old:
            FieldValue.objects.filter(pk=old.pk).update(value=new)
        else:
            FieldValue.objects.create(issue=issue, field=field, value=new)
        _record(issue, actor, field.name, old.value if old else "", new)
        changed.append(field.name)
    return changed


def _move_subtask(sub: Issue, actor: Person, sprint) -> None:
    if sub.sprint_id != (sprint.id if sprint else None):
        _record(sub, actor, "sprint", sub.sprint, sprint)
        sub.sprint, sub.updated_at = sprint, now()
        sub.save(update_fields=["sprint", "updated_at"])


@transaction.atomic
def issue_transition(
    *, issue: Issue, actor: Person, target: str, resolution: str = "", seen_status: str | None = None
) -> None:
    """Move `issue` to `target` through the workflow.

    `seen_status` is the status the mover's page showed: when the issue has moved since,
    the move is refused as a conflict (the board reloads the card) instead of being applied
    over someone else's change.
    """
    if seen_status is not None and seen_status != issue.status:
        who = issue.changes.filter(field="status").order_by("-public_id").select_related("author").first()
        by = f" by {who.author.name}" if who else ""
        raise Conflict(
            f"{issue.key} was moved to {issue.status}{by} while you were looking. The board has been refreshed."
        )
    resolution = resolution or (issue.resolution if target == W.DONE else "")
    W.transition_check(
        W.Move(
            key=issue.key,
            issue_type=issue.issue_type,
            status=issue.status,
            target=target,
            assignee=issue.assignee.username if issue.assignee else None,
            actor=actor.username,
            resolution=resolution,
            steps_to_reproduce=issue.steps_to_reproduce,
        ),
        issue.project.workflow.flow(),
    )
    at = now()
    _record(issue, actor, "status", issue.status, target)
    if resolution != issue.resolution:
        _record(issue, actor, "resolution", issue.resolution, resolution)
    issue.status, issue.resolution, issue.updated_at = target, resolution, at
    issue.resolved_at = at if target == W.DONE else None
    issue.save(update_fields=["status", "resolution", "updated_at", "resolved_at"])


@transaction.atomic
def issue_rank(*, issue: Issue, actor: Person, before: Issue | None, after: Issue | None) -> None:
    """Put `issue` between `after` (above it) and `before` (below it) in board and backlog order."""
    if issue in (before, after):
        raise BoardError("A work item can't be ranked relative to itself.")
    low = after.rank if after else (before.rank - 2000 if before else issue.rank)
    high = before.rank if before else low + 2000
    if high - low < 2:
        # no room left between the neighbours: spread the ranks of everything from `high` on
        for n, other in enumerate(Issue.objects.filter(rank__gte=high).exclude(pk=issue.pk).order_by("rank", "key")):
            Issue.objects.filter(pk=other.pk).update(rank=high + 1000 * (n + 1))
        high = high + 1000
    new = (low + high) // 2
    if new == issue.rank:
        return
    _record(issue, actor, "Rank", "", "Ranked higher" if new < issue.rank else "Ranked lower")
    issue.rank, issue.updated_at = new, now()
    issue.save(update_fields=["rank", "updated_at"])


RANK_EDGES = ("top", "bottom")


def issue_rank_to_edge(*, issue: Issue, actor: Person, peers: list[Issue], edge: str, place: str) -> None:
    """The "Top of column" / "Bottom of backlog" menu items: rank `issue` first or last among `peers`
    (the other issues of its column or backlog section); `place` names them in the message."""
    if edge not in RANK_EDGES:
        raise BoardError("Choose whether to move the work item to the top or to the bottom.")
    others = sorted((p for p in peers if p.pk != issue.pk), key=lambda p: (p.rank, p.key))
    if edge == "top":
        if not others or (issue.rank, issue.key) < (others[0].rank, others[0].key):
            raise BoardError(f"{issue.key} is already at the top of {place}.")
        issue_rank(issue=issue, actor=actor, before=others[0], after=None)
    else:
        if not others or (issue.rank, issue.key) > (others[-1].rank, others[-1].key):
            raise BoardError(f"{issue.key} is already at the bottom of {place}.")
        issue_rank(issue=issue, actor=actor, before=None, after=others[-1])


@transaction.atomic
def issue_create(*, project, actor: Person, issue_type: str, summary: str, **values) -> Issue:
    sprint, assignee = values.get("sprint"), values.get("assignee")
    if sprint is not None and (sprint.project_id != project.id or sprint.state == Sprint.State.CLOSED):
        raise BoardError(f"{sprint.name} is closed or not a sprint of {project.key}: work items can't be added to it.")
    if assignee is not None and not assignee.active:
        raise BoardError(f"{assignee.name} has left the team and can't be assigned work items.")
    number = (Issue.objects.filter(project=project).aggregate(top=Max("number"))["top"] or 0) + 1
    rank = (Issue.objects.aggregate(top=Max("rank"))["top"] or 0) + 1000
    at = now()
    issue = Issue(
        key=f"{project.key}-{number}",
        project=project,
        number=number,
        issue_type=issue_type,
        summary=summary,
        status=W.TODO,
        priority=values.pop("priority", "Medium"),
        reporter=actor,
        rank=rank,
        created_at=at,
        updated_at=at,
        **values,
    )
    issue.save()
    Watcher.objects.create(issue=issue, person=actor)
    return issue


def subtask_create(*, parent: Issue, actor: Person, summary: str, assignee: Person | None = None) -> Issue:
    """A sub-task of `parent`, created from its issue view: in the parent's sprint, as the product keeps it."""
    if parent.issue_type == "epic":
        raise BoardError("An epic can't have sub-tasks: create stories or tasks in the epic instead.")
    if parent.parent_id:
        raise BoardError("A sub-task can't have sub-tasks of its own.")
    return issue_create(
        project=parent.project,
        actor=actor,
        issue_type="subtask",
        summary=summary,
        parent=parent,
        sprint=parent.sprint,
        assignee=assignee,
    )


def mentioned_people(body: str) -> list[Person]:
    """The people a comment mentions as [~username], in order of first mention; an unknown name or
    someone who left is refused (the picker offers only current team members)."""
    names = list(dict.fromkeys(MENTION.findall(body)))
    people = {p.username: p for p in Person.objects.filter(username__in=names)}
    for name in names:
        if name not in people or not people[name].active:
            raise BoardError(f"@{name} can't be mentioned: nobody on the team has that username.")
    return [people[name] for name in names]


@transaction.atomic
def comment_add(*, issue: Issue, actor: Person, body: str) -> Comment:
    body = body.strip()
    if not body:
        raise BoardError("A comment can't be empty.")
    if len(body) > 32000:
        raise BoardError("A comment can be at most 32,000 characters long.")
    people = mentioned_people(body)
    at = now()
    comment = Comment.objects.create(
        public_id=_next(Comment, 10001), issue=issue, author=actor, body=body, created_at=at
    )
    for person in people:
        Mention.objects.create(comment=comment, person=person)
    Issue.objects.filter(pk=issue.pk).update(updated_at=at)
    return comment


def attachment_add(*, issue: Issue, actor: Person, name: str, size: int, content_type: str) -> Attachment:
    attachment = Attachment.objects.create(
        public_id=_next(Attachment, 20001),
        issue=issue,
        name=name,
        size=size,
        content_type=content_type,
        author=actor,
        created_at=now(),
    )
    _record(issue, actor, "Attachment", "", name)
    Issue.objects.filter(pk=issue.pk).update(updated_at=attachment.created_at)
    return attachment


@transaction.atomic
def attachment_delete(*, attachment: Attachment, actor: Person) -> None:
    issue = attachment.issue
    if attachment.author_id != actor.id and not actor.is_admin:
        raise BoardError("Only the person who attached a file, or an administrator, can delete it.")
    _record(issue, actor, "Attachment", attachment.name, "")
    attachment.delete()
    Issue.objects.filter(pk=issue.pk).update(updated_at=now())


def watcher_add(*, issue: Issue, person: Person) -> None:
    if not person.active:
        raise BoardError(f"{person.name} has left the team and can't watch issues.")
    if Watcher.objects.filter(issue=issue, person=person).exists():
        raise BoardError(f"{person.name} is already watching {issue.key}.")
    Watcher.objects.create(issue=issue, person=person)


# --- saved filters and board settings --------------------------------------------------------------------


def _filter_check(*, owner: Person, name: str, query: str, exclude: Filter | None = None) -> None:
    taken = Filter.objects.filter(owner=owner, name__iexact=name)
    if exclude is not None:
        taken = taken.exclude(pk=exclude.pk)
    if taken.exists():
        raise BoardError(f"You already have a filter named '{name}'. Choose another name.")
    query_check(query)  # a query that does not parse is not saved (JQLError carries the product's message)


@transaction.atomic
def filter_create(*, owner: Person, name: str, query: str, description: str = "", starred: bool = False) -> Filter:
    _filter_check(owner=owner, name=name, query=query)
    return Filter.objects.create(
        public_id=_next(Filter, 10101),
        owner=owner,
        name=name,
        jql=query,
        description=description,
        starred=starred,
        updated_at=now(),
    )


@transaction.atomic
def filter_update(*, saved: Filter, actor: Person, **values) -> list[str]:
    """Change a filter's name, jql, description or star; only its owner may."""
    if saved.owner_id != actor.id:
        raise BoardError("Only the owner of a filter can change it.")
    unknown = set(values) - {"name", "jql", "description", "starred"}
    if unknown:
        raise BoardError(f"Field {sorted(unknown)[0]!r} of a filter can't be edited.")
    _filter_check(owner=actor, name=values.get("name", saved.name), query=values.get("jql", saved.jql), exclude=saved)
    changed = [field for field, value in values.items() if getattr(saved, field) != value]
    if changed:
        for field in changed:
            setattr(saved, field, values[field])
        saved.updated_at = now()
        saved.save()
    return changed


def filter_delete(*, saved: Filter, actor: Person) -> None:
    if saved.owner_id != actor.id:
        raise BoardError("Only the owner of a filter can delete it.")
    saved.delete()


def board_group_by(*, project: Project, actor: Person, swimlanes: str) -> None:
    if swimlanes not in Project.Swimlanes.values:
        raise BoardError(f"Swimlanes can be grouped by {', '.join(Project.Swimlanes.values)}; not {swimlanes!r}.")
    if project.swimlanes != swimlanes:
        Project.objects.filter(pk=project.pk).update(swimlanes=swimlanes)
        project.swimlanes = swimlanes


def custom_field_value(field: CustomField, value) -> str:
    """The stored text of a cleaned form value."""
    if value is None or value == "":
        return ""
    if field.kind == CustomField.Kind.NUMBER:
        return format(value.normalize(), "f")
    if field.kind == CustomField.Kind.DATE:
        return value.isoformat()
    return str(value).strip()


@transaction.atomic
def link_add(*, source: Issue, kind: str, target: Issue, actor: Person) -> Link:
    if kind not in W.LINK_KINDS:
        raise BoardError(f"{kind!r} is not a link type.")
    if source == target:
        raise BoardError("A work item can't be linked to itself.")
    if Link.objects.filter(source=source, kind=kind, target=target).exists():
        raise BoardError(f"{source.key} already {W.LINK_KINDS[kind][0]} {target.key}.")
    link = Link.objects.create(source=source, kind=kind, target=target)
    _record(source, actor, "Link", "", f"This issue {W.LINK_KINDS[kind][0]} {target.key}")
    _record(target, actor, "Link", "", f"This issue {W.LINK_KINDS[kind][1]} {source.key}")
    at = now()
    Issue.objects.filter(pk__in=[source.pk, target.pk]).update(updated_at=at)
    return link


def watch_toggle(*, issue: Issue, person: Person) -> bool:
    """Start or stop watching; True when the person now watches."""
    deleted, _ = Watcher.objects.filter(issue=issue, person=person).delete()
    if deleted:
        return False
    Watcher.objects.create(issue=issue, person=person)
    return True


SPRINT_WEEKS = (1, 2, 3, 4)
LONGEST_SPRINT = timedelta(weeks=8)


@transaction.atomic
def sprint_start(
    *,
    sprint: Sprint,
    actor: Person,
    weeks: int | None = 2,
    goal: str | None = None,
    name: str | None = None,
    end: date | None = None,
) -> None:
    """Start a planned sprint now for `weeks` weeks, or until the end of day `end` (the dialog's custom
    dates); `goal` and `name`, when given, replace the sprint's."""
    if sprint.state != Sprint.State.FUTURE:
        raise BoardError(f"{sprint.name} has already started.")
    if Sprint.objects.filter(project=sprint.project, state=Sprint.State.ACTIVE).exists():
        raise BoardError("Another sprint is already active: complete it before starting this one.")
    if not sprint.issues.exists():
        raise BoardError("A sprint with no work items can't be started: plan some work into it first.")
    if end is None and weeks not in SPRINT_WEEKS:
        raise BoardError("Duration must be 1, 2, 3 or 4 weeks.")
    if goal is not None and len(goal) > 200:
        raise BoardError("A sprint goal can be at most 200 characters long.")
    if name is not None:
        _sprint_name_check(sprint.project, name, exclude=sprint)
    start = now()
    if end is None:
        finish = start + timedelta(weeks=weeks)
    else:  # a custom end date: the sprint runs to the end of that day
        finish = start.replace(hour=23, minute=59, second=0, microsecond=0) + (end - start.date())
        if end <= start.date() or finish - start > LONGEST_SPRINT:
            raise BoardError("The end date must be after today and at most 8 weeks away.")
    sprint.state, sprint.start, sprint.end = Sprint.State.ACTIVE, start, finish
    sprint.name = sprint.name if name is None else name
    sprint.goal = sprint.goal if goal is None else goal
    sprint.save(update_fields=["state", "start", "end", "goal", "name"])


def _sprint_name_check(project: Project, name: str, exclude: Sprint | None = None) -> None:
    if not name.strip():
        raise BoardError("Give the sprint a name.")
    if len(name) > 60:
        raise BoardError("A sprint name can be at most 60 characters long.")
    if project.sprints.filter(name__iexact=name).exclude(pk=exclude.pk if exclude else None).exists():
        raise BoardError(f"{project.key} already has a sprint called {name}.")


def sprint_create(*, project: Project, actor: Person) -> Sprint:
    """A new future sprint at the end of the plan, named as the product names it: "<KEY> Sprint <n>"."""
    if project.board_type == Project.BoardType.KANBAN:
        raise BoardError(f"{project.key} is a kanban project: it has no sprints.")
    number = (project.sprints.aggregate(top=Max("number"))["top"] or 0) + 1
    name = f"{project.key} Sprint {number}"
    _sprint_name_check(project, name)
    return Sprint.objects.create(
        public_id=_next(Sprint, 1), project=project, number=number, name=name, state=Sprint.State.FUTURE
    )


@transaction.atomic
def sprint_complete(
    *, sprint: Sprint, actor: Person, move_to: Sprint | None, new_sprint: bool = False
) -> tuple[int, Sprint | None]:
    """Close the active sprint; its unfinished issues go to `move_to` (a future sprint), to a sprint
    made for them (`new_sprint`), or to the backlog.

    Returns how many issues moved, and the sprint they moved to (None: the backlog).
    """
    if sprint.state != Sprint.State.ACTIVE:
        raise BoardError(f"{sprint.name} is not active.")
    if new_sprint:
        if move_to is not None:
            raise BoardError("Open work goes to one place: a sprint, a new sprint or the backlog.")
        move_to = sprint_create(project=sprint.project, actor=actor)
    if move_to is not None and (move_to.project_id != sprint.project_id or move_to.state != Sprint.State.FUTURE):
        raise BoardError("Unfinished issues can only move to a future sprint of this project or to the backlog.")
    open_issues = list(sprint.issues.exclude(status=W.DONE).order_by("rank"))
    for issue in open_issues:
        _record(issue, actor, "sprint", sprint, move_to)
        issue.sprint, issue.updated_at = move_to, now()
        issue.save(update_fields=["sprint", "updated_at"])
    sprint.state, sprint.completed_at = Sprint.State.CLOSED, now()
    sprint.save(update_fields=["state", "completed_at"])
    return len(open_issues), move_to


@transaction.atomic
def bulk_change(
    *,
    issues: list[Issue],
    actor: Person,
    assignee=...,
    priority: str = "",
    labels_add=(),
    labels_remove=(),
    status: str = "",
    resolution: str = "",
) -> int:
    """Apply one change to many issues; returns how many changed. `assignee=...` leaves it alone.

    `status` transitions every issue not already there through its own project's workflow (with
    `resolution` on the way to Done); one refusal refuses the whole change with that issue's message.
    """
    changed = 0
    for issue in issues:
        values = {}
        if assignee is not ...:
            values["assignee"] = assignee
        if priority:
            values["priority"] = priority
        if labels_add or labels_remove:
            values["labels"] = sorted({*(lbl for lbl in issue.labels if lbl not in labels_remove), *labels_add})
        updated = bool(issue_update(issue=issue, actor=actor, **values))
        if status and issue.status != status:
            try:
                issue_transition(
                    issue=issue, actor=actor, target=status, resolution=resolution if status == W.DONE else ""
                )
            except W.TransitionRefused as exc:
                raise BoardError(f"{issue.key} ({issue.project.workflow.name}): {exc} No issue was changed.") from None
            updated = True
        changed += updated
    return changed
