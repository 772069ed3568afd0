"""An OpenAI-compatible chat endpoint on the loopback, for tests of code that may ask a model (simulated people,
instruction paraphrases): it answers `answer` and records every request."""

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer


class ChatModelStub:
    def __init__(self, answer: str = ""):
        self.answer = answer
        self.seen: list[tuple[str, dict, dict]] = []  # (path, headers, request body)
        self.url = ""


@contextlib.contextmanager
def chat_model_stub(answer: str = ""):
    """A running stub at `stub.url` (ending in /v1); set `stub.answer` to change what it says next."""
    stub = ChatModelStub(answer)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the http.server API)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            stub.seen.append((self.path, dict(self.headers), body))
            data = json.dumps({"choices": [{"message": {"role": "assistant", "content": stub.answer}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stub.url = f"http://127.0.0.1:{server.server_port}/v1"
    try:
        yield stub
    finally:
        server.shutdown()
        thread.join(timeout=5)
        server.server_close()
