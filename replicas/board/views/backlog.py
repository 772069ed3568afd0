"""The backlog with its sprints, and the Start and Complete sprint dialogs."""

from django.shortcuts import redirect

from .. import selectors, services
from ..forms import SprintStartForm
from ..models import Sprint
from .common import flash, page, person_required, project_or_404, sprint_or_404


def _points(issues) -> int:
    return sum(i.story_points or 0 for i in issues)


@person_required
def backlog(request, key):
    project = project_or_404(key)
    sprints = selectors.open_sprints(project)
    sections = []
    for sprint in sprints:
        rows = selectors.sprint_issues(sprint)
        sections.append({"sprint": sprint, "issues": rows, "points": _points(rows)})
    rows = selectors.backlog_issues(project)
    return page(
        request,
        "board/backlog.html",
        {
            "sections": sections,
            "backlog": rows,
            "backlog_points": _points(rows),
            "sprints": sprints,
            "has_active": any(s.state == Sprint.State.ACTIVE for s in sprints),
        },
        project=project,
        section="backlog",
    )


@person_required
def sprint_start(request, key, sprint_id):
    """The "Start sprint" dialog: duration and goal, then the sprint is under way on the board."""
    project = project_or_404(key)
    sprint = sprint_or_404(project, sprint_id)
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
    rows = selectors.sprint_issues(sprint)
    return page(
        request,
        "board/sprint_start.html",
        {"sprint": sprint, "form": form, "issue_count": len(rows), "points": _points(rows)},
        project=project,
        section="backlog",
        status=400 if request.method == "POST" else 200,
    )


@person_required
def sprint_complete(request, key, sprint_id):
    project = project_or_404(key)
    sprint = sprint_or_404(project, sprint_id)
    future = selectors.future_sprints(project)
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
            "open_count": len(selectors.sprint_open_issues(sprint)),
            "done_count": selectors.sprint_done_count(sprint),
            "error": error,
        },
        project=project,
        section="board",
        status=400 if error else 200,
    )
