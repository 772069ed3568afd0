"""The catalogue shows each task version's latest quality-gate verdict and filters by it."""

import pytest
from django.utils import timezone
from replicagym.reports.models import GateResult, QualityGate

from catalogue.models import Suite, Task
from episodes.models import Run
from tests.episodes.fixtures import sync_test_pack

pytestmark = pytest.mark.django_db


def gate(suite, results, finished=True):
    run = Run.objects.create(suite=suite, agent="noisy-oracle", attempts=5)
    g = QualityGate.objects.create(
        suite=suite, run=run, agent="noisy-oracle", k=5, low=2, high=4, finished_at=timezone.now() if finished else None
    )
    for task, passes, verdict in results:
        GateResult.objects.create(gate=g, task=task, passes=passes, attempts=5, verdict=verdict)
    return g


def test_catalogue_shows_the_latest_finished_gate_and_filters_by_it(client, author_user):
    client.force_login(author_user)
    sync_test_pack()
    suite = Suite.objects.filter(is_current=True).first()
    kept, easy = list(Task.objects.filter(is_current=True).order_by("task_id"))[:2]
    gate(suite, [(kept, 5, GateResult.Verdict.TOO_EASY), (easy, 5, GateResult.Verdict.TOO_EASY)])
    gate(suite, [(kept, 3, GateResult.Verdict.KEPT)])  # the later gate wins for `kept`
    gate(suite, [(easy, 3, GateResult.Verdict.KEPT)], finished=False)  # a gate still running counts for nothing

    html = client.get("/tasks/").content.decode()
    assert "Kept 3/5" in html and "Too easy 5/5" in html
    only_kept = client.get("/tasks/", {"gate": "kept"}).content.decode()
    assert kept.task_id in only_kept and easy.task_id not in only_kept
    too_easy = client.get("/tasks/", {"gate": "too_easy"}).content.decode()
    assert easy.task_id in too_easy and kept.task_id not in too_easy
    never = client.get("/tasks/", {"gate": "none"}).content.decode()
    assert kept.task_id not in never and easy.task_id not in never
