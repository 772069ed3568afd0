"""Shared by the screenshot command, the render benchmark and browser tests: the engine's
replica server and Chromium flags, and a browser context carrying an agent's session."""

from contextlib import contextmanager

from django.conf import settings

from episodes.browser import LAUNCH_ARGS
from episodes.server import replica_server, replica_server_stop
from replicas.worlds.routing import world_origin


@contextmanager
def wsgi_server():
    """The engine's replica server (a gunicorn child) for the duration of a command; yields its port."""
    _, port = replica_server()
    try:
        yield port
    finally:
        replica_server_stop()


def signed_in_context(browser, world, port: int, session_key: str, *, viewport=(1280, 800)):
    """A Playwright browser context on the world's origin carrying an agent's session cookie.

    The session is made beforehand (agent_session): Playwright's sync API runs an event
    loop in this thread, inside which Django refuses ORM calls.
    """
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, device_scale_factor=1)
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session_key, "url": world_origin(world, port)}]
    )
    return context


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=settings.CHROMIUM_PATH, args=LAUNCH_ARGS, headless=True)
