"""Where the top bar and the project sidebar lead: Your work, Projects, Dashboards, and a project's
Summary, Timeline, pages and settings."""

from datetime import date

from django.http import Http404
from django.shortcuts import redirect, render

from replicas.worlds.clock import now

from .. import selectors
from .common import page, person_required, project_or_404

TIMELINE_DAYS = 120  # the timeline's window: from two weeks back, as the product opens it on "Months"
TIMELINE_BACK_DAYS = 14


@person_required
def your_work(request):
    context = {
        "assigned": selectors.assigned_open(request.person),
        "worked_on": selectors.worked_on(request.person),
    }
    return page(request, "board/your_work.html", context, section="your-work")


@person_required
def notifications(request):
    """The notifications menu's items, fetched by board.js when the menu is first opened; without
    JavaScript, a page of them."""
    context = {"notifications": selectors.mentions_of(request.person), "today": now()}
    if request.htmx:
        return render(request, "board/_notifications.html", context)
    return page(request, "board/notifications.html", context, section="notifications")


@person_required
def projects(request):
    return page(request, "board/projects.html", {"all_projects": selectors.projects()}, section="projects")


@person_required
def dashboards(request):
    """The default dashboard: the gadgets a new site shows (assigned to me, each project's status)."""
    overviews = [{"project": p, **selectors.project_overview(p)} for p in selectors.projects()]
    context = {"assigned": selectors.assigned_open(request.person)[:10], "overviews": overviews}
    return page(request, "board/dashboards.html", context, section="dashboards")


@person_required
def project_home(request, key):
    return redirect(f"/projects/{project_or_404(key).key}/summary")


@person_required
def project_summary(request, key):
    project = project_or_404(key)
    overview = selectors.project_overview(project)
    top = max([n for _, n in overview["statuses"]] + [1])
    context = {**overview, "status_bars": [(s, n, round(100 * n / top)) for s, n in overview["statuses"]]}
    return page(request, "board/summary.html", context, project=project, section="summary")


@person_required
def project_timeline(request, key):
    project = project_or_404(key)
    first = now().date().toordinal() - TIMELINE_BACK_DAYS
    rows = []
    for row in selectors.project_timeline(project):
        start = max(row["start"].toordinal(), first)
        end = row["end"].toordinal() if row["end"] else None
        shown = end is not None and end >= first and start <= first + TIMELINE_DAYS
        rows.append(
            {
                **row,
                "left": 100 * (start - first) / TIMELINE_DAYS if shown else 0,
                "width": max(1.0, 100 * (min(end, first + TIMELINE_DAYS) - start) / TIMELINE_DAYS) if shown else 0,
            }
        )
    months = []
    for offset in range(TIMELINE_DAYS):
        day = date.fromordinal(first + offset)
        if day.day == 1 or offset == 0:
            months.append({"label": day.strftime("%b %Y"), "left": 100 * offset / TIMELINE_DAYS})
    today = 100 * TIMELINE_BACK_DAYS / TIMELINE_DAYS
    context = {"rows": rows, "months": months, "today_left": today}
    return page(request, "board/timeline.html", context, project=project, section="timeline")


@person_required
def project_settings(request, key):
    project = project_or_404(key)
    context = {"columns": selectors.board_columns(project), "components": selectors.components(project)}
    return page(request, "board/project_settings.html", context, project=project, section="settings")


@person_required
def project_page(request, key, slug):
    """One of the project's pages (definition of done, on-call runbook), in the product's wiki markup."""
    project = project_or_404(key)
    doc = selectors.project_page(project, slug)
    if doc is None:
        raise Http404(f"{project.key} has no page {slug!r}.")
    return page(
        request,
        "board/project_page.html",
        {"doc": doc, "names": selectors.people_names()},
        project=project,
        section=f"page-{slug}",
    )
