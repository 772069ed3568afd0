"""The burndown and velocity reports, drawn from the world's history on the world clock."""

from django.http import Http404

from .. import reports, selectors
from ..models import Sprint
from .common import page, person_required, project_or_404


@person_required
def report_burndown(request, key):
    """A sprint's burndown: ?sprint=<id> picks one of the project's started sprints (default the active
    one, else the last closed)."""
    project = project_or_404(key)
    started = selectors.started_sprints(project)
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
    project = project_or_404(key)
    rows = reports.velocity(project)
    context = {"report": "velocity", "rows": rows, "svg": reports.velocity_svg(rows)}
    if rows:
        context["average"] = round(sum(r.completed for r in rows) / len(rows), 1)
    return page(request, "board/reports.html", context, project=project, section="reports")
