"""`manage.py screenshots REPLICA [--seed 7] [--variant default] [--out docs/screenshots]`: the docs' pictures.

One way for every replica: a fresh world, the engine's replica server, Debian Chromium with the engine's
flags and the Liberation fonts, so every machine gets the same pixels. What to capture is the replica's
`screenshot_tour` hook (replicas.worlds.registry); this command owns the world, the server and the browser.

A platform page with a tour of its own is named instead of a replica (PLATFORM_TOURS): its tour makes what
the page shows (an episode played, a user to sign in as) and returns shoot(camera), the camera on the
platform's origin of the same server.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.utils.module_loading import import_string

from episodes.engine.browser import LAUNCH_ARGS
from episodes.engine.server import replica_server, replica_server_stop
from replicas.worlds.cli import ReplicaGymCommand
from replicas.worlds.registry import get_replica, replicas
from replicas.worlds.routing import world_origin
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete

OUT = Path(settings.BASE_DIR) / "docs" / "screenshots"
# platform pages' tours, by the name the command takes: () -> shoot(camera)
PLATFORM_TOURS = {
    "workspace-viewer": "replicagym.reports.screenshots.tour",  # a cross-app episode in the episode viewer
}


class Camera:
    """What a tour drives: signed-in pages on the world's origin, and shots written to the output folder."""

    def __init__(self, browser, origin: str, out: Path, write):
        self.browser, self.origin, self.out, self.write = browser, origin, out, write

    def page(self, session_key: str | None = None, *, width: int = 1280, height: int = 800):
        """A page of a new browser context at width x height, signed in with `session_key` when given."""
        context = self.browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
        if session_key:
            context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session_key, "url": self.origin}])
        return context.new_page()

    def goto(self, page, path: str) -> None:
        page.goto(self.origin + path, wait_until="networkidle")

    def shot(self, page, name: str, path: str | None = None) -> None:
        """Open `path` first when given, then write `name` (a .png file name) once the fonts are ready."""
        if path is not None:
            self.goto(page, path)
        page.evaluate("document.fonts.ready")
        page.screenshot(path=str(self.out / name))
        self.write(f"wrote {self.out / name}  {page.url[len(self.origin) :]}")


class Command(ReplicaGymCommand):
    help = "Regenerate a replica's screenshots in docs/screenshots/ from a fresh world (the replica's screenshot tour)."

    user_errors = (LookupError,)

    def add_arguments(self, parser):
        parser.add_argument(
            "replica", help=f"a replica with a screenshot tour, or a platform tour: {', '.join(PLATFORM_TOURS)}"
        )
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--variant", default="default")
        parser.add_argument("--out", default=str(OUT))

    def handle(self, *args, replica, seed, variant, out, **options):
        from playwright.sync_api import sync_playwright

        if replica in PLATFORM_TOURS:
            return self.platform_tour(replica, Path(out))
        if replica not in replicas():
            raise CommandError(f"unknown replica {replica!r} (installed: {', '.join(sorted(replicas()))})")
        config = get_replica(replica)
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        world = world_create(replica=replica, seed=seed, variant=variant)
        try:
            with bound_world(world):
                shoot = config.screenshot_tour(world)
            if shoot is None:
                raise CommandError(f"{replica} has no screenshot tour (ReplicaConfig.screenshot_tour)")
            _, port = replica_server()
            try:
                with sync_playwright() as pw:
                    browser = pw.chromium.launch(executable_path=settings.CHROMIUM_PATH, args=LAUNCH_ARGS)
                    try:
                        shoot(Camera(browser, world_origin(world, port), out, self.stdout.write))
                    finally:
                        browser.close()
            finally:
                replica_server_stop()
        finally:
            world_delete(world=world)

    def platform_tour(self, name: str, out: Path) -> None:
        from playwright.sync_api import sync_playwright

        out.mkdir(parents=True, exist_ok=True)
        try:
            shoot = import_string(PLATFORM_TOURS[name])()
            host, port = replica_server()
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=settings.CHROMIUM_PATH, args=LAUNCH_ARGS)
                try:
                    shoot(Camera(browser, f"http://{host}:{port}", out, self.stdout.write))
                finally:
                    browser.close()
        finally:
            replica_server_stop()
