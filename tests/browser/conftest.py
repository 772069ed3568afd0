"""Fixtures for the browser tests: one Chromium per test process, and a tiny page server.

The page server serves tests/browser/pages/ on 127.0.0.1; the same server reached as
`localhost` is a different origin, which is what the confinement tests need. It also
answers /api/slow?ms=N after N ms, for the settle tests.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from episodes.engine.browser import EpisodeSession, shared_browser, shutdown_browser

PAGES = Path(__file__).parent / "pages"
# A 1x1 transparent PNG.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000005000126e4d2fb0000000049454e44ae426082"
)


class _Handler(BaseHTTPRequestHandler):
    hits: list = []

    def log_message(self, *args):
        pass

    def _send(self, status, body: bytes, ctype: str):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802 - the stdlib's name
        parts = urlsplit(self.path)
        type(self).hits.append((self.headers.get("Host"), parts.path))
        if parts.path == "/api/slow":
            ms = int(parse_qs(parts.query).get("ms", ["300"])[0])
            time.sleep(ms / 1000)  # the server is slow on purpose; the engine never sleeps
            return self._send(200, json.dumps({"items": ["ORD-1", "ORD-2", "ORD-3"]}).encode(), "application/json")
        if parts.path == "/pixel.png":
            return self._send(200, PIXEL, "image/png")
        page = PAGES / parts.path.lstrip("/")
        if parts.path.endswith(".html") and page.is_file() and page.parent == PAGES:
            body = page.read_text().replace("{PORT}", str(self.server.server_address[1]))
            return self._send(200, body.encode(), "text/html; charset=utf-8")
        return self._send(404, b"not found", "text/plain")


@pytest.fixture(scope="session")
def page_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole test process, as in a worker."""
    yield shared_browser()
    shutdown_browser()


@pytest.fixture
def server_hits():
    _Handler.hits.clear()
    return _Handler.hits


@pytest.fixture
def open_session(browser, page_server):
    """Open sessions on the page server's origin; all are closed after the test."""
    sessions = []

    def open_(start="/form.html", **kwargs):
        kwargs.setdefault("instruction", "Test instruction")
        # Generous, so a loaded test machine does not photograph a half-loaded page.
        kwargs.setdefault("settle_cap_ms", 15_000)
        session = EpisodeSession.open(origin=page_server, start_url=start, **kwargs)
        sessions.append(session)
        return session

    yield open_
    for session in sessions:
        session.close()
