"""The kill test, shortened for CI: kill -9 a worker (or its Chromium) mid-episode in one run, on the embedded
default and on Redis.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from episodes.models import Episode, Run
from tests.episodes.celery_workers import REDIS_URL, redis_or_skip, worker_database_url
from tests.episodes.fixtures import sync_test_pack

ROOT = Path(__file__).resolve().parent.parent.parent
# One trial: each assertion below holds of one as of many (the kill waits for a running episode, so one
# trial already kills mid-episode and redelivers), and the first trial is the same whatever --trials says
# (seeded draws); a second took a third of each test (measured: 33 s -> 22 s, 44 -> 34 s CPU).
# `manage.py killtest` runs twenty. Four episodes on two workers: one finishes and one runs when the kill comes.
TRIALS, EPISODES = 1, 4


def _killtest(kill: str = "worker", **env) -> dict:
    sync_test_pack()
    connection.close()  # the command and its workers use their own connections
    command = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "killtest",
            "--no-sync",
            "--task",
            "testbed.open-note",
            "--trials",
            str(TRIALS),
            "--episodes",
            str(EPISODES),
            "--lost-after",
            "4",
            "--mid-episode",
            "--seed",
            "7",
            "--trial-timeout",
            "240",
            "--kill",
            kill,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "replicagym.settings",
            "DATABASE_URL": worker_database_url(),
            "REPLICAGYM_DATA_DIR": str(settings.DATA_DIR),
            **env,
        },
    )
    try:
        out, err = command.communicate(timeout=2 * 240 + 60)
    except subprocess.TimeoutExpired:
        command.terminate()  # it stops its workers on SIGTERM
        out, err = command.communicate()
        pytest.fail(f"killtest did not finish: {err[-3000:]}")
    assert command.returncode == 0, err[-3000:]
    totals = json.loads(out.strip().splitlines()[-1])
    assert totals["trials"] == totals["kills"] == totals[f"{kill}_kills"] == TRIALS and totals["failed_checks"] == 0
    assert totals["lost"] == totals["stuck"] == totals["duplicated"] == 0
    assert totals["episodes"] == totals["succeeded"] == TRIALS * EPISODES
    # each kill hit a running episode, and each such episode ran again rather than being lost or errored
    assert totals["killed_mid_episode"] >= 1 and totals["redeliveries"] >= totals["killed_mid_episode"]
    assert Run.objects.count() == TRIALS and set(Run.objects.values_list("status", flat=True)) == {"done"}
    assert not Episode.objects.filter(status__in=["queued", "running"]).exists()
    return totals


@pytest.mark.worker
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_killing_a_worker_mid_run_loses_no_episode_on_the_embedded_database_queue():
    env = {"CELERY_BROKER_URL": "filesystem://"}
    assert _killtest(**env)["broker"].startswith("embedded")


@pytest.mark.worker
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_killing_a_workers_chromium_mid_run_loses_no_episode_its_worker_retries_it():
    # each kill hit an episode, which its own worker (never lost) ran again with a new browser
    assert _killtest("browser", CELERY_BROKER_URL="filesystem://")["browser_kills"] == TRIALS


@pytest.mark.worker
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_killing_a_worker_mid_run_loses_no_episode_on_redis():
    redis_or_skip()
    assert _killtest(CELERY_BROKER_URL=REDIS_URL)["broker"] == REDIS_URL.split("@")[-1]
