"""Shared by the screenshot command, the render benchmark and browser tests: an in-process
web server for the Django app, and a signed-in agent session for a world."""
import threading
from contextlib import contextmanager

from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler, get_internal_wsgi_application
from django.db import connections

from replicas.worlds.routing import world_origin
from replicas.worlds.scoping import bound_world

from ..models import User
from ..views.common import SESSION_AGENT, SESSION_TABS, SESSION_WORLD

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class names it so
        pass


@contextmanager
def wsgi_server():
    """Serve the Django app on 127.0.0.1 (a free port) in a thread; yields the port."""
    httpd = ThreadedWSGIServer(("127.0.0.1", 0), _QuietHandler, allow_reuse_address=False)
    httpd.set_app(get_internal_wsgi_application())
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()
        connections.close_all()


def agent_session(world, agent: User | None = None, tabs: list[int] | None = None) -> tuple[str | None, User | None]:
    """A session key signed in as `agent` (default: the desk's first administrator) on `world`.

    (None, None) when the world has no administrator (e.g. it was deleted).
    """
    with bound_world(world):
        if agent is None:
            agent = User.objects.filter(role=User.Role.ADMIN).order_by("public_id").first()
            if agent is None:
                return None, None
        store = SessionStore()
        store[SESSION_WORLD] = world.token
        store[SESSION_AGENT] = agent.public_id
        store[SESSION_TABS] = list(tabs or [])
        store.create()
    return store.session_key, agent


def signed_in_context(browser, world, port: int, session_key: str, *, viewport=(1280, 800)):
    """A Playwright browser context on the world's origin carrying an agent's session cookie.

    The session is made beforehand (agent_session): Playwright's sync API runs an event
    loop in this thread, inside which Django refuses ORM calls.
    """
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, device_scale_factor=1)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session_key, "url": world_origin(world, port)}])
    return context


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=settings.CHROMIUM_PATH, args=CHROMIUM_ARGS, headless=True)
