"""Worker heartbeats: a process's row in WorkerHeartbeat, and the beat of the episode it runs.

The claim/sweep side (episodes.queue.claims) tells a lost worker from a busy one by these.
"""

import logging
import os
import platform
import secrets
import socket
import threading
import time
from contextlib import contextmanager

import psutil
from django.conf import settings
from django.db import connection
from django.utils import timezone

from episodes.models import Episode, WorkerHeartbeat

log = logging.getLogger("replicagym.episodes")


# A process's random instance id, drawn again in a forked child. Host and PID alone do not
# tell processes apart: a worker restarted in a container (or after PIDs wrap) may get its
# dead predecessor's PID, and its heartbeat would then keep the dead one's episode "alive"
# until ABANDONED_AFTER instead of WORKER_LOST_SECONDS.
_instance = {"pid": None, "id": ""}


def worker_name() -> str:
    """This process's identity in heartbeats and claims: hostname:pid:instance."""
    pid = os.getpid()
    if _instance["pid"] != pid:
        _instance.update(pid=pid, id=secrets.token_hex(4))
    return f"{socket.gethostname()}:{pid}:{_instance['id']}"


def worker_identity(name: str) -> tuple[str, int | None]:
    """(hostname, pid) of a worker name; pid None for a name no worker process wrote (an API or gym claim)."""
    host, _, rest = name.partition(":")
    pid = rest.partition(":")[0]
    return host, int(pid) if pid.isdigit() else None


def heartbeat_write(*, name: str | None = None) -> WorkerHeartbeat:
    name = name or worker_name()
    host, pid = worker_identity(name)
    beat, _ = WorkerHeartbeat.objects.update_or_create(
        name=name,
        defaults={
            "hostname": host,
            "pid": pid or 0,
            "system": platform.system(),
            "python": platform.python_version(),
            "seen_at": timezone.now(),
        },
    )
    return beat


# One heartbeat thread per worker process. It beats for the process, and for the
# episode the process is running whatever the episode is doing (an agent may think
# for minutes between steps), so a silent episode means a lost worker, nothing else.
_beat_lock = threading.Lock()
# "episode" and "tries" name the claim it beats for: a claim is fenced by its try number;
# "browser_since" is when the browser call at hand began (None between calls)
_beat = {"pid": None, "episode": None, "tries": None, "browser_since": None, "browser_starting": False}

# A browser call that has not returned in this long never will: Playwright leaves some
# commands sent to a Chromium that died at that moment unanswered for good. Every call the
# engine makes is bounded far below this (navigation 10 s, settle 3 s, a capture 30 s).
BROWSER_WEDGED_SECONDS = 120
# Playwright reports a browser that died within a second or so when it reports it at all:
# a call still waiting this long with no Chromium left under the process is wedged too.
BROWSER_GONE_SECONDS = 15
WEDGED_EXIT_STATUS = 75  # EX_TEMPFAIL: what restarts the worker (bin/start's supervisor, Celery's pool) should


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
        waited = browser_wedged()
        if waited is not None:
            # The worker's thread is stuck in the browser and this thread would keep its episode
            # alive for ever: the process ends, its episode is swept as a lost worker's, and
            # whatever supervises the worker starts a fresh one.
            log.critical("%s: a browser call has not returned for %.0f s; exiting", name, waited)
            os._exit(WEDGED_EXIT_STATUS)
        try:
            connection.close_if_unusable_or_obsolete()
            heartbeat_beat(name=name)
        except Exception:  # a busy or restarting database: the next beat tries again
            log.warning("heartbeat of %s failed", name, exc_info=True)


def browser_wedged() -> float | None:
    """How long the browser call at hand has waited, if it will never return (it waited too long, or long with
    its Chromium gone); None otherwise."""
    since = _beat["browser_since"]
    if since is None:
        return None
    waited = time.monotonic() - since
    if waited > BROWSER_WEDGED_SECONDS:
        return waited
    # a call that may be starting the replica server and Chromium has none under it yet for a while on a
    # loaded machine: only the long limit applies to it
    if not _beat["browser_starting"] and waited > BROWSER_GONE_SECONDS and not chromium_processes(os.getpid()):
        return waited
    return None


def heartbeat_beat(*, name: str) -> bool:
    """One beat: the process's row, and its episode's while the episode runs under this process's claim; True if it
    beat for one.
    """
    heartbeat_write(name=name)
    current, tries = _beat["episode"], _beat["tries"]
    if current is None:
        return False
    # fenced by the claim: an episode swept away and claimed again (by anyone) is not kept alive by this beat
    return bool(
        Episode.objects.filter(pk=current, status=Episode.Status.RUNNING, claimed_by=name, tries=tries).update(
            heartbeat_at=timezone.now()
        )
    )


@contextmanager
def episode_heartbeat(episode_id: int, tries: int):
    """While the block runs, this process's heartbeat thread also beats for try `tries` of `episode_id`."""
    _beat.update(episode=episode_id, tries=tries)
    try:
        yield
    finally:
        _beat.update(episode=None, tries=None)


@contextmanager
def browser_call(*, starting: bool = False):
    """Marks a call into the browser, which the heartbeat thread (where there is one) watches for a wedge.

    `starting`: the call may start the replica server and Chromium (an episode's first page), so no Chromium
    under the process is no sign of a dead one yet: at load 25 on 2 cores, starting them took over 15 s.
    """
    _beat["browser_since"], _beat["browser_starting"] = time.monotonic(), starting
    try:
        yield
    finally:
        _beat["browser_since"], _beat["browser_starting"] = None, False


def heartbeat_follow(*, episode_id: int, tries: int) -> None:
    """The episode this process beats for was claimed again in place (retried after a browser crash): beat for the
    new try.
    """
    if _beat["episode"] == episode_id:
        _beat["tries"] = tries


def chromium_processes(pid: int) -> list[psutil.Process]:
    """The Chromium processes under process `pid` (a worker: its browser, renderers, GPU and zygote processes)."""
    try:
        below = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for proc in below:
        try:
            if proc.name().startswith(("chrom", "headless_shell")):
                found.append(proc)
        except psutil.NoSuchProcess:  # it ended while we looked (a renderer closing)
            continue
    return found
