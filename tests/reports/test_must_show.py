"""Issue #16's must-show, in a real Chromium: an author launches a run of the testbed suite from the UI, watches it
complete live (a real `manage.py worker` process takes the episodes), opens the report (matplotlib SVG plots that
carry the run's data), opens a failed episode in the viewer and downloads its trajectory."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from catalogue.packs import suite_current, task_sync
from episodes.engine.browser import shared_browser
from episodes.models import Episode, Run
from episodes.trajectory import trajectory_read
from replicas.worlds.registry import replicas
from tests.episodes.celery_workers import ROOT, worker_database_url

# sqlite_only: the author's path through the run pages in a browser; launching, the worker's claims, the report and
# the viewer are tested on both backends without a browser (tests/reports/test_run_lifecycle.py, test_report.py,
# test_pages.py, tests/reliability)
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]
SHOTS = ROOT / "docs" / "screenshots"
TIMEOUT = 30_000
RUN_TIMEOUT = 360_000  # four random-agent episodes on a loaded 2-core machine
# Regenerate docs/screenshots/runs-*.png only when asked, so a test run leaves the tree alone.
WRITE_SHOTS = os.environ.get("REPLICAGYM_SCREENSHOTS") == "1"


def shot(page, name, *, full_page=False, height=None):
    """Write a docs screenshot (when asked): the viewport, the whole page, or its top `height` pixels."""
    if WRITE_SHOTS:
        clip = {"x": 0, "y": 0, "width": page.viewport_size["width"], "height": height} if height else None
        page.screenshot(path=str(SHOTS / name), full_page=full_page or bool(height), clip=clip)


@pytest.fixture
def worker():
    """One `manage.py worker` process on the test database, stopped (SIGTERM, then its group killed) after the test."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        "DJANGO_SETTINGS_MODULE": "replicagym.settings",
        "DATABASE_URL": worker_database_url(),
        "REPLICAGYM_DATA_DIR": str(settings.DATA_DIR),
        "DJANGO_ALLOW_ASYNC_UNSAFE": "true",
    }
    env.pop("CELERY_BROKER_URL", None)  # the embedded default: the episode rows are the queue
    log = open(Path(settings.DATA_DIR) / "reports-must-show-worker.log", "w+")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "worker"], cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True
    )
    yield proc
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    log.close()


@pytest.fixture
def page(live_server, author_user):
    context = shared_browser().new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("author")
    page.get_by_label("Password").fill("pw-123456")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")
    yield page
    context.close()


def test_an_author_launches_a_run_watches_it_finish_reads_the_report_and_inspects_a_failed_episode(
    live_server, page, worker, tmp_path
):
    base = live_server.url
    suite_current("testbed")  # the testbed replica's pack: two tasks, quick to run
    page.goto(f"{base}/runs/new")
    page.get_by_label("Suite").select_option("testbed")
    page.get_by_label("Agent", exact=True).fill("random:5")
    page.get_by_label("Attempts").fill("2")
    page.get_by_role("button", name="Launch").click()
    page.wait_for_url(f"{base}/runs/*/")
    run = Run.objects.get()
    assert (run.agent, run.attempts, run.owner.username, run.suite.name) == ("random:5", 2, "author", "testbed")

    # live: htmx swaps the progress in as the worker takes episodes, then stops polling once the run is done
    progress = page.locator("#run-progress")
    page.locator("#run-progress[data-status='running'] [data-testid='running']").filter(has_text="1").wait_for(
        timeout=RUN_TIMEOUT
    )
    shot(page, "runs-live.png")
    page.locator("#run-progress[data-status='done']").wait_for(timeout=RUN_TIMEOUT)
    assert progress.get_by_test_id("failed").inner_text() == "4"
    assert progress.get_attribute("hx-trigger") is None  # no more polling
    # all ended, none passed (the random agent never signs in); a loaded machine may time one out
    assert Episode.objects.filter(status__in=Episode.FINAL).exclude(status="succeeded").count() == 4

    # the report: every plot is an inline matplotlib SVG whose text carries the run's tasks and numbers
    page.get_by_role("link", name="Open its report").click()
    page.wait_for_url(f"{base}/runs/{run.pk}/report")
    for name in ("pass_rate", "pass_hat_k", "signals", "time_steps"):
        svg = page.locator(f"figure[data-plot='{name}'] svg")
        assert svg.count() == 1 and svg.locator("text").count() > 5, name
    rates = page.locator("figure[data-plot='pass_rate'] svg").inner_html()
    assert "testbed.complete-note" in rates and "0/2" in rates
    assert "task_completion (mean 0.00)" in page.locator("figure[data-plot='signals'] svg").inner_html()
    assert page.get_by_test_id("pass-at-1").inner_text() == "0.000"
    shot(page, "runs-report.png", full_page=True)

    # a failed episode in the viewer: its steps, the world diff, each assertion's verdict with its detail
    page.locator("a.episode-link[data-status='failed']").first.click()
    page.wait_for_url(f"{base}/runs/episodes/*/")
    episode = Episode.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    steps = episode.steps.count()
    assert steps >= 1 and page.locator("[data-testid='timeline'] > li").count() == steps
    assert page.locator("[data-testid='timeline'] img").count() >= 1  # the page each step acted on
    failed = page.locator("[data-testid='assertions'] [data-passed='false']")
    assert failed.count() >= 1
    assert episode.verdict["assertions"][0]["detail"] in page.get_by_test_id("assertions").inner_text()
    page.get_by_test_id("world-diff").wait_for()
    assert page.get_by_test_id("target-box").count() >= 1  # clicks and fills on elements are outlined
    shot(page, "runs-viewer.png", height=1600)

    # its trajectory as JSON lines: a header, then one line per step, as the replay agent reads it
    with page.expect_download() as download:
        page.get_by_test_id("download-trajectory").click()
    path = tmp_path / "trajectory.jsonl"
    download.value.save_as(path)
    trajectory = trajectory_read(path)
    assert trajectory.header["episode"] == episode.pk and trajectory.header["status"] == "failed"
    assert trajectory.actions == list(episode.steps.order_by("index").values_list("action", flat=True))

    # the dashboard now shows the suite's latest pass rate, and the catalogue lists the suite's tasks
    page.goto(f"{base}/")
    suite_row = page.get_by_test_id("suite-testbed")
    assert f"run {run.pk} · random:5" in suite_row.inner_text() and "0% (0/4)" in suite_row.inner_text()
    assert page.get_by_test_id("replica-testbed").count() == 1
    shot(page, "platform-dashboard.png", full_page=True)
    page.goto(f"{base}/tasks/?suite=testbed")
    rows = page.get_by_test_id("task-row")
    assert rows.count() == 2 and "testbed.complete-note" in page.locator("table").inner_text()
    if WRITE_SHOTS:  # the docs' catalogue holds every installed pack, not just the two tasks this test needs
        for replica in replicas():
            task_sync(replica=replica)
        page.goto(f"{base}/tasks/")
        shot(page, "platform-catalogue.png", full_page=True)
