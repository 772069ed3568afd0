"""Pages of the support desk's agent workspace."""
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from .models import Ticket, User
from .selectors import view_tickets, views_for

PAGE_SIZE = 30


def acting_agent(request) -> User:
    """The agent this workspace is signed in as: the desk's administrator."""
    return User.objects.filter(role=User.Role.ADMIN).order_by("public_id").first()


def ticket_list(request, view):
    agent = acting_agent(request)
    views = views_for(agent)
    current = next((v for v in views if v.slug == view), None)
    if current is None:
        raise Http404("No such view")
    nav = [(v, view_tickets(v).count()) for v in views]
    page = Paginator(view_tickets(current), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "supportdesk/ticket_list.html",
        {"agent": agent, "nav": nav, "current": current, "page": page},
    )


def ticket_detail(request, number):
    agent = acting_agent(request)
    ticket = get_object_or_404(
        Ticket.objects.select_related("requester", "assignee", "group", "organization"), public_id=number
    )
    comments = ticket.comments.select_related("author").order_by("created_at", "public_id")
    return render(request, "supportdesk/ticket_detail.html", {"agent": agent, "ticket": ticket, "comments": comments})
