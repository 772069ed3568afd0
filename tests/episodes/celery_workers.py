"""Start real Celery worker processes on the test database and a dedicated Redis db and queue."""

import os
import signal
import socket
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings
from django.db import connection
from replicagym.env import database_url as worker_database_url  # the test database, for worker processes

from ops.fleet import celery_worker_argv

ROOT = Path(__file__).resolve().parent.parent.parent
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379
# a db number of its own so tests never see the platform's queues
REDIS_URL = f"redis://{REDIS_HOST}:{REDIS_PORT}/13"


def redis_or_skip():
    try:
        socket.create_connection((REDIS_HOST, REDIS_PORT), timeout=1).close()
    except OSError:
        pytest.skip(f"no Redis on {REDIS_HOST}:{REDIS_PORT}")


def kill_workers(app):
    """SIGKILL each worker's whole process group (main process, pool children, Chromium): a crash, not a shutdown."""
    for proc in app.worker_procs:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextmanager
def celery_workers(count: int = 1, *, concurrency: int = 1):
    """Yield (app, queue) with `count` worker processes consuming a fresh queue; stop them after."""
    redis_or_skip()
    connection.close()  # the workers open their own connections; ours reopens on demand
    queue = f"replicagym-test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        "DJANGO_SETTINGS_MODULE": "replicagym.settings",
        "DATABASE_URL": worker_database_url(),
        "CELERY_BROKER_URL": REDIS_URL,
        "REPLICAGYM_DATA_DIR": str(settings.DATA_DIR),
        "DJANGO_ALLOW_ASYNC_UNSAFE": "true",
    }
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    procs = []
    logs = []
    for i in range(count):
        log = open(Path(settings.DATA_DIR) / f"{queue}-{i}.log", "w+")  # noqa: SIM115 - closed below
        logs.append(log)
        procs.append(
            subprocess.Popen(
                celery_worker_argv(node=f"w{i}-{queue}@%h", queue=queue, concurrency=concurrency),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: a test can kill the worker with its pool and browser
            )
        )
    app = Celery("replicagym-test", broker=REDIS_URL)
    app.conf.task_default_queue = queue
    app.worker_procs = procs
    try:
        yield app, queue
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in logs:
            log.seek(0)
            text = log.read()
            if "Traceback" in text:
                sys.stderr.write(text[-4000:])
            log.close()
            os.unlink(log.name)
        app.close()
