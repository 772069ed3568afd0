"""An in-process web server for the replicas, so the episode engine runs anywhere.

CLI commands and Celery workers have no web process next to them; the first call to
`replica_server()` starts Django on 127.0.0.1 (a free port) in a daemon thread, once
per process. `REPLICAGYM_SERVE_URL` (settings.SERVE_URL) points the engine at an
external server instead, and tests can pass pytest-django's live_server port.
"""
import logging
import os
import threading
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler, get_internal_wsgi_application
from django.db import connections

log = logging.getLogger("replicagym.episodes")

_lock = threading.Lock()
_server: "_ServerThread | None" = None
_pid: int | None = None


class _QuietHandler(WSGIRequestHandler):
    """Django's request handler without one log line per request: episodes make many."""

    def log_message(self, format, *args):  # noqa: A002 - the base class names it so
        pass


class _ServerThread(threading.Thread):
    def __init__(self):
        super().__init__(name="replica-server", daemon=True)
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self.httpd: ThreadedWSGIServer | None = None

    def run(self):
        try:
            httpd = ThreadedWSGIServer(("127.0.0.1", 0), _QuietHandler, allow_reuse_address=False)
            httpd.set_app(get_internal_wsgi_application())
            # Request threads must not outlive the process nor hold it up at exit.
            httpd.daemon_threads = True
            self.httpd = httpd
        except BaseException as exc:  # reported to the caller waiting on `ready`
            self.error = exc
            self.ready.set()
            return
        self.ready.set()
        try:
            httpd.serve_forever(poll_interval=0.5)
        finally:
            connections.close_all()

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.httpd.server_address[:2]
        return host, port


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


def replica_server() -> tuple[str, int]:
    """(host, port) where world origins are served; starts the in-process server once."""
    global _server, _pid
    if getattr(settings, "SERVE_URL", ""):
        return external_server(settings.SERVE_URL)
    with _lock:
        # A forked child (a Celery prefork worker) inherits the variable but not the thread.
        if _server is None or _pid != os.getpid() or not _server.is_alive():
            thread = _ServerThread()
            thread.start()
            thread.ready.wait()
            if thread.error is not None:
                raise RuntimeError(f"could not start the replica server: {thread.error}") from thread.error
            _server, _pid = thread, os.getpid()
            log.info("replica server listening on %s:%s", *thread.address)
        return _server.address


def replica_server_stop() -> None:
    """Stop the in-process server (tests and orderly shutdown); the next call starts a new one."""
    global _server
    with _lock:
        if _server is not None and _pid == os.getpid() and _server.httpd is not None:
            _server.httpd.shutdown()
            _server.httpd.server_close()
            _server.join(timeout=5)
        _server = None
