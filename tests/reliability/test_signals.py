"""Commands that start processes stop them on SIGTERM and SIGINT: a cancelled killtest leaves no worker or Chromium
behind.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from django.conf import settings
from django.db import connection

from episodes.models import Episode
from tests.episodes.celery_workers import worker_database_url
from tests.episodes.fixtures import sync_test_pack
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent.parent


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _alive(procs: list[psutil.Process]) -> list[str]:
    out = []
    for proc in procs:
        try:
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                out.append(f"{proc.pid} {proc.name()}")
        except psutil.NoSuchProcess:
            continue
    return out


@pytest.mark.worker
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_killtest_stops_its_workers_and_their_chromium(sig):
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
            "50",
            "--episodes",
            "20",
            "--lost-after",
            "4",
            "--seed",
            "1",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # started as a script starts a background job: SIGINT ignored unless the command handles it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "replicagym.settings",
            "DATABASE_URL": worker_database_url(),
            "REPLICAGYM_DATA_DIR": str(settings.DATA_DIR),
            "CELERY_BROKER_URL": "filesystem://",
        },
    )
    try:
        # wait until a worker runs an episode in its Chromium, so there is a browser to leave behind
        def playing() -> bool:
            assert command.poll() is None, command.stderr.read()[-3000:]
            return Episode.objects.filter(status="running").exists() and any(
                p.name().startswith("chrom") for p in _descendants(command.pid)
            )

        wait_until(playing, 180, "an episode to start in a worker's Chromium")
        children = _descendants(command.pid)  # workers, their replica servers, Playwright drivers, Chromium
        command.send_signal(sig)
        assert command.wait(timeout=60) == 128 + sig
        # a Chromium leaves a moment after its driver: gone within half a second, as before, but no fixed sleep
        wait_until(lambda: not _alive(children), 0.5, lambda: f"every process to end; alive: {_alive(children)}")
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
