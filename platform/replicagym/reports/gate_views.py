"""The quality gate's pages: a button per suite that starts a gate on the workers, and each gate's
results as they come in (htmx polls the page until its run is over)."""

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render

from catalogue.models import Suite
from replicagym.accounts.roles import Role, role_required

from .models import QualityGate
from .quality import (
    DEFAULT_AGENT,
    DEFAULT_HIGH,
    DEFAULT_K,
    DEFAULT_LOW,
    MAX_K,
    GateError,
    gate_results,
    gate_settle,
    gate_start,
)

RECENT_GATES = 20


class GateForm(forms.Form):
    suite = forms.CharField(max_length=200)
    agent = forms.CharField(max_length=300, initial=DEFAULT_AGENT)
    k = forms.IntegerField(min_value=1, max_value=MAX_K, initial=DEFAULT_K)
    low = forms.IntegerField(min_value=0, max_value=MAX_K, initial=DEFAULT_LOW)
    high = forms.IntegerField(min_value=0, max_value=MAX_K, initial=DEFAULT_HIGH)


@role_required(Role.AUTHOR)
def gate_list(request):
    form = GateForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            try:
                gate = gate_start(**form.cleaned_data, owner=request.user)
            except GateError as exc:
                messages.error(request, str(exc))
            else:
                return redirect("reports:gate", gate_id=gate.pk)
        else:
            messages.error(request, "; ".join(f"{field}: {' '.join(errs)}" for field, errs in form.errors.items()))
    gates = list(QualityGate.objects.select_related("suite", "run").order_by("-pk")[:RECENT_GATES])
    for gate in gates:
        gate_settle(gate=gate)
    context = {
        "suites": Suite.objects.filter(is_current=True).order_by("name"),
        "gates": gates,
        "defaults": {"agent": DEFAULT_AGENT, "k": DEFAULT_K, "low": DEFAULT_LOW, "high": DEFAULT_HIGH},
    }
    return render(request, "reports/gates.html", context, status=400 if request.method == "POST" else 200)


@role_required(Role.AUTHOR)
def gate_detail(request, gate_id: int):
    gate = get_object_or_404(QualityGate.objects.select_related("suite", "run"), pk=gate_id)
    done = gate_settle(gate=gate)
    episodes = gate.run.episodes
    context = {
        "gate": gate,
        "done": done,
        "results": gate_results(gate=gate) if done else [],
        "total": episodes.count(),
        "finished": episodes.filter(status__in=episodes.model.FINAL).count(),
    }
    context["kept"] = [r for r in context["results"] if r.kept]
    template = "reports/_gate_body.html" if request.htmx else "reports/gate.html"
    return render(request, template, context)
