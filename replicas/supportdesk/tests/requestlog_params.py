"""Params of the request-log test tasks (requestlog_tasks/), computed on the template world."""

from replicas.supportdesk.models import Ticket


def first_unsolved_ticket(world):
    """The lowest-numbered unsolved ticket and who asked it."""
    ticket = Ticket.objects.filter(status__in=["new", "open", "pending", "hold"]).order_by("public_id").first()
    return {"ticket": ticket.public_id, "requester": ticket.requester.name, "subject": ticket.subject}
