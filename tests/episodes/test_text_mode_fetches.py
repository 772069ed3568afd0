"""Without screenshots the engine fetches nothing that only the picture needs (fonts, images), in a
real Chromium, and the accessibility tree still names the image; with screenshots, all is fetched."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from episodes.engine.browser import EpisodeSession

pytestmark = pytest.mark.browser

PAGE = b"""<!doctype html><html><head><title>Pictures</title>
<style>@font-face { font-family: "Body"; src: url("/body.woff2") format("woff2"); }
body { font-family: "Body", sans-serif; }</style></head>
<body><h1>Order ORD-7</h1><img src="/logo.png?v=2" alt="Bazaaro logo" width="10" height="10">
<label for="q">Search</label><input id="q"></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 - the stdlib's name
        self.server.hits.append(self.path)
        body, ctype = (PAGE, "text/html") if self.path == "/page.html" else (b"\0" * 64, "application/octet-stream")
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.hits = []
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("screenshots", [True, False])
def test_fonts_and_images_are_fetched_only_for_screenshots(server, screenshots):
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    session = EpisodeSession.open(
        origin=origin, start_url="/page.html", instruction="x", screenshots=screenshots, settle_cap_ms=15_000
    )
    try:
        obs = session.observe()
        step = session.step('fill("#q", "lamp")')
    finally:
        session.close()
    fetched = set(server.hits)
    assert "/page.html" in fetched
    pictures = {"/logo.png?v=2", "/body.woff2"}
    assert pictures <= fetched if screenshots else not pictures & fetched
    assert "image 'Bazaaro logo'" in obs.axtree and "heading 'Order ORD-7'" in obs.axtree
    assert step.error == "" and "value='lamp'" in step.observation.axtree
    # the outline box of the action's element is drawn on the screenshot: none without one
    assert (step.target_box is not None) is screenshots
