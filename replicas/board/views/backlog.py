"""The backlog with its sprints, and the Start and Complete sprint dialogs."""

from datetime import timedelta

from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from replicas.worlds.clock import now

from .. import selectors, services
from ..forms import SprintStartForm
from ..models import Sprint
from .common import dialog, flash, page, person_required, project_or_404, sprint_or_404


def _points(issues) -> int:
    return sum(i.story_points or 0 for i in issues)


@person_required
def backlog(request, key):
    """The backlog: each open sprint, then the backlog, with the epic panel's filter (?epic=KEY or none)."""
    project = project_or_404(key)
    chosen = request.GET.get("epic", "").strip().upper()
    epic = "none" if chosen == "NONE" else (chosen and selectors.epic_of_project(project, chosen))
    if epic is None:
        raise Http404(f"{chosen} is not an epic of {project.key}.")
    sprints = selectors.open_sprints(project)
    sections = []
    for sprint in sprints:
        rows = selectors.sprint_issues(sprint, epic)
        sections.append({"sprint": sprint, "issues": rows, "points": _points(rows)})
    rows = selectors.backlog_issues(project, epic)
    return page(
        request,
        "board/backlog.html",
        {
            "sections": sections,
            "backlog": rows,
            "backlog_points": _points(rows),
            "sprints": sprints,
            "has_active": any(s.state == Sprint.State.ACTIVE for s in sprints),
            "epics": selectors.project_epics(project),
            "epic_filter": "none" if epic == "none" else (epic.key if epic else ""),
        },
        project=project,
        section="backlog",
    )


@require_POST
@person_required
def sprint_create(request, key):
    """The backlog's "Create sprint": a new future sprint at the end of the plan."""
    project = project_or_404(key)
    try:
        sprint = services.sprint_create(project=project, actor=request.person)
    except services.BoardError as exc:
        flash(request, str(exc))
    else:
        flash(request, f"{sprint.name} has been created.", "success")
    return redirect(f"/projects/{project.key}/backlog")


@person_required
def sprint_start(request, key, sprint_id):
    """The "Start sprint" dialog: name, duration (or custom dates) and goal, then the sprint is under way."""
    project = project_or_404(key)
    sprint = sprint_or_404(project, sprint_id)
    form = SprintStartForm(request.POST or None, sprint=sprint)
    form.initial["end_date"] = (now() + timedelta(weeks=2)).date()
    if request.method == "POST" and form.is_valid():
        try:
            services.sprint_start(sprint=sprint, actor=request.person, **form.values())
        except services.BoardError as exc:
            form.add_error(None, str(exc))
        else:
            flash(request, f"{sprint.name} has started.", "success")
            return redirect(f"/projects/{project.key}/board")
    rows = selectors.sprint_issues(sprint)
    return dialog(
        request,
        "board/_sprint_start.html",
        {"sprint": sprint, "form": form, "issue_count": len(rows), "points": _points(rows), "today": now()},
        project=project,
        title=f"Start {sprint.name}",
        title_id="start-title",
        status=400 if request.method == "POST" else 200,
    )


@person_required
def sprint_complete(request, key, sprint_id):
    """The "Complete sprint" dialog: open work goes to a future sprint, a new sprint or the backlog."""
    project = project_or_404(key)
    sprint = sprint_or_404(project, sprint_id)
    future = selectors.future_sprints(project)
    error, target = "", request.POST.get("move_to", "")
    if request.method == "POST":
        move_to = next((s for s in future if str(s.public_id) == target), None)
        if move_to is None and target not in ("backlog", "new"):
            error = "Choose where the open work items go: a future sprint, a new sprint or the backlog."
        else:
            try:
                moved, went_to = services.sprint_complete(
                    sprint=sprint, actor=request.person, move_to=move_to, new_sprint=target == "new"
                )
            except services.BoardError as exc:
                error = str(exc)
            else:
                flash(
                    request,
                    f"{sprint.name} is complete. {moved} open work item{'s' if moved != 1 else ''} moved to "
                    f"{went_to.name if went_to else 'the backlog'}.",
                    "success",
                )
                return redirect(f"/projects/{project.key}/backlog")
    return dialog(
        request,
        "board/_sprint_complete.html",
        {
            "sprint": sprint,
            "future": future,
            "chosen": target,
            "open_count": len(selectors.sprint_open_issues(sprint)),
            "done_count": selectors.sprint_done_count(sprint),
            "error": error,
        },
        project=project,
        title=f"Complete {sprint.name}",
        title_id="complete-title",
        status=400 if error else 200,
    )
