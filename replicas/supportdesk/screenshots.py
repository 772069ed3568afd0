"""The support desk's screenshot tour (`manage.py screenshots supportdesk`): the views list, a ticket with
the billing app open, a customer's profile and the agents' knowledge base, signed in as an agent at 1280x800."""

from .models import Article, Comment, Ticket
from .signin import agent_session


def _showcase_ticket():
    """An open ticket whose conversation has an internal note and whose requester has orders, if any."""
    noted = Comment.objects.filter(public=False, ticket__status__in=["open", "pending"]).values_list(
        "ticket", flat=True
    )
    candidates = Ticket.objects.filter(pk__in=noted).order_by("public_id")
    with_orders = candidates.filter(requester__orders__isnull=False).distinct()
    return (with_orders if with_orders.exists() else candidates).first()


def tour(world):
    ticket = _showcase_ticket()
    other = Ticket.objects.exclude(pk=ticket.pk).filter(status="open").order_by("public_id").first()
    requester = ticket.requester
    limits = Article.objects.filter(visibility=Article.Visibility.AGENTS, section="Internal: billing").first()
    session_key, _ = agent_session(world, tabs=[other.public_id, ticket.public_id])

    def shoot(camera):
        page = camera.page(session_key)
        camera.shot(page, "views-list.png", "/agent/filters/unsolved")
        camera.goto(page, f"/agent/tickets/{ticket.public_id}")
        opener = page.locator("[data-billing-open]")  # the billing app, loaded from its API
        if opener.count():
            opener.first.click()
            page.wait_for_selector("[data-billing-state=loaded], [data-billing-state=error]", timeout=10000)
        camera.shot(page, "ticket-billing.png")
        camera.shot(page, "customer-profile.png", f"/agent/users/{requester.public_id}")
        camera.shot(page, "knowledge-base.png", "/agent/knowledge")
        camera.shot(page, "knowledge-article.png", f"/hc/en-us/articles/{limits.public_id}")

    return shoot
