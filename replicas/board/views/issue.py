"""A work item: its page (and the board's side panel), inline editing of one field, transitions,
ranking, comments, links, watchers, sub-tasks, attachments; creating one; the project's page."""

from urllib.parse import urlencode

from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from replicas.worlds.signin import safe_next

from .. import selectors, services
from .. import workflow as W
from ..forms import AttachmentForm, CreateForm, IssueForm, SubtaskForm
from ..models import Issue, Project, Sprint
from .common import (
    DRAFTS,
    answer,
    dialog,
    draft_keep,
    flash,
    issue_or_404,
    page,
    person_required,
    project_or_404,
    wants_json,
)


def issue_context(request, issue: Issue, form: IssueForm, *, back: str) -> dict:
    """What the issue view shows, on its own page and in the board's side panel; `back` is where its
    forms return to."""
    draft = request.session.get(DRAFTS, {}).get(issue.key, "")
    details = selectors.issue_details(issue)
    watching_ids = {w.person_id for w in details["watchers"]}
    active = selectors.active_people()
    people = [{"username": p.username, "name": p.name} for p in active]
    return {
        "issue": issue,
        "form": form,
        **details,
        "watching": request.person.id in watching_ids,
        "statuses": issue.project.workflow.statuses,
        "link_kinds": [(k, v[0]) for k, v in W.LINK_KINDS.items()]
        + [(f"~{k}", v[1]) for k, v in W.LINK_KINDS.items() if k != "relates"],
        "draft": draft,
        "draft_mentions": [p for p in people if f"[~{p['username']}]" in draft],
        "back": back,
        "people": people,
        "people_names": {p["username"]: p["name"] for p in people},
        "watcher_choices": [p for p in active if p.id not in watching_ids],
        "can_have_subtasks": issue.issue_type != "epic" and not issue.parent_id,
    }


def _updated(request, issue: Issue, changed: list[str]):
    labels = ", ".join(map(W.field_label, changed))
    flash(request, f"{issue.key} updated: {labels}." if changed else "Nothing to save.", "success")
    return redirect(safe_next(request, f"/browse/{issue.key}"))


@person_required
def issue_view(request, key):
    issue = issue_or_404(key)
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
                return _updated(request, issue, changed)
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
    issue = issue_or_404(key)
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
            return _updated(request, issue, changed)
    context = issue_context(request, issue, form, back=safe_next(request, f"/browse/{issue.key}"))
    return page(request, "board/issue.html", context, project=issue.project, section="issues", status=400)


@person_required
def issue_transition(request, key):
    issue = issue_or_404(key)
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
        return answer(request, next_url, error=str(exc), status=409, conflict=True)
    except W.TransitionRefused as exc:
        if "screen" in request.POST and not wants_json(request):
            return page(
                request,
                "board/transition.html",
                {"issue": issue, "target": target, "resolutions": W.RESOLUTIONS, "next": next_url, "error": str(exc)},
                project=issue.project,
                status=400,
            )
        return answer(request, next_url, error=str(exc), status=400)
    return answer(request, next_url)


@require_POST
@person_required
def issue_rank(request, key):
    """Drag and drop on the board and backlog: rank between two issues, optionally into another sprint."""
    issue = issue_or_404(key)
    next_url = safe_next(request, f"/browse/{issue.key}")
    if "position" in request.POST:
        return _rank_to_edge(request, issue, next_url)
    neighbours = {}
    for side in ("before", "after"):
        other_key = request.POST.get(side, "")
        neighbours[side] = selectors.issue_by_key(other_key) if other_key else None
        if other_key and neighbours[side] is None:
            return answer(request, next_url, error=f"Work item {other_key} does not exist.", status=400)
    try:
        if "sprint" in request.POST:
            value = request.POST["sprint"]
            sprint = None if value in ("", "backlog") else selectors.sprint_by_id(issue.project, value)
            if value not in ("", "backlog") and sprint is None:
                return answer(request, next_url, error="That sprint does not exist.", status=400)
            services.issue_update(issue=issue, actor=request.person, sprint=sprint)
        if neighbours["before"] or neighbours["after"]:
            services.issue_rank(issue=issue, actor=request.person, **neighbours)
    except services.BoardError as exc:
        return answer(request, next_url, error=str(exc), status=400)
    return answer(request, next_url)


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
                f"{issue.key} is not on the {project.key} board: only work items of the active sprint are."
            )
        sprint = None if project.board_type == Project.BoardType.KANBAN else issue.sprint
        peers = [i for i in selectors.board_issues(project, sprint) if i.status == issue.status]
        return peers, f"the {issue.status} column"
    if scope == "backlog":
        if issue.parent_id:
            raise services.BoardError(f"{issue.key} is a sub-task: it moves with {issue.parent.key} in the backlog.")
        if issue.sprint is not None and issue.sprint.state == Sprint.State.CLOSED:
            raise services.BoardError(f"{issue.sprint.name} is closed: its work items can't be ranked.")
        return selectors.backlog_peers(issue), issue.sprint.name if issue.sprint is not None else "the backlog"
    raise services.BoardError("Work items are ranked within a board column or a backlog section.")


def _rank_to_edge(request, issue: Issue, next_url: str):
    """ "Top of column", "Bottom of backlog" and the like: the menu alternative to dragging."""
    try:
        peers, place = _rank_peers(issue, request.POST.get("scope", ""))
        services.issue_rank_to_edge(
            issue=issue, actor=request.person, peers=peers, edge=request.POST["position"], place=place
        )
    except services.BoardError as exc:
        return answer(request, next_url, error=str(exc), status=400)
    return answer(request, next_url)


@require_POST
@person_required
def issue_comment(request, key):
    issue = issue_or_404(key)
    back = safe_next(request, f"/browse/{issue.key}")
    try:
        services.comment_add(issue=issue, actor=request.person, body=request.POST.get("body", ""))
    except services.BoardError as exc:
        # the text is kept as the draft, so nothing typed is lost to a refused mention
        draft_keep(request, issue.key, request.POST.get("body", ""))
        flash(request, str(exc))
    else:
        drafts = request.session.get(DRAFTS, {})
        if drafts.pop(issue.key, None) is not None:
            request.session[DRAFTS] = drafts
    return redirect(f"{back}#comments")


@require_POST
@person_required
def issue_link(request, key):
    issue = issue_or_404(key)
    kind = request.POST.get("kind", "")
    back = safe_next(request, f"/browse/{issue.key}")
    typed = request.POST.get("target", "").strip()
    other = selectors.issue_by_key(typed) if typed else None
    if other is None:
        flash(request, f"Work item {typed or '(none)'} does not exist.")
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
    issue = issue_or_404(key)
    services.watch_toggle(issue=issue, person=request.person)
    return redirect(safe_next(request, f"/browse/{issue.key}"))


@require_POST
@person_required
def issue_watcher_add(request, key):
    issue = issue_or_404(key)
    person = selectors.person_by_username(request.POST.get("person", ""))
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
    issue = issue_or_404(key)
    next_url = safe_next(request, f"/browse/{issue.key}")
    services.issue_update(issue=issue, actor=request.person, assignee=request.person)
    return answer(request, next_url)


@require_POST
@person_required
def issue_subtask_create(request, key):
    issue = issue_or_404(key)
    back = safe_next(request, f"/browse/{issue.key}")
    form = SubtaskForm(people=selectors.active_people(), data=request.POST)
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
    issue = issue_or_404(key)
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
    issue = issue_or_404(key)
    attachment = selectors.attachment_of(issue, attachment_id)
    if attachment is None:
        raise Http404("No such attachment.")
    try:
        services.attachment_delete(attachment=attachment, actor=request.person)
    except services.BoardError as exc:
        flash(request, str(exc))
    return redirect(safe_next(request, f"/browse/{issue.key}"))


@person_required
def issue_create(request, key):
    """The Create dialog (an htmx request gets the dialog alone; the page shows it over the project):
    a space picker, the work type, its fields, and "Create another" to stay in the dialog after saving."""
    project = project_or_404(key)
    space = request.GET.get("space", "").strip().upper()
    if space and space != project.key:
        query = urlencode({"issue_type": request.GET.get("issue_type", "")})
        return redirect(f"/projects/{project_or_404(space).key}/issues/new?{query}")
    form = CreateForm(project=project, data=request.POST or None, issue_type=request.GET.get("issue_type", ""))
    form.initial["create_another"] = request.GET.get("another") == "1"
    created = None
    if request.method == "POST" and form.is_valid():
        try:
            created = services.issue_create(project=project, actor=request.person, **form.values())
        except services.BoardError as exc:
            form.add_error(None, str(exc))
        else:
            another = form.cleaned_data["create_another"]
            if request.htmx and another:  # the dialog stays open, emptied, on the same space and work type
                form = CreateForm(project=project, issue_type=created.issue_type)
                form.initial["create_another"] = True
            else:
                flash(request, f"{created.key} has been created.", "success")
                if another:
                    query = urlencode({"issue_type": created.issue_type, "another": "1"})
                    return redirect(f"/projects/{project.key}/issues/new?{query}")
                target = f"/browse/{created.key}"
                if request.htmx:
                    return HttpResponse(headers={"HX-Redirect": target})
                return redirect(safe_next(request, target))  # the backlog's inline "+ Create" stays on the backlog
    status = 400 if request.method == "POST" and created is None else 200
    context = {"form": form, "created": created}
    return dialog(
        request, "board/_create.html", context, project=project, title="Create", title_id="create-title", status=status
    )


@person_required
def contributing(request, key):
    project = project_or_404(key)
    return page(
        request,
        "board/contributing.html",
        {"components": selectors.components(project)},
        project=project,
        section="pages",
    )
