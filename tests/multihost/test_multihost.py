"""Several hosts (issue #17): `manage.py multihost` end to end, web and two workers in network namespaces joined by
veth.

Slow (minutes), so the normal suite skips it (pytest.ini: -m "not slow"); bin/test runs it
once in CI, on PostgreSQL:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/replicagym .venv/bin/pytest -m slow tests/multihost

It needs root, iproute2's `ip netns`, PostgreSQL (DATABASE_URL) and Redis on 127.0.0.1:6379,
and skips naming whichever is missing.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import psycopg
import pytest
from django.conf import settings

from episodes.queue.heartbeat import worker_identity
from ops.multihost import reachable

ROOT = Path(__file__).resolve().parent.parent.parent
TASK = "testbed.complete-note"  # five oracle steps on the platform tests' replica
EPISODES = 40
REDIS = ("127.0.0.1", 6379)

# own_database: its hosts reach DATABASE_URL themselves, without pytest-django's test database
pytestmark = [pytest.mark.slow, pytest.mark.own_database]


@pytest.fixture
def database_url():
    """The PostgreSQL database to run on (DATABASE_URL), once everything the layout needs is known to be here."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        pytest.skip(
            "multihost needs PostgreSQL: set DATABASE_URL=postgres://... (SQLite cannot be shared between hosts)"
        )
    if os.geteuid() != 0:
        pytest.skip("multihost needs root: it makes network namespaces and veth pairs")
    if shutil.which("ip") is None or subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        pytest.skip("multihost needs iproute2's `ip netns`")
    parts = urlsplit(url)
    if not reachable(parts.hostname or "127.0.0.1", parts.port or 5432):
        pytest.skip(f"no PostgreSQL on {parts.hostname}:{parts.port or 5432}")
    if not reachable(*REDIS):
        pytest.skip(f"no Redis on {REDIS[0]}:{REDIS[1]}")
    return url


def _command(database_url: str, *args: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "replicagym.settings",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": f"redis://{REDIS[0]}:{REDIS[1]}/0",
        "REPLICAGYM_DATA_DIR": str(settings.DATA_DIR),
    }
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    return subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "multihost", "--task", TASK, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _left_on_the_machine(run_id: str, db_address: str) -> list[str]:
    """Namespaces, links and processes of a multihost run still here (the processes know the forwarder's address)."""
    found = [
        f"namespace {line.split()[0]}"
        for line in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.splitlines()
        if line.startswith(run_id)
    ]
    found += [
        f"link {line}"
        for line in subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout.splitlines()
        if f" {run_id}" in line
    ]
    for proc in psutil.process_iter(["pid", "name"]):
        try:
            if f"@{db_address}/" in proc.environ().get("DATABASE_URL", ""):
                found.append(f"process {proc.info['pid']} {proc.info['name']}")
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def _recorded(database_url: str, run: int) -> list[tuple]:
    """Straight from PostgreSQL, not through the platform: each episode of the run with its steps' indexes."""
    with psycopg.connect(database_url) as conn:
        return conn.execute(
            "select e.id, e.status, e.verdict is not null, e.final_state_id is not null, e.claimed_by, e.tries,"
            " array(select s.index from episodes_step s where s.episode_id = e.id order by s.index)"
            " from episodes_episode e where e.run_id = %s order by e.id",
            (run,),
        ).fetchall()


def test_forty_episodes_on_two_worker_hosts_are_each_recorded_once(database_url):
    started = time.monotonic()
    command = _command(database_url, "--episodes", str(EPISODES), "--timeout", "400")
    try:
        out, err = command.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        command.send_signal(signal.SIGINT)  # it tears its hosts down on Ctrl-C
        out, err = command.communicate(timeout=120)
        pytest.fail(f"multihost did not finish in 600 s: {err[-3000:]}")
    assert command.returncode == 0, err[-4000:]
    summary = json.loads(out.strip().splitlines()[-1])
    sys.stderr.write(err)  # the per-step lines and the summary, for the CI log

    # the command's own checks: each recorded once, by both worker hosts, over the veths, nothing left
    assert summary["problems"] == [] and summary["leftovers"] == []
    assert summary["episodes"] == EPISODES and summary["statuses"] == {"succeeded": EPISODES}
    worker_hosts = {summary["hosts"][role].split()[0] for role in ("worker_a", "worker_b")}
    by_host = {}
    for worker, count in summary["by_worker"].items():
        host = worker_identity(worker)[0]
        by_host[host] = by_host.get(host, 0) + count
    assert set(by_host) == worker_hosts and all(by_host.values()) and sum(by_host.values()) == EPISODES
    addresses = {summary["hosts"][role].split()[1] for role in ("web", "worker_a", "worker_b")}
    for service in ("postgres", "redis"):
        assert set(summary["traffic"][service]["connections"]) == addresses, summary["traffic"]

    # and the database says the same by itself
    rows = _recorded(database_url, summary["run"])
    assert len(rows) == EPISODES and len({r[0] for r in rows}) == EPISODES
    reference = len(rows[0][6])
    for pk, status, has_verdict, has_final_state, claimed_by, tries, indexes in rows:
        assert (status, has_verdict, has_final_state) == ("succeeded", True, True), pk
        assert indexes == list(range(reference)) and reference == 5, (pk, indexes)
        assert worker_identity(claimed_by)[0] in worker_hosts and tries >= 1, (pk, claimed_by)

    db_address = summary["services"]["postgres"].split()[0]
    assert _left_on_the_machine(summary["id"], db_address) == []
    sys.stderr.write(
        f"multihost test: {EPISODES} episodes, by host {by_host}, {time.monotonic() - started:.1f} s wall\n"
    )


def test_a_run_interrupted_mid_episode_leaves_nothing_behind(database_url):
    """Ctrl-C while both workers are playing episodes: the command says so, exits non-zero and takes everything down."""
    command = _command(database_url, "--episodes", "20", "--timeout", "300")
    lines = []
    deadline = time.monotonic() + 300
    try:
        for line in command.stderr:  # the command says what it does, a line at a time
            lines.append(line)
            progress = re.search(r"\(\d+ passed, (\d+) running\)", line)
            if progress and int(progress.group(1)):
                break  # an episode is being played: Chromium, the replica servers, everything is up
            assert time.monotonic() < deadline, "".join(lines)
        else:
            pytest.fail("multihost ended before an episode ran: " + "".join(lines)[-3000:])
        command.send_signal(signal.SIGINT)
        out, err = command.communicate(timeout=120)
    finally:
        if command.poll() is None:  # a failed assertion above: still take the hosts down
            command.send_signal(signal.SIGINT)
            try:
                command.wait(timeout=120)
            except subprocess.TimeoutExpired:
                command.kill()
                command.wait()
    err = "".join(lines) + err
    assert command.returncode != 0, err[-3000:]
    assert "interrupted; the hosts are torn down" in err and "left over: nothing" in err, err[-3000:]
    run_id, db_address = re.search(r"^multihost (\S+): postgres at (\S+) ->", err, re.MULTILINE).groups()
    assert _left_on_the_machine(run_id, db_address) == []
    shutil.rmtree(Path(settings.DATA_DIR) / "multihost" / run_id)  # the hosts' logs, kept by a failed run
