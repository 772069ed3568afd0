"""bin/start's supervisor: a program that dies is started again (a real worker included), and a stop takes every
program down.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from django.conf import settings
from django.db import connection

from episodes.models import WorkerHeartbeat
from tests.episodes.celery_workers import worker_database_url
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)])}


def _supervise(*programs: str, grace: float = 5, env=None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "replicagym.supervisor", "--grace", str(grace), *programs],
        cwd=ROOT,
        env=env or ENV,
        stderr=subprocess.PIPE,
        text=True,
    )


def _children(sup: subprocess.Popen) -> dict[str, int]:
    """The supervised `sleep N` programs by N, with their pids (a child forked but not yet the program is left out)."""
    out = {}
    for child in psutil.Process(sup.pid).children():
        try:
            argv = child.cmdline()
        except psutil.NoSuchProcess:
            continue
        if argv[:1] == ["sleep"]:
            out[argv[-1]] = child.pid
    return out


def _stop(sup: subprocess.Popen) -> str:
    sup.send_signal(signal.SIGTERM)
    _, err = sup.communicate(timeout=30)
    return err


def test_a_killed_program_is_started_again_and_a_stop_takes_every_program_down():
    sup = _supervise("a=sleep 600", "b=sleep 601")
    try:
        first = wait_until(lambda: len(c := _children(sup)) == 2 and c, 10, "the two programs to start")
        os.kill(first["600"], signal.SIGKILL)
        again = wait_until(
            lambda: (c := _children(sup)).get("600") not in (None, first["600"]) and "601" in c and c,
            10,
            "the killed program to be started again",
        )
        assert again["601"] == first["601"]  # the other one was left alone
        err = _stop(sup)
    finally:
        if sup.poll() is None:
            sup.kill()
    assert sup.returncode == 0
    assert f"a (pid {first['600']}) killed by SIGKILL; starting it again in 1 s" in err
    assert not any(
        psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        for pid in (again["600"], again["601"])
    )


def test_a_program_that_keeps_dying_is_started_again_less_and_less_often():
    sup = _supervise("dies=false")
    try:
        time.sleep(8.5)  # starts at about 0, 1, 3 and 7 s: without the growing pause, dozens
    finally:
        err = _stop(sup)
    pauses = [line.rsplit(" in ", 1)[1] for line in err.splitlines() if "starting it again" in line]
    assert pauses[:3] == ["1 s", "2 s", "4 s"] and len(pauses) <= 4, err


@pytest.mark.parametrize("args", [["web"], ["=sleep 1"], ["a=sleep 1", "a=sleep 2"], ["a='unclosed"], ["a="]])
def test_the_supervisor_refuses_a_malformed_program_list(args):
    sup = subprocess.run(
        [sys.executable, "-m", "replicagym.supervisor", *args],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert sup.returncode == 2 and "error:" in sup.stderr


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_under_bin_starts_supervisor_is_replaced_by_a_new_one_that_beats():
    connection.close()  # the workers use their own connections
    env = {
        **ENV,
        "DJANGO_SETTINGS_MODULE": "replicagym.settings",
        "DATABASE_URL": worker_database_url(),
        "REPLICAGYM_DATA_DIR": str(settings.DATA_DIR),
        "CELERY_BROKER_URL": "filesystem://",
        "REPLICAGYM_WORKER_HEARTBEAT_SECONDS": "1",
        "REPLICAGYM_WORKER_LOST_SECONDS": "2",
    }
    sup = _supervise(f"worker-1={sys.executable} manage.py worker --queue supervised", env=env)
    try:
        first = wait_until(lambda: WorkerHeartbeat.objects.first(), 90, "the worker to beat")
        os.killpg(first.pid, signal.SIGKILL)  # its whole group: what the OOM killer or a crash leaves
        second = wait_until(
            lambda: WorkerHeartbeat.objects.exclude(pid=first.pid).first(), 90, "a new worker to beat after the kill"
        )
        assert second.name != first.name and psutil.pid_exists(second.pid)
        err = _stop(sup)
    finally:
        if sup.poll() is None:
            sup.kill()
    assert "worker-1" in err and "killed by SIGKILL" in err
    assert sup.returncode == 0 and not psutil.pid_exists(second.pid)


def test_the_programs_of_a_killed_supervisor_die_with_it():
    sup = _supervise("a=sleep 600")
    child = wait_until(lambda: _children(sup).get("600"), 10, "the program to start")
    sup.kill()
    sup.wait()
    gone = wait_until(
        lambda: not psutil.pid_exists(child) or psutil.Process(child).status() == psutil.STATUS_ZOMBIE,
        10,
        "the program to die with its supervisor",
    )
    assert gone
