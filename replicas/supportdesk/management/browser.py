"""Shared by the screenshot command, the render benchmark and browser tests: the engine's
in-process server and Chromium flags, and a signed-in agent session for a world."""
from contextlib import contextmanager

from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore

from episodes.browser import LAUNCH_ARGS
from episodes.server import replica_server, replica_server_stop
from replicas.worlds.routing import world_origin
from replicas.worlds.scoping import bound_world

from ..models import User
from ..views.common import SESSION_AGENT, SESSION_TABS, SESSION_WORLD


@contextmanager
def wsgi_server():
    """The engine's in-process replica server for the duration of a command; yields its port."""
    _, port = replica_server()
    try:
        yield port
    finally:
        replica_server_stop()


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
    return playwright.chromium.launch(executable_path=settings.CHROMIUM_PATH, args=LAUNCH_ARGS, headless=True)
