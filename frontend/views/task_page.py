"""One task: what it asks, how it is judged (answer key for authors only), its versions, episodes and test runs."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from replicagym.accounts.roles import Role, role_required, user_roles

from catalogue.authoring import DraftError, task_export, task_import, version_diff, version_restore
from catalogue.models import Task
from episodes.models import Episode

from .. import stats
from ..models import SelfCheckRun
from ..verifier_text import describe


def _current(task_id) -> Task:
    return get_object_or_404(Task, task_id=task_id, is_current=True)


@role_required(Role.AUTHOR, Role.ANNOTATOR)
def task_detail(request, task_id):
    task = _current(task_id)
    is_author = bool(user_roles(request.user) & {Role.AUTHOR, Role.ADMIN})
    assertions = [
        {
            "name": a.get("name"),
            "kind": a.get("kind"),
            "required": a.get("required", True),
            "text": describe(a) if is_author else "",
        }
        for a in task.verifier.get("assertions", [])
    ]
    return render(
        request,
        "frontend/task.html",
        {
            "task": task,
            "is_author": is_author,
            "assertions": assertions,
            "allowed_changes": [
                describe(
                    {
                        "kind": "diff",
                        "op": ", ".join(r.get("ops", ["any change"])),
                        "table": r.get("table"),
                        "where": r.get("where"),
                        "count": {"min": 0},
                    }
                )
                for r in task.verifier.get("allowed_changes", [])
            ]
            if is_author
            else [],
            "versions": Task.objects.filter(task_id=task_id).order_by("-created_at")[:30],
            "episodes": Episode.objects.filter(task__task_id=task_id)
            .select_related("task")
            .order_by("-created_at")[:20],
            "rate": stats.task_pass_rates([task_id]).get(task_id),
            "suites": task.suites.filter(is_current=True).order_by("name"),
            "selfcheck_runs": SelfCheckRun.objects.filter(task__task_id=task_id)[:5],
        },
    )


@role_required(Role.AUTHOR)
def task_diff(request, task_id):
    versions = Task.objects.filter(task_id=task_id)
    old = get_object_or_404(versions, pk=request.GET.get("a") or 0)
    new = get_object_or_404(versions, pk=request.GET.get("b") or 0)
    return render(
        request,
        "frontend/task_diff.html",
        {"task_id": task_id, "old": old, "new": new, "lines": version_diff(old, new)},
    )


@role_required(Role.AUTHOR)
@require_POST
def task_restore(request, task_id):
    """Restore an earlier version (the versions box's Restore button, over htmx or a plain post)."""
    try:
        task = version_restore(task_id=task_id, version_pk=int(request.POST.get("version", "")))
    except (DraftError, ValueError) as exc:
        problems = exc.errors if isinstance(exc, DraftError) else [("version", "a version number is required")]
        messages.error(request, "Not restored: " + "; ".join(message for _path, message in problems))
    else:
        messages.success(request, f"Restored {task.task_id}: version {task.version} is current again.")
    response = redirect("frontend:task", task_id=task_id)
    if request.htmx:
        response = HttpResponse(status=204, headers={"HX-Redirect": response.url})
    return response


@role_required(Role.AUTHOR)
def task_export_file(request, task_id):
    task = (
        get_object_or_404(Task, task_id=task_id, pk=request.GET.get("version"))
        if request.GET.get("version")
        else _current(task_id)
    )
    response = HttpResponse(task_export(task), content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{task.slug}.json"'
    return response


@role_required(Role.AUTHOR)
def task_import_file(request):
    if request.method != "POST":
        return render(request, "frontend/task_import.html", {})
    upload = request.FILES.get("file")
    text = upload.read().decode("utf-8", errors="replace") if upload else request.POST.get("text", "")
    try:
        task = task_import(text)
    except DraftError as exc:
        return render(request, "frontend/task_import.html", {"errors": exc.errors, "text": text}, status=422)
    messages.success(request, f"Imported {task.task_id}, version {task.version}.")
    return redirect("frontend:task", task_id=task.task_id)
