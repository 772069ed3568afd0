"""Run pages: the list, launching, following live (htmx polling), cancelling, the report and its downloads, comparing.

For staff (authors and admins): reports and episodes show verdict details that agents
must never see; agents follow their runs through the API instead.
"""

import json

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from episodes.models import Episode, Run
from episodes.runs import RunError, run_cancel, run_launch, run_progress
from replicagym.accounts.roles import Role, role_required

from .forms import AGENT_SUGGESTIONS, RunForm
from .metrics import REWARD_KEYS
from .plots import pass_rate_deltas, report_plots
from .report import reports_compare, run_episodes, run_report

RUNS_PER_PAGE = 50
# The live page polls every 2 s: it lists the running episodes and the first ones of the rest, not thousands.
LIVE_EPISODES = 100


def _run(run_id) -> Run:
    return get_object_or_404(Run.objects.select_related("suite", "owner"), pk=run_id)


@role_required(Role.AUTHOR)
@require_GET
def run_list(request):
    runs = (
        Run.objects.select_related("suite", "owner")
        .order_by("-pk")
        .annotate(
            total=Count("episodes"), passed=Count("episodes", filter=Q(episodes__status=Episode.Status.SUCCEEDED))
        )[:RUNS_PER_PAGE]
    )
    ended = Run.objects.filter(status__in=Run.ENDED).order_by("-pk").values_list("pk", "agent")[:RUNS_PER_PAGE]
    return render(request, "reports/run_list.html", {"runs": runs, "ended": ended})


@role_required(Role.AUTHOR)
@require_http_methods(["GET", "POST"])
def run_new(request):
    form = RunForm(request.POST or None, initial={"suite": request.GET.get("suite", "")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = run_launch(
                suite=data["suite"] or None,
                task_filter=data["task_filter"],
                agent=data["agent"],
                agent_settings=data["agent_settings"],
                attempts=data["attempts"],
                faults=data["faults"],
                priority=data["priority"],
                owner=request.user,
            )
        except RunError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Run {run.pk} launched: {run.episodes.count()} episodes queued.")
            return redirect("reports:run", run_id=run.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "reports/run_new.html", {"form": form, "suggestions": AGENT_SUGGESTIONS}, status=status)


@role_required(Role.AUTHOR)
@require_GET
def run_detail(request, run_id):
    """The live page; an htmx poll gets only the progress fragment, which stops polling once the run has ended."""
    run = _run(run_id)
    episodes = run_episodes(run)
    running = list(episodes.filter(status=Episode.Status.RUNNING)[:LIVE_EPISODES])
    rest = list(episodes.exclude(status=Episode.Status.RUNNING)[: LIVE_EPISODES - len(running)])
    progress = run_progress(run)
    context = {
        "run": run,
        "progress": progress,
        "episodes": running + rest,
        "episodes_hidden": progress["total"] - len(running) - len(rest),
    }
    if request.htmx:
        return render(request, "reports/_progress.html", context)
    return render(request, "reports/run_detail.html", context)


@role_required(Role.AUTHOR)
@require_POST
def run_cancel_view(request, run_id):
    run = _run(run_id)
    try:
        run = run_cancel(run_id=run.pk)
    except RunError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request, f"Run {run.pk} cancelled: queued episodes will not start, running ones stop at their next step."
        )
    return redirect("reports:run", run_id=run.pk)


def _report_context(run: Run) -> dict:
    report = run_report(run=run)
    ks = list(report["totals"]["pass_hat_k"])
    return {"run": run, "report": report, "plots": report_plots(report), "signals": REWARD_KEYS, "ks": ks}


@role_required(Role.AUTHOR)
@require_GET
def run_report_page(request, run_id):
    return render(request, "reports/run_report.html", _report_context(_run(run_id)))


@role_required(Role.AUTHOR)
@require_GET
def run_report_json(request, run_id):
    run = _run(run_id)
    response = JsonResponse(run_report(run=run), json_dumps_params={"indent": 2, "sort_keys": True})
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-report.json"'
    return response


@role_required(Role.AUTHOR)
@require_GET
def run_report_html(request, run_id):
    """The report as one HTML file: its styles inline and its plots inline SVG, nothing fetched when opened."""
    run = _run(run_id)
    # links to episodes point back at this server: the file itself works offline, its links need the platform
    context = {**_report_context(run), "link_base": request.build_absolute_uri("/").rstrip("/")}
    html = render_to_string("reports/report_download.html", context, request=request)
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-report.html"'
    return response


def _run_id_param(request, name: str) -> tuple[int | None, str]:
    text = request.GET.get(name, "").strip()
    if not text:
        return None, ""
    if not text.isdigit():
        return None, f"run {name.upper()}: {text!r} is not a run id"
    return int(text), ""


@role_required(Role.AUTHOR)
@require_GET
def run_compare(request):
    """Run B against run A: flipped tasks and signal deltas (?a=ID&b=ID)."""
    (a_id, a_err), (b_id, b_err) = _run_id_param(request, "a"), _run_id_param(request, "b")
    errors = [e for e in (a_err, b_err) if e]
    comparison = plot = None
    runs = {}
    if a_id is not None and b_id is not None and not errors:
        found = {r.pk: r for r in Run.objects.select_related("suite").filter(pk__in=[a_id, b_id])}
        errors = [f"no run {pk}" for pk in (a_id, b_id) if pk not in found]
        if a_id == b_id:
            errors.append("choose two different runs")
        if not errors:
            runs = {"a": found[a_id], "b": found[b_id]}
            comparison = reports_compare(run_report(run=runs["a"]), run_report(run=runs["b"]))
            plot = pass_rate_deltas(comparison)
    choices = Run.objects.select_related("suite").order_by("-pk")[:RUNS_PER_PAGE]
    status = 400 if errors else 200
    return render(
        request,
        "reports/compare.html",
        {
            "comparison": comparison,
            "plot": plot,
            "runs": runs,
            "errors": errors,
            "choices": choices,
            "a": a_id,
            "b": b_id,
            "signals": REWARD_KEYS,
            "comparison_json": json.dumps(comparison, indent=2) if comparison else "",
        },
        status=status,
    )
