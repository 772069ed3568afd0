"""The replica server the episode engine uses: gunicorn, the server production runs, in a child process.

CLI commands, Celery workers and tests have no web process next to them; the first call
to `replica_server()` starts gunicorn on 127.0.0.1 (a free port), once per process, and
returns where it listens. It runs in its own processes, so page renders never compete
with the engine's Playwright calls for this process's GIL, and it serves several
requests at once (a page and its scripts, styles and images load in parallel).

- The child serves the database this process is connected to now (a test database in
  tests: the same NAME as the current connection's settings, as `episodes.queue.local_workers` passes
  to its workers) with the same settings module, and always with DEBUG off (see `main`).
- A forked child of this process (a Celery prefork worker) starts its own server.
- The server stops with this process: at exit (atexit), and if this process dies without
  cleaning up (even SIGKILL), the server's master sees its watch pipe close and shuts down
  (its workers follow their master).
- `REPLICAGYM_SERVE_URL` (settings.SERVE_URL) points the engine at an external server instead.

`python -m episodes.engine.server` is the child's entry point (see `main`).
"""

import atexit
import http.client
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from replicagym.env import child_env

log = logging.getLogger("replicagym.episodes")

READY_TIMEOUT_S = 120  # importing Django and every replica on a loaded machine takes seconds
GRACEFUL_S = 10  # a worker ends its request and exits; on a loaded machine that can take seconds
STOP_WAIT_S = 2  # how long an engine leaving waits for that before it kills the server outright

_lock = threading.Lock()
_server: "_ServerProcess | None" = None


def server_size(cores: int | None = None) -> tuple[int, int]:
    """(processes, threads per process) of an engine's server on a machine with `cores` cores.

    One episode loads a page and its assets at once; a worker host runs about one episode
    worker per core, each with its own server. Two processes let two requests render in
    parallel; threads cover the parallel asset requests and the slow-API faults that wait.
    """
    cores = cores or os.cpu_count() or 1
    return (2 if cores >= 2 else 1), 4


class _ServerProcess:
    def __init__(self, proc: subprocess.Popen, port: int, watch_fd: int, workers: int, threads: int):
        self.proc, self.port, self.watch_fd = proc, port, watch_fd
        self.workers, self.threads = workers, threads
        self.pid = os.getpid()  # the process that owns (started) it

    @property
    def address(self) -> tuple[str, int]:
        return "127.0.0.1", self.port

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self):
        _close_fd(self.watch_fd)  # the master's watcher sees end of file and shuts down
        self.watch_fd = -1
        if self.proc.poll() is None:
            try:
                self.proc.terminate()  # graceful: workers end the request they serve, if any
                self.proc.wait(timeout=STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                # the master leads its own process group (start_new_session): it and its workers
                _kill_group(self.proc.pid)
                self.proc.wait()
                _kill_group(self.proc.pid, wait_s=STOP_WAIT_S)  # until the workers are gone too


def _kill_group(pgid: int, wait_s: float = 0.0):
    """SIGKILL a process group; with `wait_s`, again until none of it is left (or the time is up)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        if time.monotonic() >= deadline:
            return
        time.sleep(0.01)


def _close_fd(fd: int):
    if fd >= 0:
        try:
            os.close(fd)
        except OSError:
            pass


def external_server(url: str) -> tuple[str, int]:
    """(host, port) of an external replica server given as http://host:port."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ImproperlyConfigured(f"REPLICAGYM_SERVE_URL={url!r}: write http://host:port")
    try:
        port = parts.port or 80
    except ValueError:
        raise ImproperlyConfigured(f"REPLICAGYM_SERVE_URL={url!r} has a bad port") from None
    return parts.hostname, port


def _database_name() -> str:
    from django.db import connection

    return str(connection.settings_dict["NAME"])


def _wait_ready(proc: subprocess.Popen, port: int, deadline: float):
    """Until the server answers /healthz (the socket listens from the start: connections wait for a worker)."""
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the replica server exited with {proc.returncode} before serving")
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuntimeError(f"the replica server did not answer within {READY_TIMEOUT_S} s")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=min(left, 2.0))
        try:
            conn.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
            conn.getresponse().read()
            return
        except (OSError, http.client.HTTPException):
            time.sleep(0.05)
        finally:
            conn.close()


def _start() -> _ServerProcess:
    workers, threads = server_size()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    watch_read, watch_write = os.pipe()  # both ends close-on-exec; only the read end is handed over
    config = {
        "listen_fd": listener.fileno(),
        "watch_fd": watch_read,
        "workers": workers,
        "threads": threads,
        "db_name": _database_name(),
    }
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "episodes.engine.server", json.dumps(config)],
            # its output goes to our standard error: our standard output may be a protocol
            # (bench workers answer in JSON lines on theirs)
            cwd=settings.BASE_DIR,
            # it serves itself: an external server this process was pointed at is not its concern
            env=child_env(REPLICAGYM_SERVE_URL=""),
            stdin=subprocess.DEVNULL,
            stdout=2,
            pass_fds=(listener.fileno(), watch_read),
            start_new_session=True,
        )
    except BaseException:
        _close_fd(watch_write)
        raise
    finally:
        listener.close()  # the child has its copy
        _close_fd(watch_read)
    server = _ServerProcess(proc, port, watch_write, workers, threads)
    try:
        _wait_ready(proc, port, time.monotonic() + READY_TIMEOUT_S)
    except BaseException:
        server.stop()
        raise
    return server


def replica_server() -> tuple[str, int]:
    """(host, port) where world origins are served; starts this process's server once."""
    global _server
    if getattr(settings, "SERVE_URL", ""):
        return external_server(settings.SERVE_URL)
    with _lock:
        if _server is None or _server.pid != os.getpid() or not _server.alive():
            if _server is not None and _server.pid == os.getpid():
                _server.stop()  # it died: reap it before starting another
            _server = _start()
            log.info(
                "replica server (gunicorn, %s x %s threads) listening on %s:%s",
                _server.workers,
                _server.threads,
                *_server.address,
            )
        return _server.address


def replica_server_stop() -> None:
    """Stop this process's server (tests, orderly shutdown); the next call starts a new one."""
    global _server
    with _lock:
        if _server is not None and _server.pid == os.getpid():
            _server.stop()
        _server = None


def _forget_after_fork():
    # A forked child must neither use nor keep alive its parent's server: it closes its
    # copy of the watch pipe (so the parent's death still stops that server) and starts its own.
    global _server
    if _server is not None and _server.pid != os.getpid():
        _close_fd(_server.watch_fd)
        _server = None


os.register_at_fork(after_in_child=_forget_after_fork)
atexit.register(replica_server_stop)


# --- the child: gunicorn serving this project ---------------------------------------------


def _watch_parent(fd: int):
    """In gunicorn's master: a read on the watch pipe ends when the engine's process is gone."""

    def watch():
        try:
            while os.read(fd, 1):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGTERM)  # gunicorn's graceful shutdown

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def main(argv: list[str]):
    config = json.loads(argv[0])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "replicagym.settings")
    from gunicorn.app.base import BaseApplication

    # The parent's database (a test database in tests), before Django sets up.
    database = settings.DATABASES["default"]
    database["NAME"] = config["db_name"]
    # Agents' server is never a debug server, even on the embedded default (DEBUG on), and serves as
    # production does: no debug page can show an agent a traceback or the settings, no request keeps its
    # SQL, and the static files are indexed once rather than looked up on every request.
    settings.DEBUG = False
    settings.WHITENOISE_AUTOREFRESH = False
    # Connections are kept per request thread: opening a SQLite one (with its PRAGMAs) was a
    # tenth of a page's time, and a PostgreSQL one (a backend forked per connection) a third
    # of the p95 at 8 clients. PostgreSQL's live as long as the settings say (CONN_MAX_AGE);
    # tests stop this server before they drop their database (conftest.py).
    if database["ENGINE"].endswith("sqlite3"):
        database["CONN_MAX_AGE"] = None
    watch_fd = config["watch_fd"]

    class Server(BaseApplication):
        def load_config(self):
            for key, value in {
                "bind": [f"fd://{config['listen_fd']}"],
                "workers": config["workers"],
                "threads": config["threads"],
                "worker_class": "gthread",
                "preload_app": True,  # Django and the replicas load once; workers fork from it
                "graceful_timeout": GRACEFUL_S,
                "keepalive": 5,
                "loglevel": "warning",
                "accesslog": None,
                "proc_name": "replicagym-replica-server",
                "when_ready": lambda _arbiter: _watch_parent(watch_fd),
                "post_fork": lambda _arbiter, _worker: _close_fd(watch_fd),
            }.items():
                self.cfg.set(key, value)

        def load(self):
            from django.core.wsgi import get_wsgi_application

            application = get_wsgi_application()
            from django.db import connections

            connections.close_all()  # nothing opened while loading crosses the fork
            return application

    Server().run()


if __name__ == "__main__":
    main(sys.argv[1:])
