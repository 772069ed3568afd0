"""Self-check runs (test runs on the pages) from the editor or the task page: queued as episodes, results
arriving live (htmx polling)."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from replicagym.accounts.roles import Role, role_required

from catalogue.models import Task

from ..models import SelfCheckRun
from ..selfcheck_runs import SelfCheckError, parse_seeds, selfcheck_done, selfcheck_rows, selfcheck_start


@role_required(Role.AUTHOR)
@require_POST
def selfcheck_create(request, task_id):
    task = get_object_or_404(Task, task_id=task_id, is_current=True)
    try:
        seeds = parse_seeds(request.POST.get("seeds", ""), task=task)
        run = selfcheck_start(task=task, author=request.user, seeds=seeds)
    except SelfCheckError as exc:
        messages.error(request, str(exc))
        return redirect("frontend:task", task_id=task_id)
    return redirect("frontend:test_run", task_id=task_id, pk=run.pk)


@role_required(Role.AUTHOR)
def selfcheck_page(request, task_id, pk):
    run = get_object_or_404(SelfCheckRun.objects.select_related("task"), pk=pk, task__task_id=task_id)
    rows = selfcheck_rows(run)
    context = {
        "run": run,
        "rows": rows,
        "done": selfcheck_done(rows),
        "verdict_ok": all(r["ok"] for r in rows) if selfcheck_done(rows) else None,
    }
    template = "frontend/selfcheck_run_results.html" if request.htmx else "frontend/selfcheck_run.html"
    return render(request, template, context)
