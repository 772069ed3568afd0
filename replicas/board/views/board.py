"""The scrum and kanban board: columns with WIP limits, swimlanes, quick filters, the side panel of
?selectedIssue=KEY, Group by, and a card dropped into another swimlane."""

from datetime import timedelta
from urllib.parse import urlencode

from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds.clock import now
from replicas.worlds.signin import safe_next

from .. import selectors, services
from .. import workflow as W
from ..forms import IssueForm
from ..models import Project
from .common import answer, flash, issue_or_404, page, person_required, project_or_404
from .issue import issue_context

RECENT_HOURS = 24  # the "Recently updated" quick filter


def _panel_context(request) -> dict:
    """The side panel of ?selectedIssue=KEY: the issue view, or a note that the key names nothing."""
    selected = request.GET.get("selectedIssue", "").strip().upper()
    if not selected:
        return {}
    issue = selectors.issue_by_key(selected)
    if issue is None:
        return {"panel_missing": selected}
    back = f"{request.path}?{request.GET.urlencode()}"
    context = issue_context(request, issue, IssueForm(issue=issue), back=back)
    return {**context, "panel": True, "selected_key": issue.key}


def _quick_filters(only_mine: bool, recent: bool, text: str) -> list[dict]:
    """The quick filter chips, each a link that toggles itself and keeps the others."""

    def href(mine, rec):
        q = {k: v for k, v in (("filter", "mine" if mine else ""), ("recent", "1" if rec else ""), ("text", text)) if v}
        return "?" + urlencode(q)

    return [
        {"label": "Only my issues", "on": only_mine, "href": href(not only_mine, recent)},
        {"label": "Recently updated", "on": recent, "href": href(only_mine, not recent)},
    ]


@person_required
def board(request, key):
    project = project_or_404(key)
    params = request.GET.copy()
    params.pop("selectedIssue", None)
    if request.htmx and request.htmx.target == "panel-slot":
        # opening or closing the side panel swaps the panel alone: the board around it is not rebuilt
        context = {"me": request.person, "project": project, "base_query": params.urlencode()}
        return render(request, "board/_panel.html", {**context, **_panel_context(request)})
    kanban = project.board_type == Project.BoardType.KANBAN
    sprint = None if kanban else selectors.active_sprint(project)
    columns = selectors.board_columns(project)
    issues = selectors.board_issues(project, sprint)
    only_mine = request.GET.get("filter") == "mine"
    recent = request.GET.get("recent") == "1"
    text = request.GET.get("text", "").strip()
    since = now() - timedelta(hours=RECENT_HOURS)
    shown = [
        i
        for i in issues
        if (not only_mine or i.assignee_id == request.person.id)
        and (not recent or i.updated_at >= since)
        and (not text or text.lower() in i.summary.lower() or text.lower() == i.key.lower())
    ]
    counts = {c.status: sum(1 for i in issues if i.status == c.status) for c in columns}
    heads = [
        {"column": c, "count": counts[c.status], "over": c.wip_limit is not None and counts[c.status] > c.wip_limit}
        for c in columns
    ]
    days_left = None
    if sprint is not None and sprint.end:
        days_left = max(0, (sprint.end.date() - now().date()).days)
    context = {
        "sprint": sprint,
        "kanban": kanban,
        "heads": heads,
        "lanes": selectors.board_lanes(project, heads, shown),
        "days_left": days_left,
        "statuses": project.workflow.statuses,
        "only_mine": only_mine,
        "recent": recent,
        "text": text,
        "resolutions": W.RESOLUTIONS,
        "base_query": params.urlencode(),
        "swimlane_choices": Project.Swimlanes.choices,
        "done_days": selectors.KANBAN_DONE_DAYS,
        "full_path": request.get_full_path(),
        "quick": _quick_filters(only_mine, recent, text),
    }
    context.update(_panel_context(request))
    return page(request, "board/board.html", context, project=project, section="board")


@require_POST
@person_required
def board_group_by(request, key):
    project = project_or_404(key)
    try:
        services.board_group_by(project=project, actor=request.person, swimlanes=request.POST.get("swimlanes", ""))
    except services.BoardError as exc:
        flash(request, str(exc))
    return redirect(safe_next(request, f"/projects/{project.key}/board"))


@require_POST
@person_required
def issue_lane(request, key):
    """A card dropped into another swimlane takes that lane's epic or assignee, as on the product's board."""
    issue = issue_or_404(key)
    next_url = safe_next(request, f"/projects/{issue.project.key}/board")
    by, value = request.POST.get("by", ""), request.POST.get("value", "").strip()
    try:
        if by == "epic":
            epic = None
            if value:
                epic = selectors.epic_of_project(issue.project, value)
                if epic is None:
                    return answer(
                        request, next_url, error=f"{value} is not an epic of {issue.project.key}.", status=400
                    )
            services.issue_update(issue=issue, actor=request.person, epic=epic)
        elif by == "assignee":
            person = None
            if value:
                person = selectors.active_person(value)
                if person is None:
                    return answer(request, next_url, error=f"{value} can't be assigned issues.", status=400)
            services.issue_update(issue=issue, actor=request.person, assignee=person)
        else:
            return answer(request, next_url, error="Cards move between epic or assignee swimlanes only.", status=400)
    except services.BoardError as exc:
        return answer(request, next_url, error=str(exc), status=400)
    return answer(request, next_url)
