"""Worker heartbeats: a process's row in WorkerHeartbeat, and the beat of the episode it runs.

The claim/sweep side (episodes.claims) tells a lost worker from a busy one by these.
"""
import logging
import os
import platform
import socket
import threading
import time
from contextlib import contextmanager

from django.conf import settings
from django.db import connection
from django.utils import timezone

from .models import Episode, WorkerHeartbeat

log = logging.getLogger("replicagym.episodes")


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def heartbeat_write(*, name: str | None = None) -> WorkerHeartbeat:
    name = name or worker_name()
    host, _, pid = name.rpartition(":")
    beat, _ = WorkerHeartbeat.objects.update_or_create(
        name=name,
        defaults={
            "hostname": host, "pid": int(pid), "system": platform.system(),
            "python": platform.python_version(), "seen_at": timezone.now(),
        },
    )
    return beat


# One heartbeat thread per worker process. It beats for the process, and for the
# episode the process is running whatever the episode is doing (an agent may think
# for minutes between steps), so a silent episode means a lost worker, nothing else.
_beat_lock = threading.Lock()
_beat = {"pid": None, "episode": None}


def heartbeat_start() -> None:
    """Start this process's heartbeat thread, once per process (a forked pool child starts its own)."""
    with _beat_lock:
        if _beat["pid"] == os.getpid():
            return
        _beat.update(pid=os.getpid(), episode=None)
        name = worker_name()
        heartbeat_write(name=name)
        threading.Thread(target=_heartbeat_loop, args=(name,), daemon=True, name="replicagym-heartbeat").start()


def _heartbeat_loop(name: str) -> None:
    while True:
        time.sleep(settings.WORKER_HEARTBEAT_SECONDS)
        try:
            connection.close_if_unusable_or_obsolete()
            heartbeat_write(name=name)
            current = _beat["episode"]
            if current is not None:
                Episode.objects.filter(pk=current, status=Episode.Status.RUNNING, claimed_by=name).update(
                    heartbeat_at=timezone.now())
        except Exception:  # a busy or restarting database: the next beat tries again
            log.warning("heartbeat of %s failed", name, exc_info=True)


@contextmanager
def episode_heartbeat(episode_id: int):
    """While the block runs, this process's heartbeat thread also beats for `episode_id`."""
    _beat["episode"] = episode_id
    try:
        yield
    finally:
        _beat["episode"] = None
