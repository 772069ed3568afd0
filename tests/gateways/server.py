"""Serve an ASGI app with uvicorn in a thread of the test process (so it sees the test database)."""

import socket
import threading
from contextlib import contextmanager

import uvicorn

from tests.waiting import wait_until


@contextmanager
def asgi_server(app):
    """Yield the base URL (http://127.0.0.1:PORT) of `app` served on a free port; stop it after."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="websockets-sansio", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()

    def started() -> bool:
        assert thread.is_alive(), "the ASGI server's thread ended before it started"
        return server.started

    wait_until(started, 30, "the ASGI server to start", interval=0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        sock.close()
