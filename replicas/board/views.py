"""Pages of the issue board: sign-in, scrum and kanban boards (swimlanes, quick filters, the issue
side panel), backlog, issue view, search with JQL, saved filters, bulk change.

Every page works without JavaScript (forms and links); board.js adds drag and drop, the mention
picker and keyboard shortcuts on top, posting to the same endpoints and asking for JSON.
"""

import re
from datetime import timedelta
from functools import wraps
from urllib.parse import urlencode

from django.db.models import Q
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds.clock import now
from replicas.worlds.signin import login_url, safe_next

from . import jql, reports, services
from . import workflow as W
from .auth import SIGNIN, person_authenticate, signed_in_person
from .forms import AttachmentForm, BulkForm, CreateForm, FilterForm, IssueForm, LoginForm, SprintStartForm, SubtaskForm
from .models import Attachment, BoardColumn, Filter, Issue, Person, Project, Sprint
from .search import PAGE_SIZE, issues_search, page_clamp, page_count, world_statuses

LOGIN = "/login"
FLASH = "board_flash"
DRAFTS = "board_drafts"
DEFAULT_JQL = "project = AGENT AND resolution = Unresolved ORDER BY priority DESC, updated DESC"
KANBAN_DONE_DAYS = 14  # a kanban board hides work resolved longer ago than this, as the product does
RECENT_HOURS = 24  # the "Recently updated" quick filter


def wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def flash(request, message: str, kind: str = "error"):
    request.session[FLASH] = {"message": message, "kind": kind}


def person_required(view):
    """Only for a signed-in team member. A comment typed before the session expired is kept as a
    draft and put back in the box after signing in again, as the product does."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        person = signed_in_person(request)
        if person is None:
            back = (
                request.get_full_path()
                if request.method == "GET"
                else request.POST.get("next") or request.headers.get("Referer", "/")
            )
            if request.method == "POST" and request.POST.get("body", "").strip() and "key" in kwargs:
                drafts = request.session.get(DRAFTS, {})
                drafts[kwargs["key"].upper()] = request.POST["body"]
                request.session[DRAFTS] = drafts
                back = safe_next(request, f"/browse/{kwargs['key']}")
            if not back.startswith("/"):
                back = "/" + back.split("/", 3)[-1] if back.count("/") >= 3 else "/"
            target = login_url(LOGIN, back)
            if wants_json(request):
                return JsonResponse(
                    {"error": "Your session has expired. Sign in again to continue.", "login": target}, status=401
                )
            return redirect(target)
        request.person = person
        return view(request, *args, **kwargs)

    return wrapper


def page(
    request, template: str, context: dict, *, project: Project | None = None, section: str = "", status: int = 200
):
    projects = list(Project.objects.order_by("key"))
    return render(
        request,
        template,
        {
            "me": request.person,
            "project": project,
            "projects": projects,
            "section": section,
            "flash": request.session.pop(FLASH, None),
            "today": now(),
            **context,
        },
        status=status,
    )


def _project(key: str) -> Project:
    project = Project.objects.select_related("workflow").filter(key=key.upper()).first()
    if project is None:
        raise Http404(f"Project {key} does not exist.")
    return project


def _issue(key: str) -> Issue:
    issue = (
        Issue.objects.select_related("project__workflow", "assignee", "reporter", "sprint", "epic", "parent")
        .filter(key=key.upper())
        .first()
    )
    if issue is None:
        raise Http404(f"Issue {key} does not exist or you do not have permission to see it.")
    return issue


# --- sign-in ---------------------------------------------------------------------------------------


def login(request):
    next_url = safe_next(request, "/")
    form = LoginForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        person = person_authenticate(
            world=request.world, email=form.cleaned_data["email"], password=form.cleaned_data["password"]
        )
        if person is None:
            error = "Incorrect email address and / or password."
        else:
            SIGNIN.sign_in(request.session, request.world, person.username)  # the draft of an expired session is kept
            return redirect(next_url)
    status = 400 if request.method == "POST" else 200
    return render(request, "board/login.html", {"form": form, "next": next_url, "error": error}, status=status)


@require_POST
def logout(request):
    request.session.flush()
    return redirect(LOGIN)


def home(request):
    return redirect("/projects/AGENT/board")


# --- board -----------------------------------------------------------------------------------------


def _card_rows(issues):
    return sorted(issues, key=lambda i: (i.rank, i.key))


def _board_issues(project: Project, sprint: Sprint | None) -> list[Issue]:
    """A scrum board shows its active sprint; a kanban board all open work of the project and what
    was resolved in the last two weeks."""
    rows = Issue.objects.exclude(issue_type="epic").select_related("assignee", "parent", "epic")
    if project.board_type == Project.BoardType.KANBAN:
        since = now() - timedelta(days=KANBAN_DONE_DAYS)
        return list(rows.filter(project=project).filter(~Q(status=W.DONE) | Q(resolved_at__gte=since)))
    return list(rows.filter(sprint=sprint)) if sprint is not None else []


def _lanes(project: Project, heads: list[dict], shown: list[Issue]) -> list[dict]:
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
        for issue in _card_rows(cards):
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


def _panel_context(request, base_query: str) -> dict:
    """The side panel of ?selectedIssue=KEY: the issue view, or a note that the key names nothing."""
    selected = request.GET.get("selectedIssue", "").strip().upper()
    if not selected:
        return {}
    issue = (
        Issue.objects.select_related("project__workflow", "assignee", "reporter", "sprint", "epic", "parent")
        .filter(key=selected)
        .first()
    )
    if issue is None:
        return {"panel_missing": selected}
    back = f"{request.path}?{request.GET.urlencode()}"
    context = issue_context(request, issue, IssueForm(issue=issue), back=back)
    return {**context, "panel": True, "selected_key": issue.key}


@person_required
def board(request, key):
    project = _project(key)
    if request.headers.get("HX-Request") == "true" and request.headers.get("HX-Target") == "panel-slot":
        # opening or closing the side panel swaps the panel alone: the board around it is not rebuilt
        params = request.GET.copy()
        params.pop("selectedIssue", None)
        context = {"me": request.person, "project": project, "base_query": params.urlencode()}
        return render(request, "board/_panel.html", {**context, **_panel_context(request, params.urlencode())})
    kanban = project.board_type == Project.BoardType.KANBAN
    sprint = None if kanban else project.sprints.filter(state=Sprint.State.ACTIVE).first()
    columns = list(BoardColumn.objects.filter(project=project).order_by("position"))
    issues = _board_issues(project, sprint)
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
    params = request.GET.copy()
    params.pop("selectedIssue", None)
    context = {
        "sprint": sprint,
        "kanban": kanban,
        "heads": heads,
        "lanes": _lanes(project, heads, shown),
        "days_left": days_left,
        "statuses": project.workflow.statuses,
        "only_mine": only_mine,
        "recent": recent,
        "text": text,
        "resolutions": W.RESOLUTIONS,
        "base_query": params.urlencode(),
        "swimlane_choices": Project.Swimlanes.choices,
        "done_days": KANBAN_DONE_DAYS,
        "full_path": request.get_full_path(),
        "quick": _quick_filters(only_mine, recent, text),
    }
    context.update(_panel_context(request, params.urlencode()))
    return page(request, "board/board.html", context, project=project, section="board")


def _quick_filters(only_mine: bool, recent: bool, text: str) -> list[dict]:
    """The quick filter chips, each a link that toggles itself and keeps the others."""

    def href(mine, rec):
        q = {k: v for k, v in (("filter", "mine" if mine else ""), ("recent", "1" if rec else ""), ("text", text)) if v}
        return "?" + urlencode(q)

    return [
        {"label": "Only my issues", "on": only_mine, "href": href(not only_mine, recent)},
        {"label": "Recently updated", "on": recent, "href": href(only_mine, not recent)},
    ]


@require_POST
@person_required
def board_group_by(request, key):
    project = _project(key)
    try:
        services.board_group_by(project=project, actor=request.person, swimlanes=request.POST.get("swimlanes", ""))
    except services.BoardError as exc:
        flash(request, str(exc))
    return redirect(safe_next(request, f"/projects/{project.key}/board"))


@require_POST
@person_required
def issue_lane(request, key):
    """A card dropped into another swimlane takes that lane's epic or assignee, as on the product's board."""
    issue = _issue(key)
    next_url = safe_next(request, f"/projects/{issue.project.key}/board")
    by, value = request.POST.get("by", ""), request.POST.get("value", "").strip()
    try:
        if by == "epic":
            epic = None
            if value:
                epic = Issue.objects.filter(key=value.upper(), issue_type="epic", project=issue.project).first()
                if epic is None:
                    return _answer(
                        request, next_url, error=f"{value} is not an epic of {issue.project.key}.", status=400
                    )
            services.issue_update(issue=issue, actor=request.person, epic=epic)
        elif by == "assignee":
            person = None
            if value:
                person = Person.objects.filter(username=value, active=True).first()
                if person is None:
                    return _answer(request, next_url, error=f"{value} can't be assigned issues.", status=400)
            services.issue_update(issue=issue, actor=request.person, assignee=person)
        else:
            return _answer(request, next_url, error="Cards move between epic or assignee swimlanes only.", status=400)
    except services.BoardError as exc:
        return _answer(request, next_url, error=str(exc), status=400)
    return _answer(request, next_url)


# --- backlog and sprints ---------------------------------------------------------------------------


@person_required
def backlog(request, key):
    project = _project(key)
    sprints = list(project.sprints.exclude(state=Sprint.State.CLOSED).order_by("number"))
    issues = list(
        Issue.objects.filter(project=project)
        .exclude(issue_type__in=("epic", "subtask"))
        .filter(sprint__isnull=True)
        .exclude(status=W.DONE)
        .select_related("assignee")
    )
    sections = []
    for sprint in sprints:
        rows = _card_rows(sprint.issues.exclude(issue_type__in=("epic", "subtask")).select_related("assignee"))
        sections.append({"sprint": sprint, "issues": rows, "points": sum(i.story_points or 0 for i in rows)})
    rows = _card_rows(issues)
    return page(
        request,
        "board/backlog.html",
        {
            "sections": sections,
            "backlog": rows,
            "backlog_points": sum(i.story_points or 0 for i in rows),
            "sprints": sprints,
            "has_active": any(s.state == Sprint.State.ACTIVE for s in sprints),
        },
        project=project,
        section="backlog",
    )


def _sprint(project, sprint_id) -> Sprint:
    sprint = project.sprints.filter(public_id=sprint_id).first()
    if sprint is None:
        raise Http404("No such sprint.")
    return sprint


@person_required
def sprint_start(request, key, sprint_id):
    """The "Start sprint" dialog: duration and goal, then the sprint is under way on the board."""
    project = _project(key)
    sprint = _sprint(project, sprint_id)
    form = SprintStartForm(request.POST or None, initial={"goal": sprint.goal})
    if request.method == "POST" and form.is_valid():
        values = dict(form.cleaned_data)
        if "goal" not in request.POST:  # a post without the field leaves the planned goal alone
            values.pop("goal")
        try:
            services.sprint_start(sprint=sprint, actor=request.person, **values)
        except services.BoardError as exc:
            form.add_error(None, str(exc))
        else:
            flash(request, f"{sprint.name} has started.", "success")
            return redirect(f"/projects/{project.key}/board")
    rows = list(sprint.issues.exclude(issue_type__in=("epic", "subtask")))
    return page(
        request,
        "board/sprint_start.html",
        {
            "sprint": sprint,
            "form": form,
            "issue_count": len(rows),
            "points": sum(i.story_points or 0 for i in rows),
        },
        project=project,
        section="backlog",
        status=400 if request.method == "POST" else 200,
    )


@person_required
def sprint_complete(request, key, sprint_id):
    project = _project(key)
    sprint = _sprint(project, sprint_id)
    future = list(project.sprints.filter(state=Sprint.State.FUTURE).order_by("number"))
    open_issues = list(sprint.issues.exclude(status=W.DONE))
    done = sprint.issues.filter(status=W.DONE).count()
    error = ""
    if request.method == "POST":
        target = request.POST.get("move_to", "")
        move_to = None
        if target != "backlog":
            move_to = next((s for s in future if str(s.public_id) == target), None)
            if move_to is None:
                error = "Choose where the open issues go: a future sprint or the backlog."
        if not error:
            try:
                moved = services.sprint_complete(sprint=sprint, actor=request.person, move_to=move_to)
            except services.BoardError as exc:
                error = str(exc)
            else:
                flash(
                    request,
                    f"{sprint.name} is complete. {moved} open issue{'s' if moved != 1 else ''} moved to "
                    f"{move_to.name if move_to else 'the backlog'}.",
                    "success",
                )
                return redirect(f"/projects/{project.key}/backlog")
    return page(
        request,
        "board/sprint_complete.html",
        {
            "sprint": sprint,
            "future": future,
            "open_count": len(open_issues),
            "done_count": done,
            "error": error,
        },
        project=project,
        section="board",
        status=400 if error else 200,
    )


# --- reports ---------------------------------------------------------------------------------------


@person_required
def report_burndown(request, key):
    """A sprint's burndown: ?sprint=<id> picks one of the project's started sprints (default the active
    one, else the last closed)."""
    project = _project(key)
    started = list(project.sprints.exclude(state=Sprint.State.FUTURE).order_by("-number"))
    chosen = request.GET.get("sprint", "")
    sprint = next((s for s in started if str(s.public_id) == chosen), None)
    if chosen and sprint is None:
        raise Http404(f"Sprint {chosen} is not a started sprint of {project.key}.")
    sprint = sprint or next((s for s in started if s.state == Sprint.State.ACTIVE), started[0] if started else None)
    context = {"sprints": started, "report": "burndown", "sprint": sprint}
    if sprint is not None:
        chart = reports.burndown(sprint)
        context.update(
            chart=chart, svg=reports.burndown_svg(chart), days=list(zip(chart.days, chart.remaining, strict=True))
        )
    return page(request, "board/reports.html", context, project=project, section="reports")


@person_required
def report_velocity(request, key):
    project = _project(key)
    rows = reports.velocity(project)
    context = {"report": "velocity", "rows": rows, "svg": reports.velocity_svg(rows)}
    if rows:
        context["average"] = round(sum(r.completed for r in rows) / len(rows), 1)
    return page(request, "board/reports.html", context, project=project, section="reports")


# --- issue view and its actions ------------------------------------------------------------------


def _people_choices():
    return list(Person.objects.filter(active=True).order_by("name"))


def _mention_people() -> list[dict]:
    return [{"username": p.username, "name": p.name} for p in Person.objects.filter(active=True).order_by("name")]


def issue_context(request, issue: Issue, form: IssueForm, *, back: str) -> dict:
    """What the issue view shows, on its own page and in the board's side panel; `back` is where its
    forms return to."""
    drafts = request.session.get(DRAFTS, {})
    comments = list(
        issue.comments.select_related("author").prefetch_related("mentions__person").order_by("created_at", "public_id")
    )
    history = list(issue.changes.select_related("author").order_by("-created_at", "-public_id"))
    links = [(W.LINK_KINDS[lk.kind][0], lk.target) for lk in issue.outward_links.select_related("target")]
    links += [(W.LINK_KINDS[lk.kind][1], lk.source) for lk in issue.inward_links.select_related("source")]
    watchers = list(issue.watchers.select_related("person").order_by("person__name"))
    watching_ids = {w.person_id for w in watchers}
    people = _mention_people()
    return {
        "issue": issue,
        "form": form,
        "comments": comments,
        "history": history,
        "links": sorted(links, key=lambda x: (x[0], x[1].key)),
        "subtasks": list(issue.subtasks.select_related("assignee").order_by("number")),
        "watchers": watchers,
        "watching": request.person.id in watching_ids,
        "statuses": issue.project.workflow.statuses,
        "link_kinds": [(k, v[0]) for k, v in W.LINK_KINDS.items()]
        + [(f"~{k}", v[1]) for k, v in W.LINK_KINDS.items() if k != "relates"],
        "draft": drafts.get(issue.key, ""),
        "draft_mentions": [p for p in people if f"[~{p['username']}]" in drafts.get(issue.key, "")],
        "back": back,
        "people": people,
        "people_names": {p["username"]: p["name"] for p in people},
        "attachments": list(issue.attachments.select_related("author").order_by("created_at", "public_id")),
        "watcher_choices": [p for p in Person.objects.filter(active=True).order_by("name") if p.id not in watching_ids],
        "can_have_subtasks": issue.issue_type != "epic" and not issue.parent_id,
    }


@person_required
def issue_view(request, key):
    issue = _issue(key)
    form = IssueForm(issue=issue, data=request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                changed = services.issue_update(issue=issue, actor=request.person, **form.changes())
            except services.BoardError as exc:
                form.add_error(None, str(exc))
                status = 400
            else:
                flash(
                    request,
                    f"{issue.key} updated: {', '.join(map(W.field_label, changed))}."
                    if changed
                    else "Nothing to save.",
                    "success",
                )
                return redirect(safe_next(request, f"/browse/{issue.key}"))
        else:
            status = 400
    return page(
        request,
        "board/issue.html",
        issue_context(request, issue, form, back=f"/browse/{issue.key}"),
        project=issue.project,
        section="issues",
        status=status,
    )


@require_POST
@person_required
def issue_field(request, key):
    """Inline editing: one field of the issue saved on its own (Enter or the check in the issue view).
    A value the field refuses comes back on the issue page with the error under that field."""
    issue = _issue(key)
    name = request.POST.get("field", "")
    base = IssueForm(issue=issue)
    if name not in base.fields:
        return HttpResponseBadRequest(f"{issue.key} has no field '{name}' to edit.")
    form = base.one_field(name, request.POST)
    if form.is_valid():
        try:
            changed = services.issue_update(issue=issue, actor=request.person, **form.field_changes(name))
        except services.BoardError as exc:
            form.add_error(name, str(exc))
        else:
            labels = ", ".join(map(W.field_label, changed))
            flash(request, f"{issue.key} updated: {labels}." if changed else "Nothing to save.", "success")
            return redirect(safe_next(request, f"/browse/{issue.key}"))
    context = issue_context(request, issue, form, back=safe_next(request, f"/browse/{issue.key}"))
    return page(request, "board/issue.html", context, project=issue.project, section="issues", status=400)


def _answer(request, next_url, *, error: str = "", status: int = 200, conflict: bool = False):
    """JSON for board.js, a redirect with a flag otherwise."""
    if error and (conflict or not wants_json(request)):
        flash(request, error)
    if wants_json(request):
        return JsonResponse({"ok": not error, "error": error, "reload": conflict}, status=status if error else 200)
    return redirect(next_url)


@person_required
def issue_transition(request, key):
    issue = _issue(key)
    next_url = safe_next(request, f"/browse/{issue.key}")
    target = request.POST.get("status") or request.GET.get("status", "")
    if request.method == "GET":
        if target not in issue.project.workflow.statuses:
            raise Http404("No such status.")
        return page(
            request,
            "board/transition.html",
            {"issue": issue, "target": target, "resolutions": W.RESOLUTIONS, "next": next_url, "error": ""},
            project=issue.project,
        )
    resolution = request.POST.get("resolution", "")
    if resolution and resolution not in W.RESOLUTIONS:
        return HttpResponseBadRequest("Unknown resolution.")
    try:
        services.issue_transition(
            issue=issue,
            actor=request.person,
            target=target,
            resolution=resolution,
            seen_status=request.POST.get("seen") or None,
        )
    except services.Conflict as exc:
        return _answer(request, next_url, error=str(exc), status=409, conflict=True)
    except W.TransitionRefused as exc:
        if "screen" in request.POST and not wants_json(request):
            return page(
                request,
                "board/transition.html",
                {"issue": issue, "target": target, "resolutions": W.RESOLUTIONS, "next": next_url, "error": str(exc)},
                project=issue.project,
                status=400,
            )
        return _answer(request, next_url, error=str(exc), status=400)
    return _answer(request, next_url)


@require_POST
@person_required
def issue_rank(request, key):
    """Drag and drop on the board and backlog: rank between two issues, optionally into another sprint."""
    issue = _issue(key)
    next_url = safe_next(request, f"/browse/{issue.key}")
    if "position" in request.POST:
        return _rank_to_edge(request, issue, next_url)
    neighbours = {}
    for side in ("before", "after"):
        other_key = request.POST.get(side, "")
        neighbours[side] = Issue.objects.filter(key=other_key.upper()).first() if other_key else None
        if other_key and neighbours[side] is None:
            return _answer(request, next_url, error=f"Issue {other_key} does not exist.", status=400)
    try:
        if "sprint" in request.POST:
            value = request.POST["sprint"]
            sprint = (
                None
                if value in ("", "backlog")
                else issue.project.sprints.filter(public_id=value if value.isdigit() else -1).first()
            )
            if value not in ("", "backlog") and sprint is None:
                return _answer(request, next_url, error="That sprint does not exist.", status=400)
            services.issue_update(issue=issue, actor=request.person, sprint=sprint)
        if neighbours["before"] or neighbours["after"]:
            services.issue_rank(issue=issue, actor=request.person, **neighbours)
    except services.BoardError as exc:
        return _answer(request, next_url, error=str(exc), status=400)
    return _answer(request, next_url)


def _rank_peers(issue: Issue, scope: str) -> tuple[list[Issue], str]:
    """The issues `issue` is ranked among by the "Move to" menu, and how the message names them:
    its column on the project's board, or its section of the backlog (a sprint or the backlog)."""
    project = issue.project
    if issue.issue_type == "epic":
        raise services.BoardError("Epics are not ranked on the board or the backlog.")
    if scope == "column":
        on_board = project.board_type == Project.BoardType.KANBAN or (
            issue.sprint is not None and issue.sprint.state == Sprint.State.ACTIVE
        )
        if not on_board:
            raise services.BoardError(
                f"{issue.key} is not on the {project.key} board: only issues of the active sprint are."
            )
        sprint = None if project.board_type == Project.BoardType.KANBAN else issue.sprint
        peers = [i for i in _board_issues(project, sprint) if i.status == issue.status]
        return peers, f"the {issue.status} column"
    if scope == "backlog":
        if issue.parent_id:
            raise services.BoardError(f"{issue.key} is a sub-task: it moves with {issue.parent.key} in the backlog.")
        rows = Issue.objects.filter(project=project).exclude(issue_type__in=("epic", "subtask"))
        if issue.sprint is not None:
            if issue.sprint.state == Sprint.State.CLOSED:
                raise services.BoardError(f"{issue.sprint.name} is closed: its issues can't be ranked.")
            return list(rows.filter(sprint=issue.sprint)), issue.sprint.name
        return list(rows.filter(sprint__isnull=True).exclude(status=W.DONE)), "the backlog"
    raise services.BoardError("Issues are ranked within a board column or a backlog section.")


def _rank_to_edge(request, issue: Issue, next_url: str):
    """ "Top of column", "Bottom of backlog" and the like: the menu alternative to dragging."""
    try:
        peers, place = _rank_peers(issue, request.POST.get("scope", ""))
        services.issue_rank_to_edge(
            issue=issue, actor=request.person, peers=peers, edge=request.POST["position"], place=place
        )
    except services.BoardError as exc:
        return _answer(request, next_url, error=str(exc), status=400)
    return _answer(request, next_url)


@require_POST
@person_required
def issue_comment(request, key):
    issue = _issue(key)
    back = safe_next(request, f"/browse/{issue.key}")
    try:
        services.comment_add(issue=issue, actor=request.person, body=request.POST.get("body", ""))
    except services.BoardError as exc:
        # the text is kept as the draft, so nothing typed is lost to a refused mention
        drafts = request.session.get(DRAFTS, {})
        drafts[issue.key] = request.POST.get("body", "")
        request.session[DRAFTS] = drafts
        flash(request, str(exc))
    else:
        drafts = request.session.get(DRAFTS, {})
        if drafts.pop(issue.key, None) is not None:
            request.session[DRAFTS] = drafts
    return redirect(f"{back}#comments")


@require_POST
@person_required
def issue_link(request, key):
    issue = _issue(key)
    kind = request.POST.get("kind", "")
    back = safe_next(request, f"/browse/{issue.key}")
    other = Issue.objects.filter(key=request.POST.get("target", "").strip().upper()).first()
    if other is None:
        flash(request, f"Issue {request.POST.get('target', '').strip() or '(none)'} does not exist.")
        return redirect(back)
    source, target = (other, issue) if kind.startswith("~") else (issue, other)
    try:
        services.link_add(source=source, kind=kind.lstrip("~"), target=target, actor=request.person)
    except services.BoardError as exc:
        flash(request, str(exc))
    return redirect(back)


@require_POST
@person_required
def issue_watch(request, key):
    issue = _issue(key)
    services.watch_toggle(issue=issue, person=request.person)
    return redirect(safe_next(request, f"/browse/{issue.key}"))


@require_POST
@person_required
def issue_watcher_add(request, key):
    issue = _issue(key)
    person = Person.objects.filter(username=request.POST.get("person", "")).first()
    try:
        if person is None:
            raise services.BoardError("Choose a person to add as a watcher.")
        services.watcher_add(issue=issue, person=person)
    except services.BoardError as exc:
        flash(request, str(exc))
    else:
        flash(request, f"{person.name} is now watching {issue.key}.", "success")
    return redirect(safe_next(request, f"/browse/{issue.key}"))


@require_POST
@person_required
def issue_assign_to_me(request, key):
    """The "Assign to me" link and the `i` shortcut."""
    issue = _issue(key)
    next_url = safe_next(request, f"/browse/{issue.key}")
    services.issue_update(issue=issue, actor=request.person, assignee=request.person)
    return _answer(request, next_url)


@require_POST
@person_required
def issue_subtask_create(request, key):
    issue = _issue(key)
    back = safe_next(request, f"/browse/{issue.key}")
    form = SubtaskForm(people=_people_choices(), data=request.POST)
    if not form.is_valid():
        flash(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect(back)
    try:
        subtask = services.subtask_create(parent=issue, actor=request.person, **form.values())
    except services.BoardError as exc:
        flash(request, str(exc))
        return redirect(back)
    flash(request, f"{subtask.key} has been created as a sub-task of {issue.key}.", "success")
    return redirect(back)


@require_POST
@person_required
def issue_attach(request, key):
    issue = _issue(key)
    back = safe_next(request, f"/browse/{issue.key}")
    form = AttachmentForm(request.POST, request.FILES)
    if not form.is_valid():
        flash(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect(back)
    upload = form.cleaned_data["file"]
    services.attachment_add(
        issue=issue,
        actor=request.person,
        name=upload.name.strip(),
        size=upload.size,
        content_type=(upload.content_type or "application/octet-stream")[:100],
    )
    flash(request, f"{upload.name.strip()} is attached to {issue.key}.", "success")
    return redirect(back)


@require_POST
@person_required
def issue_attachment_delete(request, key, attachment_id):
    issue = _issue(key)
    attachment = Attachment.objects.filter(issue=issue, public_id=attachment_id).first()
    if attachment is None:
        raise Http404("No such attachment.")
    try:
        services.attachment_delete(attachment=attachment, actor=request.person)
    except services.BoardError as exc:
        flash(request, str(exc))
    return redirect(safe_next(request, f"/browse/{issue.key}"))


@person_required
def issue_create(request, key):
    project = _project(key)
    form = CreateForm(project=project, data=request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            issue = services.issue_create(project=project, actor=request.person, **form.values())
        except services.BoardError as exc:
            form.add_error(None, str(exc))
        else:
            flash(request, f"{issue.key} has been created.", "success")
            return redirect(f"/browse/{issue.key}")
    return page(
        request,
        "board/create.html",
        {"form": form},
        project=project,
        section="issues",
        status=400 if request.method == "POST" else 200,
    )


@person_required
def contributing(request, key):
    project = _project(key)
    components = list(project.components.select_related("lead").order_by("name"))
    return page(request, "board/contributing.html", {"components": components}, project=project, section="pages")


# --- search ----------------------------------------------------------------------------------------


def _filter(public_id, person=None) -> Filter:
    saved = (
        Filter.objects.select_related("owner").filter(public_id=public_id).first() if str(public_id).isdigit() else None
    )
    if saved is None or (person is not None and saved.owner_id != person.id):
        raise Http404("The filter does not exist or you do not have permission to see it.")
    return saved


WORK_ITEM_KEY = re.compile(r"[A-Za-z][A-Za-z0-9]*-\d+")


def _quick_search(request, words: str):
    """The top bar's search box: a work item's key opens it; anything else is a text search (never JQL,
    so what a person types can't be a syntax error), shown in the navigator as the JQL it ran."""
    words = " ".join(words.split())
    if WORK_ITEM_KEY.fullmatch(words) and Issue.objects.filter(key=words.upper()).exists():
        return redirect(f"/browse/{words.upper()}")
    if not words:
        return redirect("/issues")
    quoted = words.replace("\\", "\\\\").replace('"', '\\"')
    return redirect("/issues?" + urlencode({"jql": f'text ~ "{quoted}" ORDER BY updated DESC'}))


def _page_number(raw: str) -> int:
    """?page= as a whole number of at least 1; anything else is the first page, as the product does."""
    return int(raw) if raw.isdigit() and 0 < int(raw) < 100000 else 1


def _page_window(number: int, pages: int) -> list[tuple[int, int]]:
    """The pager's numbers, as the product shows them: the first, the last and two either side of the
    current page, each with the number before it (so the template marks a gap)."""
    shown = sorted({1, pages} | {n for n in range(number - 2, number + 3) if 1 <= n <= pages})
    return list(zip([0, *shown], shown, strict=False))


@person_required
def search(request):
    if "q" in request.GET:
        return _quick_search(request, request.GET["q"])
    saved = _filter(request.GET["filter"]) if "filter" in request.GET else None
    query = request.GET.get("jql", saved.jql if saved else DEFAULT_JQL)
    error, issues, total = "", [], 0
    number = _page_number(request.GET.get("page", ""))
    try:
        issues, total = issues_search(query=query, person=request.person, page=number)
    except jql.JQLError as exc:
        error = str(exc)
    number = page_clamp(number, total)
    first = (number - 1) * PAGE_SIZE + 1
    pages = page_count(total)
    base = {"jql": query, **({"filter": saved.public_id} if saved else {})}
    paging = {
        "number": number,
        "pages": pages,
        "first": first,
        "last": first + len(issues) - 1,
        "links": [
            {"number": n, "href": "/issues?" + urlencode({**base, "page": n}), "gap": n - seen > 1}
            for seen, n in _page_window(number, pages)
        ],
        "previous": "/issues?" + urlencode({**base, "page": number - 1}) if number > 1 else "",
        "next": "/issues?" + urlencode({**base, "page": number + 1}) if number < pages else "",
    }
    bulk = BulkForm(people=_people_choices(), statuses=world_statuses())
    return page(
        request,
        "board/search.html",
        {
            "jql": query,
            "error": error,
            "issues": issues,
            "total": total,
            "bulk": bulk,
            "paging": paging,
            "query_string": urlencode({"jql": query}),
            "saved": saved,
            "modified": saved is not None and " ".join(query.split()) != saved.jql,
            "mine": saved is not None and saved.owner_id == request.person.id,
        },
        project=Project.objects.filter(key="AGENT").first(),
        section="issues",
        status=400 if error else 200,
    )


# --- saved filters -------------------------------------------------------------------------------------


@person_required
def filters(request):
    mine = list(Filter.objects.filter(owner=request.person).order_by("-starred", "name"))
    return page(
        request,
        "board/filters.html",
        {"filters": mine, "form": FilterForm()},
        project=Project.objects.filter(key="AGENT").first(),
        section="filters",
    )


@require_POST
@person_required
def filter_create(request):
    form = FilterForm(request.POST)
    if form.is_valid():
        try:
            saved = services.filter_create(
                owner=request.person,
                name=form.cleaned_data["name"],
                query=form.cleaned_data["jql"],
                description=form.cleaned_data["description"],
                starred=form.cleaned_data["starred"],
            )
        except (services.BoardError, jql.JQLError) as exc:
            form.add_error(None, str(exc))
        else:
            flash(request, f"Filter '{saved.name}' saved.", "success")
            return redirect(f"/issues?filter={saved.public_id}")
    mine = list(Filter.objects.filter(owner=request.person).order_by("-starred", "name"))
    return page(
        request,
        "board/filters.html",
        {"filters": mine, "form": form},
        project=Project.objects.filter(key="AGENT").first(),
        section="filters",
        status=400,
    )


@person_required
def filter_edit(request, filter_id):
    saved = _filter(filter_id, request.person)
    initial = {"name": saved.name, "jql": saved.jql, "description": saved.description, "starred": saved.starred}
    form = FilterForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            changed = services.filter_update(saved=saved, actor=request.person, **form.cleaned_data)
        except (services.BoardError, jql.JQLError) as exc:
            form.add_error(None, str(exc))
        else:
            flash(request, f"Filter '{saved.name}' updated." if changed else "Nothing to save.", "success")
            return redirect(f"/issues?filter={saved.public_id}")
    return page(
        request,
        "board/filter_edit.html",
        {"saved": saved, "form": form},
        project=Project.objects.filter(key="AGENT").first(),
        section="filters",
        status=400 if request.method == "POST" else 200,
    )


@require_POST
@person_required
def filter_delete(request, filter_id):
    saved = _filter(filter_id, request.person)
    services.filter_delete(saved=saved, actor=request.person)
    flash(request, f"Filter '{saved.name}' deleted.", "success")
    return redirect("/filters")


@require_POST
@person_required
def bulk_change(request):
    query = request.POST.get("jql", DEFAULT_JQL)
    back = "/issues?" + urlencode({"jql": query})
    form = BulkForm(people=_people_choices(), statuses=world_statuses(), data=request.POST)
    if not form.is_valid():
        flash(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect(back)
    issues = list(
        Issue.objects.select_related("project__workflow").filter(key__in=form.cleaned_data["keys"]).order_by("key")
    )
    if len(issues) != len(set(form.cleaned_data["keys"])):
        flash(request, "Some of the selected issues no longer exist.")
        return redirect(back)
    try:
        changed = services.bulk_change(issues=issues, actor=request.person, **form.changes())
    except services.BoardError as exc:
        flash(request, str(exc))
        return redirect(back)
    flash(
        request,
        f"Bulk change complete: {changed} of {len(issues)} issue{'s' if len(issues) != 1 else ''} changed.",
        "success",
    )
    return redirect(back)
