"""Regenerates the support desk's screenshots in docs/screenshots/ from a fresh world.

Runs the app in-process, signs an agent in with a session cookie, and captures the
main pages with Debian Chromium at 1280x800, so every machine gets the same pixels.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from replicas.worlds.routing import world_url
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete

from ...models import Comment, Ticket
from ...signin import agent_session
from ..browser import launch_chromium, signed_in_context, wsgi_server

OUT = Path(settings.BASE_DIR) / "docs" / "screenshots"


def _showcase_ticket():
    """An open ticket whose conversation has an internal note and whose requester has orders, if any."""
    noted = Comment.objects.filter(public=False, ticket__status__in=["open", "pending"]).values_list(
        "ticket", flat=True
    )
    candidates = Ticket.objects.filter(pk__in=noted).order_by("public_id")
    if hasattr(candidates.model.requester.field.related_model, "orders"):
        with_orders = candidates.filter(requester__orders__isnull=False).distinct()
        if with_orders.exists():
            candidates = with_orders
    return candidates.first()


class Command(BaseCommand):
    help = "Regenerate docs/screenshots/*.png (views list, ticket page with the billing app, customer profile)."

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--variant", default="default")
        parser.add_argument("--out", default=str(OUT))

    def handle(self, *args, seed, variant, out, **options):
        from playwright.sync_api import sync_playwright

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        world = world_create(replica="supportdesk", seed=seed, variant=variant)
        try:
            with bound_world(world):
                ticket = _showcase_ticket()
                other = Ticket.objects.exclude(pk=ticket.pk).filter(status="open").order_by("public_id").first()
                requester = ticket.requester
            session_key, _ = agent_session(world, tabs=[other.public_id, ticket.public_id])
            with wsgi_server() as port, sync_playwright() as pw:
                browser = launch_chromium(pw)
                context = signed_in_context(browser, world, port, session_key)
                page = context.new_page()
                shots = [
                    ("views-list.png", "/agent/filters/unsolved", None),
                    ("ticket-billing.png", f"/agent/tickets/{ticket.public_id}", "ticket"),
                    ("customer-profile.png", f"/agent/users/{requester.public_id}", None),
                ]
                for name, path, prepare in shots:
                    page.goto(world_url(world, path, port=port), wait_until="networkidle")
                    if prepare == "ticket":
                        self._prepare_ticket(page)
                    page.evaluate("document.fonts.ready")
                    page.screenshot(path=str(out / name))
                    self.stdout.write(f"wrote {out / name}")
                context.close()
                browser.close()
        finally:
            world_delete(world=world)

    def _prepare_ticket(self, page):
        """Open the billing app and wait until it has loaded from the API."""
        opener = page.locator("[data-billing-open]")
        if opener.count():
            opener.first.click()
            page.wait_for_selector("[data-billing-state=loaded], [data-billing-state=error]", timeout=10000)
