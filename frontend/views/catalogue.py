"""The catalogue: current tasks filtered and searched, and one task's page."""

from django.core.paginator import Paginator
from django.db.models import Q
from django.shortcuts import render
from replicagym.accounts.roles import Role, role_required
from replicagym.reports.models import GateResult
from replicagym.reports.quality import latest_gates

from catalogue.models import Suite, Task
from replicas.worlds.registry import replicas

from .. import stats

PASS_RATE_BANDS = {
    "none": ("no episodes yet", None),
    "low": ("below 20%", (0, 19)),
    "mid": ("20% to 80%", (20, 80)),
    "high": ("above 80%", (81, 100)),
}

# The quality gate's verdict on a task's current version (replicagym.reports.quality), or never gated.
GATE_STATES = {**dict(GateResult.Verdict.choices), "none": "never gated"}


def _filters(request) -> dict:
    get = request.GET
    return {k: get.get(k, "").strip() for k in ("q", "replica", "suite", "tag", "difficulty", "rate", "gate")}


@role_required(Role.AUTHOR)
def task_list(request):
    f = _filters(request)
    tasks = Task.objects.filter(is_current=True)
    if f["q"]:
        tasks = tasks.filter(
            Q(title__icontains=f["q"]) | Q(task_id__icontains=f["q"]) | Q(spec__instruction__icontains=f["q"])
        )
    if f["replica"]:
        tasks = tasks.filter(replica=f["replica"])
    if f["suite"]:
        tasks = tasks.filter(suites__name=f["suite"], suites__is_current=True)
    if f["difficulty"]:
        tasks = tasks.filter(difficulty=f["difficulty"])
    tasks = list(tasks.order_by("task_id").distinct())
    # tags live in the JSON spec; SQLite has no JSON containment lookup, and the catalogue is small
    if f["tag"]:
        tasks = [t for t in tasks if f["tag"] in (t.spec.get("tags") or [])]
    rates = stats.task_pass_rates([t.task_id for t in tasks])
    gates = latest_gates(tasks)
    rows = [{"task": t, "rate": rates.get(t.task_id), "gate": gates.get(t.pk)} for t in tasks]
    if f["gate"] in GATE_STATES:
        rows = [r for r in rows if (r["gate"].verdict if r["gate"] else "none") == f["gate"]]
    if f["rate"] in PASS_RATE_BANDS:
        band = PASS_RATE_BANDS[f["rate"]][1]
        rows = [
            r
            for r in rows
            if (
                r["rate"] is None
                if band is None
                else r["rate"] is not None and band[0] <= r["rate"]["percent"] <= band[1]
            )
        ]
    page = Paginator(rows, 50).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "count": len(rows),
        "f": f,
        "replica_names": sorted(replicas()),
        "suite_names": Suite.objects.filter(is_current=True).order_by("name").values_list("name", flat=True),
        "tags": sorted(
            {
                tag
                for spec in Task.objects.filter(is_current=True).values_list("spec", flat=True)
                for tag in (spec.get("tags") or [])
            }
        ),
        "difficulties": Task.Difficulty.choices,
        "rate_bands": [(k, label) for k, (label, _) in PASS_RATE_BANDS.items()],
        "gate_states": GATE_STATES.items(),
    }
    template = "frontend/tasks_table.html" if request.htmx else "frontend/tasks.html"
    return render(request, template, context)
