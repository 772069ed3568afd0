"""Test runs from the editor or the task page: queued as episodes, results arriving live (htmx polling)."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from replicagym.accounts.roles import Role, role_required

from catalogue.models import Task

from ..models import TestRun
from ..test_runs import TestRunError, parse_seeds, test_run_done, test_run_rows, test_run_start


@role_required(Role.AUTHOR)
@require_POST
def test_run_create(request, task_id):
    task = get_object_or_404(Task, task_id=task_id, is_current=True)
    try:
        seeds = parse_seeds(request.POST.get("seeds", ""), task=task)
        run = test_run_start(task=task, author=request.user, seeds=seeds)
    except TestRunError as exc:
        messages.error(request, str(exc))
        return redirect("frontend:task", task_id=task_id)
    return redirect("frontend:test_run", task_id=task_id, pk=run.pk)


@role_required(Role.AUTHOR)
def test_run_page(request, task_id, pk):
    run = get_object_or_404(TestRun.objects.select_related("task"), pk=pk, task__task_id=task_id)
    rows = test_run_rows(run)
    context = {
        "run": run,
        "rows": rows,
        "done": test_run_done(rows),
        "verdict_ok": all(r["ok"] for r in rows) if test_run_done(rows) else None,
    }
    template = "frontend/test_run_results.html" if request.htmx else "frontend/test_run.html"
    return render(request, template, context)
