"""The scrum and kanban board: columns with WIP limits, swimlanes, quick filters, the side panel of
?selectedIssue=KEY, Group by, and a card dropped into another swimlane."""

from datetime import timedelta

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


def _toggled(params, name: str, value: str) -> str:
    """The board's address with `value` of `name` switched on or off, every other filter kept."""
    params = params.copy()
    values = params.getlist(name)
    params.setlist(name, [v for v in values if v != value] if value in values else [*values, value])
    return "?" + params.urlencode()


def _toolbar(params, issues: list[selectors.Card]) -> tuple[dict, dict]:
    """The toolbar's filters, each value checked against what the board holds (anything else is
    ignored, as the product ignores a stale filter in an address): what is chosen, and the chips,
    avatars and dropdown entries with the links that toggle them."""
    people = sorted({i.assignee.username: i.assignee for i in issues if i.assignee_id}.values(), key=lambda p: p.name)
    epics = selectors.by_rank({i.epic.key: i.epic for i in issues if i.epic_id}.values())
    types = sorted({i.issue_type for i in issues}, key=list(W.TYPE_NAMES).index)
    allowed = {"assignee": {p.username for p in people}, "epic": {e.key for e in epics}, "type": set(types)}
    chosen = {name: {v for v in params.getlist(name) if v in ok} for name, ok in allowed.items()}
    chosen.update(mine=params.get("filter") == "mine", recent=params.get("recent") == "1")

    def entry(name, value, label, **extra):
        return {
            "value": value,
            "label": label,
            "on": value in chosen[name],
            "href": _toggled(params, name, value),
            **extra,
        }

    toolbar = {
        "people": [entry("assignee", p.username, p.name, person=p) for p in people],
        "epics": [entry("epic", e.key, e.summary) for e in epics],
        "types": [entry("type", t, W.TYPE_NAMES[t]) for t in types],
        "quick": [
            {"label": "Only my work items", "on": chosen["mine"], "href": _toggled(params, "filter", "mine")},
            {"label": "Recently updated", "on": chosen["recent"], "href": _toggled(params, "recent", "1")},
        ],
        "kept": [(k, v) for k, values in params.lists() if k != "text" for v in values],
        "counts": {name: len(chosen[name]) for name in allowed},
    }
    return chosen, toolbar


def _shown(issue: selectors.Card, chosen: dict, text: str, me, since) -> bool:
    return (
        (not chosen["mine"] or issue.assignee_id == me.id)
        and (not chosen["recent"] or issue.updated_at >= since)
        and (not text or text.lower() in issue.summary.lower() or text.lower() == issue.key.lower())
        and (not chosen["assignee"] or (issue.assignee_id and issue.assignee.username in chosen["assignee"]))
        and (not chosen["epic"] or (issue.epic_id and issue.epic.key in chosen["epic"]))
        and (not chosen["type"] or issue.issue_type in chosen["type"])
    )


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
    issues = selectors.board_cards(project, sprint)
    text = params.get("text", "").strip()
    chosen, toolbar = _toolbar(params, issues)
    since = now() - timedelta(hours=RECENT_HOURS)
    shown = [i for i in issues if _shown(i, chosen, text, request.person, since)]
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
        "text": text,
        "toolbar": toolbar,
        "resolutions": W.RESOLUTIONS,
        "base_query": params.urlencode(),
        "swimlane_choices": Project.Swimlanes.choices,
        "done_days": selectors.KANBAN_DONE_DAYS,
        "full_path": request.get_full_path(),
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
                    return answer(request, next_url, error=f"{value} can't be assigned work items.", status=400)
            services.issue_update(issue=issue, actor=request.person, assignee=person)
        else:
            return answer(request, next_url, error="Cards move between epic or assignee swimlanes only.", status=400)
    except services.BoardError as exc:
        return answer(request, next_url, error=str(exc), status=400)
    return answer(request, next_url)
