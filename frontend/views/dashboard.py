"""The dashboard: what is installed, what runs, and how the suites are doing."""

from datetime import timedelta

from django.db.models import Count, Q
from django.shortcuts import render
from django.utils import timezone
from replicagym.accounts.roles import Role, role_required

from catalogue.models import Suite, Task
from episodes.models import Episode, Run, WorkerHeartbeat
from replicas.worlds.models import World
from replicas.worlds.registry import replicas

from .. import stats

# A worker that has not reported for this long is not counted as alive.
WORKER_STALE = timedelta(minutes=2)


@role_required(Role.AUTHOR, Role.ANNOTATOR)
def dashboard(request):
    task_counts = dict(Task.objects.filter(is_current=True).values_list("replica").annotate(n=Count("id")))
    suites = list(Suite.objects.filter(is_current=True).annotate(n_tasks=Count("tasks")).order_by("name"))
    latest = stats.suite_latest_runs([s.name for s in suites])
    runs = (
        Run.objects.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING])
        .select_related("suite")
        .annotate(
            total=Count("episodes"),
            done=Count("episodes", filter=Q(episodes__status__in=Episode.FINAL)),
            passed=Count("episodes", filter=Q(episodes__status=Episode.Status.SUCCEEDED)),
        )
        .order_by("-created_at")[:20]
    )
    live = World.objects.filter(is_template=False, pooled=False)  # pooled worlds wait unseen (replicas.worlds.pool)
    return render(
        request,
        "frontend/dashboard.html",
        {
            "replicas": [
                {"config": c, "tasks": task_counts.get(c.label, 0)}
                for c in sorted(replicas().values(), key=lambda c: c.label)
            ],
            "suites": [{"suite": s, "latest": latest.get(s.name)} for s in suites],
            "runs": runs,
            "live_worlds": live.order_by("-last_used_at")[:10],
            "live_world_count": live.count(),
            "queue": stats.queue_depth(),
            "workers": WorkerHeartbeat.objects.filter(seen_at__gte=timezone.now() - WORKER_STALE).count(),
        },
    )
