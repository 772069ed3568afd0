"""Regenerates the issue board's screenshots docs/screenshots/board-*.png from a fresh world.

Runs the app in the engine's in-process server, signs the first administrator in with a
session cookie, and captures the scrum board, the backlog, an issue, a search, the kanban
board, the issue side panel, the board grouped by epic and the saved filters with Debian
Chromium at 1440x900, so every machine gets the same pixels.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from episodes.browser import LAUNCH_ARGS
from episodes.server import replica_server, replica_server_stop
from replicas.worlds.registry import get_replica
from replicas.worlds.routing import world_origin, world_url
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete

from ...models import Issue

OUT = Path(settings.BASE_DIR) / "docs" / "screenshots"
JQL = 'project = AGENT AND status in ("To Do", "In Progress") AND sprint in openSprints() ORDER BY priority DESC'


class Command(BaseCommand):
    help = "Regenerate docs/screenshots/board-*.png (scrum and kanban boards, swimlanes, side panel, backlog, issue view, search, filters)."

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--variant", default="default")
        parser.add_argument("--out", default=str(OUT))

    def handle(self, *args, seed, variant, out, **options):
        from urllib.parse import quote

        from playwright.sync_api import sync_playwright

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        world = world_create(replica="board", seed=seed, variant=variant)
        try:
            with bound_world(world):
                # a story of the active sprint with sub-tasks, links and comments shows the most of the issue view
                issue = max(
                    Issue.objects.filter(sprint__state="active", project__key="AGENT", issue_type="story").order_by(
                        "number"
                    ),
                    key=lambda i: (
                        i.subtasks.count() + i.outward_links.count() + i.inward_links.count(),
                        i.comments.count(),
                    ),
                )
            user = get_replica("board").sign_in(world)
            _, port = replica_server()
            try:
                with sync_playwright() as pw:
                    browser = pw.chromium.launch(
                        executable_path=settings.CHROMIUM_PATH, args=LAUNCH_ARGS, headless=True
                    )
                    context = browser.new_context(viewport={"width": 1440, "height": 900}, device_scale_factor=1)
                    context.add_cookies(
                        [
                            {
                                "name": settings.SESSION_COOKIE_NAME,
                                "value": user.session_key,
                                "url": world_origin(world, port),
                            }
                        ]
                    )
                    page = context.new_page()
                    shots = [
                        ("board-scrum-board.png", "/projects/AGENT/board"),
                        ("board-backlog.png", "/projects/AGENT/backlog"),
                        ("board-issue-view.png", f"/browse/{issue.key}"),
                        ("board-search.png", f"/issues?jql={quote(JQL)}"),
                        ("board-kanban.png", "/projects/OPS/board"),
                        ("board-side-panel.png", f"/projects/AGENT/board?selectedIssue={issue.key}"),
                        ("board-filters.png", "/filters"),
                        ("board-swimlanes-epic.png", "/projects/AGENT/board"),
                    ]
                    for name, path in shots:
                        page.goto(world_url(world, path, port=port), wait_until="networkidle")
                        if name == "board-swimlanes-epic.png":  # through the board's own Group by menu
                            with page.expect_navigation(wait_until="networkidle"):
                                page.select_option("#group-by", "epic")
                        page.evaluate("document.fonts.ready")
                        page.screenshot(path=str(out / name))
                        self.stdout.write(f"wrote {out / name}")
                    browser.close()
            finally:
                replica_server_stop()
        finally:
            world_delete(world=world)
