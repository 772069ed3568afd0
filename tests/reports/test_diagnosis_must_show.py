"""Must show: `diagnose` on a run of the random agent and on a run of the noisy oracle ranks different
weaknesses; the command prints the ranking and the page shows it (real episodes, real Chromium)."""

import pytest
from django.core.management import call_command
from replicagym.reports.diagnosis import ELEMENT_NOT_FOUND, GAVE_UP, STEP_LIMIT, diagnose

from catalogue.packs import task_sync
from episodes.models import Episode
from episodes.queue.local_workers import run_one
from episodes.runs import run_create, run_episodes_create

# sqlite_only: real episodes of two agents in a browser; the diagnosis's queries and its page are tested on both
# backends without a browser (tests/reports/test_diagnosis_patterns.py)
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]


def run_in_process(*, agent: str, attempts: int):
    run = run_create(suite="testbed", agent=agent, attempts=attempts)
    for episode in run_episodes_create(run_id=run.pk, enqueue=False):
        run_one(episode.pk)
    return run


@pytest.fixture
def runs(transactional_db):
    task_sync(replica="testbed")
    return run_in_process(agent="random:5", attempts=1), run_in_process(agent="noisy-oracle:0.4", attempts=4)


def test_the_random_agent_and_the_noisy_oracle_fail_for_different_reasons(runs, capsys, client, author_user):
    random_run, noisy_run = runs
    wandering, careless = diagnose(run_ids=[random_run.pk]), diagnose(run_ids=[noisy_run.pk])
    assert wandering.failures == 2  # the random agent solves neither testbed task
    assert 1 <= careless.failures < 8  # the noisy oracle solves some attempts, not all
    # the random agent never stops: it runs out of steps; the noisy oracle stops short or loses its way
    assert wandering.weaknesses[0].label == STEP_LIMIT and wandering.weaknesses[0].share == 1.0
    assert careless.weaknesses[0].label in (GAVE_UP, ELEMENT_NOT_FOUND)
    assert STEP_LIMIT not in {w.label for w in careless.weaknesses}
    ranked = lambda d: [w.label for w in d.weaknesses]  # noqa: E731
    assert ranked(wandering) != ranked(careless)
    for found, run in ((wandering, random_run), (careless, noisy_run)):
        failed = set(Episode.objects.filter(run=run).exclude(status="succeeded").values_list("pk", flat=True))
        for w in found.weaknesses:
            assert set(w.episodes) <= failed and w.share == pytest.approx(w.count / found.failures)
            assert w.examples == w.episodes[: len(w.examples)]

    call_command("diagnose", str(random_run.pk))
    out = capsys.readouterr().out
    assert f"runs {random_run.pk}: 2 of 2 episodes failed" in out
    assert "  1. 100.0%  error kind: step limit" in out

    client.force_login(author_user)
    page = client.get(f"/runs/diagnose?runs={random_run.pk},{noisy_run.pk}")
    assert page.status_code == 200
    both = diagnose(run_ids=[random_run.pk, noisy_run.pk])
    html = page.content.decode()
    assert both.weaknesses[0].label in html and f"/runs/episodes/{both.weaknesses[0].examples[0]}/" in html
    # each run's own ranking side by side: the step limit tops the random agent's only
    per_run = html.split('data-testid="per-run"')[1].split("Weaknesses, most failures first")[0]
    random_box, noisy_box = per_run.split(f"run {noisy_run.pk}")
    assert "1.</span>step limit" in random_box and "1.</span>step limit" not in noisy_box
