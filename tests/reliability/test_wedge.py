"""A worker whose thread is stuck in a browser call that never returns ends itself, so its episode is not kept alive
for ever.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from episodes.models import WorkerHeartbeat
from episodes.queue.heartbeat import WEDGED_EXIT_STATUS
from tests.episodes.celery_workers import worker_database_url

ROOT = Path(__file__).resolve().parent.parent.parent

WEDGED_WORKER = """
import time, django
django.setup()
from episodes.queue import heartbeat
heartbeat.BROWSER_WEDGED_SECONDS, heartbeat.BROWSER_GONE_SECONDS = {wedged}, {gone}
heartbeat.heartbeat_start()
with heartbeat.browser_call(starting={starting}):
    time.sleep({sleep})  # what a Playwright call left unanswered by a dead Chromium looks like from here
"""


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("wedged", "gone"),
    [(2, 999), (999, 2)],  # a call that never returns; one that waits on with no Chromium left (there is none here)
    ids=["too-long", "chromium-gone"],
)
def test_a_worker_wedged_in_a_browser_call_exits_for_its_supervisor_to_replace_it(wedged, gone):
    connection.close()
    done = _worker(wedged=wedged, gone=gone, starting=False, sleep=120)
    assert done.returncode == WEDGED_EXIT_STATUS, done.stderr[-2000:]
    assert "a browser call has not returned for" in done.stderr
    assert WorkerHeartbeat.objects.count() == 1  # it did beat while it waited, then stopped


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_call_starting_the_browser_is_not_taken_for_a_dead_chromium():
    """An episode's first page may start the replica server and Chromium: no Chromium under the process for a
    while is no wedge then, and the call returns (the gone limit is 2 s here, the call takes 5 s)."""
    connection.close()
    done = _worker(wedged=999, gone=2, starting=True, sleep=5)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "has not returned" not in done.stderr


def _worker(*, wedged, gone, starting, sleep):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        "DJANGO_SETTINGS_MODULE": "replicagym.settings",
        "DATABASE_URL": worker_database_url(),
        "REPLICAGYM_DATA_DIR": str(settings.DATA_DIR),
        "REPLICAGYM_WORKER_HEARTBEAT_SECONDS": "1",
        "REPLICAGYM_WORKER_LOST_SECONDS": "2",
    }
    return subprocess.run(
        [sys.executable, "-c", WEDGED_WORKER.format(wedged=wedged, gone=gone, starting=starting, sleep=sleep)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
