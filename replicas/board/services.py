"""Writes of the issue board: transitions, field edits, ranking, sprints, comments, links, bulk change.

Every change to an issue writes a line of its history (Change) as the product's changelog does,
and moves its `updated_at` to the world clock. Callers pass cleaned values; the rules of the
workflow and of sprints are checked here, so views and tasks cannot get around them.
"""
from datetime import timedelta

from django.db import transaction
from django.db.models import Max

from replicas.worlds.clock import now

from . import workflow as W
from .models import Change, Comment, Issue, Link, Person, Sprint, Watcher


class BoardError(ValueError):
    """A request the product refuses; the message is what it shows."""


class Conflict(BoardError):
    """The issue changed since the page was loaded (someone else moved it)."""


def _next(model, start: int) -> int:
    top = model.objects.aggregate(top=Max("public_id"))["top"]
    return max(start, (top or 0) + 1)


def _display(field: str, value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(value)
    if isinstance(value, (Person, Sprint, Issue)):
        return str(value)
    return str(value)


def _record(issue: Issue, actor: Person, field: str, old, new) -> None:
    Change.objects.create(public_id=_next(Change, 100001), issue=issue, author=actor, field=field,
                          from_value=_display(field, old), to_value=_display(field, new), created_at=now())


EDITABLE = ("summary", "description", "steps_to_reproduce", "priority", "assignee", "labels", "components", "fix_versions",
            "story_points", "sprint", "due_date", "resolution", "epic")


@transaction.atomic
def issue_update(*, issue: Issue, actor: Person, **values) -> list[str]:
    """Set fields of `issue`; returns the names of those that changed (unchanged ones write no history)."""
    unknown = set(values) - set(EDITABLE)
    if unknown:
        raise BoardError(f"Field {sorted(unknown)[0]!r} can't be edited.")
    changed = []
    for field, new in values.items():
        if field in ("labels", "components", "fix_versions"):
            new = sorted(dict.fromkeys(new))
        old = getattr(issue, field)
        if old == new:
            continue
        if field == "sprint" and issue.parent_id:
            raise BoardError("A sub-task is always in its parent's sprint.")
        if field == "sprint" and new is not None and new.state == Sprint.State.CLOSED:
            raise BoardError(f"{new.name} is closed: issues can't be added to it.")
        if field == "resolution" and new and issue.status != W.DONE:
            raise BoardError("Only a done issue has a resolution: move it to Done to resolve it.")
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


def _move_subtask(sub: Issue, actor: Person, sprint) -> None:
    if sub.sprint_id != (sprint.id if sprint else None):
        _record(sub, actor, "sprint", sub.sprint, sprint)
        sub.sprint, sub.updated_at = sprint, now()
        sub.save(update_fields=["sprint", "updated_at"])


@transaction.atomic
def issue_transition(*, issue: Issue, actor: Person, target: str, resolution: str = "", seen_status: str | None = None) -> None:
    """Move `issue` to `target` through the workflow.

    `seen_status` is the status the mover's page showed: when the issue has moved since,
    the move is refused as a conflict (the board reloads the card) instead of being applied
    over someone else's change.
    """
    if seen_status is not None and seen_status != issue.status:
        who = issue.changes.filter(field="status").order_by("-public_id").select_related("author").first()
        by = f" by {who.author.name}" if who else ""
        raise Conflict(f"{issue.key} was moved to {issue.status}{by} while you were looking. The board has been refreshed.")
    resolution = resolution or (issue.resolution if target == W.DONE else "")
    W.transition_check(W.Move(
        key=issue.key, issue_type=issue.issue_type, status=issue.status, target=target,
        assignee=issue.assignee.username if issue.assignee else None, actor=actor.username,
        resolution=resolution, steps_to_reproduce=issue.steps_to_reproduce,
    ))
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
        raise BoardError("An issue can't be ranked relative to itself.")
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


@transaction.atomic
def issue_create(*, project, actor: Person, issue_type: str, summary: str, **values) -> Issue:
    number = (Issue.objects.filter(project=project).aggregate(top=Max("number"))["top"] or 0) + 1
    rank = (Issue.objects.aggregate(top=Max("rank"))["top"] or 0) + 1000
    at = now()
    issue = Issue(key=f"{project.key}-{number}", project=project, number=number, issue_type=issue_type, summary=summary,
                  status=W.TODO, priority=values.pop("priority", "Medium"), reporter=actor, rank=rank, created_at=at,
                  updated_at=at, **values)
    issue.save()
    Watcher.objects.create(issue=issue, person=actor)
    return issue


def comment_add(*, issue: Issue, actor: Person, body: str) -> Comment:
    body = body.strip()
    if not body:
        raise BoardError("A comment can't be empty.")
    at = now()
    comment = Comment.objects.create(public_id=_next(Comment, 10001), issue=issue, author=actor, body=body, created_at=at)
    Issue.objects.filter(pk=issue.pk).update(updated_at=at)
    return comment


@transaction.atomic
def link_add(*, source: Issue, kind: str, target: Issue, actor: Person) -> Link:
    if kind not in W.LINK_KINDS:
        raise BoardError(f"{kind!r} is not a link type.")
    if source == target:
        raise BoardError("An issue can't be linked to itself.")
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


@transaction.atomic
def sprint_start(*, sprint: Sprint, actor: Person, weeks: int = 2) -> None:
    if sprint.state != Sprint.State.FUTURE:
        raise BoardError(f"{sprint.name} has already started.")
    if Sprint.objects.filter(project=sprint.project, state=Sprint.State.ACTIVE).exists():
        raise BoardError("Another sprint is already active: complete it before starting this one.")
    if not sprint.issues.exists():
        raise BoardError("A sprint with no issues can't be started: plan some work into it first.")
    if weeks not in (1, 2, 3, 4):
        raise BoardError("Duration must be 1, 2, 3 or 4 weeks.")
    sprint.state, sprint.start = Sprint.State.ACTIVE, now()
    sprint.end = sprint.start + timedelta(weeks=weeks)
    sprint.save(update_fields=["state", "start", "end"])


@transaction.atomic
def sprint_complete(*, sprint: Sprint, actor: Person, move_to: Sprint | None) -> int:
    """Close the active sprint; its unfinished issues go to `move_to` (a future sprint) or the backlog.

    Returns how many issues moved.
    """
    if sprint.state != Sprint.State.ACTIVE:
        raise BoardError(f"{sprint.name} is not active.")
    if move_to is not None and (move_to.project_id != sprint.project_id or move_to.state != Sprint.State.FUTURE):
        raise BoardError("Unfinished issues can only move to a future sprint of this project or to the backlog.")
    open_issues = list(sprint.issues.exclude(status=W.DONE).order_by("rank"))
    for issue in open_issues:
        _record(issue, actor, "sprint", sprint, move_to)
        issue.sprint, issue.updated_at = move_to, now()
        issue.save(update_fields=["sprint", "updated_at"])
    sprint.state, sprint.completed_at = Sprint.State.CLOSED, now()
    sprint.save(update_fields=["state", "completed_at"])
    return len(open_issues)


@transaction.atomic
def bulk_change(*, issues: list[Issue], actor: Person, assignee=..., priority: str = "", labels_add=(), labels_remove=()) -> int:
    """Apply one change to many issues; returns how many changed. `assignee=...` leaves it alone."""
    changed = 0
    for issue in issues:
        values = {}
        if assignee is not ...:
            values["assignee"] = assignee
        if priority:
            values["priority"] = priority
        if labels_add or labels_remove:
            values["labels"] = sorted({*(lbl for lbl in issue.labels if lbl not in labels_remove), *labels_add})
        if issue_update(issue=issue, actor=actor, **values):
            changed += 1
    return changed
