"""Reads of the support desk: views (saved ticket lists) and ticket pages."""
from dataclasses import dataclass

from django.db.models import Q, QuerySet

from .models import Ticket

UNSOLVED = ["new", "open", "pending", "hold"]


@dataclass(frozen=True)
class View:
    slug: str
    title: str
    condition: Q
    order: tuple[str, ...] = ("-updated_at", "-public_id")


def views_for(agent) -> list[View]:
    return [
        View("your-unsolved", "Your unsolved tickets", Q(assignee=agent, status__in=UNSOLVED)),
        View("unassigned", "Unassigned tickets", Q(assignee__isnull=True, status__in=UNSOLVED)),
        View("unsolved", "All unsolved tickets", Q(status__in=UNSOLVED)),
        View("recently-updated", "Recently updated tickets", Q()),
        View("pending", "Pending tickets", Q(status="pending")),
        View("recently-solved", "Recently solved tickets", Q(status="solved"), ("-solved_at", "-public_id")),
    ]


def view_tickets(view: View) -> QuerySet:
    return (
        Ticket.objects.filter(view.condition, merged_into__isnull=True)
        .select_related("requester", "assignee", "group")
        .order_by(*view.order)
    )
