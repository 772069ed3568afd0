"""The issue board's side of fault injection (see replicas/worlds/faults/data.py for the contract):
its sign-in check, its error page, and its data faults: a card someone else moves (`stale_record`) and a
bug whose Steps to reproduce field disagrees with its reporter's comment (`data_conflict`), so the
workflow's validator refuses to start it until the agent fixes the field."""

from django.http import HttpResponse, JsonResponse
from django.utils.html import format_html

from replicas.worlds.faults import DataFaultError
from replicas.worlds.faults.pages import wants_json

from . import workflow as W
from .models import Comment, Issue, Person
from .services import issue_transition, next_public_id
from .signin import SIGNIN


def session_is_signed_in(session) -> bool:
    return SIGNIN.session_is_signed_in(session)


def error_response(request, *, status: int, code: str, message: str) -> HttpResponse:
    """The product's error: JSON for the board's drag and drop, its error page otherwise."""
    if wants_json(request):
        return JsonResponse(
            {"ok": False, "error": f"We couldn't save your change ({status}). Try again.", "code": code}, status=status
        )
    page = format_html(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Something went wrong - '
        "Tracklane</title></head>"
        '<body style="margin:0;font:14px/20px Inter,system-ui,sans-serif;color:#292A2E;background:#F8F8F8">'
        '<main style="max-width:480px;margin:16vh '
        'auto;padding:32px;background:#fff;border-radius:6px;box-shadow:0 8px 12px #1E1F2126">'
        '<h1 style="margin:0 0 8px;font-size:20px">Something went wrong</h1><p style="margin:0 0 '
        '8px;color:#505258">{}</p>'
        '<p style="margin:0 0 20px;color:#6B6E76">Error {} ({})</p><a href="{}" '
        'style="color:#1868DB;font-weight:600">Go back</a></main></body></html>',
        message,
        status,
        code,
        request.headers.get("Referer") or "/",
    )
    return HttpResponse(page, status=status)


def stale_record(ctx) -> dict:
    """A teammate moves a card of the active sprint from To Do to In Progress while the agent has the board open.

    Armed on a To Do issue (with steps to reproduce if it is a bug) of the active sprint; fires
    on the second request to the board or to that issue's transition, i.e. when the agent acts.
    """
    if ctx.phase == "arm":
        record = ctx.params.get("record")
        candidates = Issue.objects.filter(sprint__state="active", status=W.TODO, assignee__isnull=False).exclude(
            issue_type="subtask"
        )
        if record is not None:
            candidates = candidates.filter(key=str(record))
        issues = [
            i for i in candidates.order_by("project__key", "number") if i.issue_type != "bug" or i.steps_to_reproduce
        ]
        if not issues:
            raise DataFaultError(
                f"no To Do issue of an active sprint {record!r}" if record else "no To Do issue in an active sprint"
            )
        issue = ctx.rng.choice(issues) if record is None else issues[0]
        route = f"^/(projects/{issue.project.key}/board|browse/{issue.key}/transition)$"
        return {"model": "issue", "record": issue.key, "route": route}
    issue = Issue.objects.get(key=ctx.detail["record"])
    teammates = [p for p in Person.objects.filter(active=True).order_by("public_id") if p.id != issue.assignee_id]
    if not teammates:
        raise DataFaultError("no teammate could move the card")
    mover = ctx.rng.choice(teammates)
    before = issue.status
    issue_transition(issue=issue, actor=mover, target=W.IN_PROGRESS)
    return {"model": "issue", "record": issue.key, "changed": {"status": [before, W.IN_PROGRESS]}, "by": mover.username}


STEPS_LOST = "Steps to reproduce (pasted here: the field came back empty after the import):\n"


def data_conflict(ctx) -> dict:
    """A bug's Steps to reproduce field and its reporter's comment disagree: the field is empty (a legacy
    import dropped it) while the comment holds the steps. Moving the bug to In Progress is then refused
    by the workflow's validator ("a bug needs Steps to reproduce") until someone puts them back.

    Applied at world creation on `record` (a bug key), or on AGENT's first To Do bug with steps.
    """
    record = ctx.params.get("record")
    candidates = Issue.objects.filter(issue_type="bug", status=W.TODO).exclude(steps_to_reproduce="")
    if record is not None:
        candidates = candidates.filter(key=str(record))
    else:
        candidates = candidates.filter(project__key="AGENT", parent__isnull=True)
    issue = candidates.select_related("reporter").order_by("project__key", "number").first()
    if issue is None:
        raise DataFaultError(
            f"no To Do bug with steps to reproduce {record!r}" if record else "no AGENT To Do bug with steps"
        )
    steps = issue.steps_to_reproduce
    at = max(issue.created_at, issue.updated_at)
    comment = Comment.objects.create(
        public_id=next_public_id(Comment, 10001),
        issue=issue,
        author=issue.reporter,
        body=STEPS_LOST + steps,
        created_at=at,
    )
    Issue.objects.filter(pk=issue.pk).update(steps_to_reproduce="")
    return {
        "model": "issue",
        "record": issue.key,
        "changed": {"steps_to_reproduce": [steps, ""]},
        "comment": comment.public_id,
    }


DATA_FAULTS = {"stale_record": stale_record, "data_conflict": data_conflict}
