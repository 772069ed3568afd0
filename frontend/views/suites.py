"""Suites: the current version of each, its tasks and its latest run."""

from django.contrib import messages
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from replicagym.accounts.roles import Role, role_required

from catalogue.authoring import DraftError, suite_save
from catalogue.models import Suite, Task

from .. import stats


@role_required(Role.AUTHOR)
def suite_list(request):
    suites = list(Suite.objects.filter(is_current=True).annotate(n_tasks=Count("tasks")).order_by("name"))
    latest = stats.suite_latest_runs([s.name for s in suites])
    return render(
        request,
        "frontend/suites.html",
        {
            "suites": [{"suite": s, "latest": latest.get(s.name)} for s in suites],
        },
    )


@role_required(Role.AUTHOR)
def suite_detail(request, name):
    suite = get_object_or_404(Suite, name=name, is_current=True)
    tasks = list(suite.tasks.order_by("task_id"))
    rates = stats.task_pass_rates([t.task_id for t in tasks])
    return render(
        request,
        "frontend/suite.html",
        {
            "suite": suite,
            "rows": [{"task": t, "rate": rates.get(t.task_id)} for t in tasks],
            "latest": stats.suite_latest_runs([suite.name]).get(suite.name),
            "versions": Suite.objects.filter(name=name).annotate(n_tasks=Count("tasks")).order_by("-created_at")[:20],
        },
    )


@role_required(Role.AUTHOR)
def suite_edit(request, name=None):
    """Create a suite or set a suite's tasks and description: each save is a new suite version."""
    suite = get_object_or_404(Suite, name=name, is_current=True) if name else None
    chosen = list(suite.tasks.values_list("task_id", flat=True)) if suite else []
    form = {"name": name or "", "description": suite.description if suite else ""}
    errors = []
    if request.method == "POST":
        chosen = request.POST.getlist("tasks")
        form = {
            "name": name or request.POST.get("name", "").strip(),
            "description": request.POST.get("description", "").strip(),
        }
        if not name and Suite.objects.filter(name=form["name"]).exists():
            errors = [("name", f"a suite {form['name']!r} exists already: edit it instead")]
        else:
            try:
                saved = suite_save(name=form["name"], task_ids=chosen, description=form["description"])
            except DraftError as exc:
                errors = exc.errors
            else:
                messages.success(request, f"Saved suite {saved.name}, version {saved.version[:12]}.")
                return redirect("frontend:suite", name=saved.name)
    return render(
        request,
        "frontend/suite_edit.html",
        {
            "suite": suite,
            "form": form,
            "chosen": set(chosen),
            "errors": dict(errors),
            "tasks": Task.objects.filter(is_current=True).order_by("replica", "task_id"),
        },
        status=422 if errors else 200,
    )
