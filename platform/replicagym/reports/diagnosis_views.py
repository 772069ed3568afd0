"""The diagnosis page, /runs/diagnose?runs=1,2: the ranked weaknesses of one run or several (staff only:
it names the verifier's assertions, which agents must never see)."""

from django.shortcuts import render

from episodes.models import Run
from replicagym.accounts.roles import Role, role_required

from .diagnosis import DIMENSIONS, DiagnosisError, diagnose, parse_run_ids

RECENT_RUNS = 20
PER_RUN_TOP = 5  # weaknesses shown per run when several are compared


@role_required(Role.AUTHOR)
def diagnosis_page(request):
    text = request.GET.get("runs", "").strip()
    context = {"runs_text": text, "recent": Run.objects.select_related("suite").order_by("-pk")[:RECENT_RUNS]}
    status = 200
    if text:
        try:
            found = diagnose(run_ids=parse_run_ids(text))
        except DiagnosisError as exc:
            context["error"], status = str(exc), 400
        else:
            context["diagnosis"] = found
            context["runs"] = Run.objects.filter(pk__in=found.runs).select_related("suite").order_by("pk")
            context["by_dimension"] = [(d, found.by(d)) for d in DIMENSIONS]
            if len(found.runs) > 1:  # side by side: do the runs (agents) fail for the same reasons?
                context["per_run"] = [
                    (run, diagnose(run_ids=[run.pk]).weaknesses[:PER_RUN_TOP]) for run in context["runs"]
                ]
    return render(request, "reports/diagnosis.html", context, status=status)
