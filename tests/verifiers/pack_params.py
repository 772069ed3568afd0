"""Params (answer keys) for the task pack the verify_tasks tests write."""
from replicas.supportdesk.models import Ticket


def first_open_ticket(world):
    return {"ticket": Ticket.objects.filter(status="open").order_by("public_id").first().public_id}
