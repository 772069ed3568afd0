"""Views (saved ticket lists) and bulk updates of the agent workspace."""

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Case, Count, IntegerField, Value, When
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from replicas.worlds.signin import safe_next

from .. import selectors
from ..forms import BulkUpdateForm
from ..models import Ticket
from . import domain
from .common import agent_required, page

PAGE_SIZE = 30

_STATUS_RANK = Case(
    *[When(status=s, then=Value(i)) for i, s in enumerate(Ticket.Status.values)], output_field=IntegerField()
)
_PRIORITY_RANK = Case(
    *[When(priority=p, then=Value(i)) for i, p in enumerate(["", "low", "normal", "high", "urgent"])],
    output_field=IntegerField(),
)
# sort key in the URL -> what it orders by (a field path or a rank expression)
SORTS = {
    "id": "public_id",
    "subject": "subject",
    "requester": "requester__name",
    "requested": "created_at",
    "updated": "updated_at",
    "status": _STATUS_RANK,
    "priority": _PRIORITY_RANK,
    "group": "group__name",
    "assignee": "assignee__name",
}


def _ordered(queryset, sort: str, default_order):
    key = sort.lstrip("-")
    if key not in SORTS:
        return queryset.order_by(*default_order), ""
    expr = SORTS[key]
    if isinstance(expr, str):
        expr_ordered = f"-{expr}" if sort.startswith("-") else expr
    else:
        expr_ordered = expr.desc() if sort.startswith("-") else expr.asc()
    return queryset.order_by(expr_ordered, "-public_id"), sort


def _attach_sla(tickets):
    """Give each ticket `sla`: its SLA metric due first and not yet achieved (world clock), or None."""
    metrics = selectors.sla_for_tickets(tickets)
    for t in tickets:
        active = [m for m in metrics.get(t.public_id, []) if m.status != "achieved"]
        t.sla = min(active, key=lambda m: m.due_at) if active else None


def view_nav(agent):
    """The sidebar's views with their ticket counts, counted in one query."""
    views = selectors.views_for(agent)
    counts = Ticket.objects.filter(merged_into__isnull=True).aggregate(
        **{f"v{i}": Count("pk", filter=v.condition) for i, v in enumerate(views)}
    )
    return views, [(v, counts[f"v{i}"]) for i, v in enumerate(views)]


@agent_required
def ticket_list(request, view):
    views, nav = view_nav(request.agent)
    current = next((v for v in views if v.slug == view), None)
    if current is None:
        raise Http404("No such view")
    tickets, sort = _ordered(selectors.view_tickets(current), request.GET.get("sort", ""), current.order)
    paginator = Paginator(tickets, PAGE_SIZE)
    paginator.count = next(c for v, c in nav if v is current)  # the sidebar counted it: spare a COUNT(*)
    page_obj = paginator.get_page(request.GET.get("page"))
    page_obj.object_list = list(page_obj.object_list)  # one query, however often the template looks
    _attach_sla(page_obj.object_list)
    context = {
        "nav": nav,
        "current": current,
        "page": page_obj,
        "sort": sort,
        "page_range": paginator.get_elided_page_range(page_obj.number, on_each_side=2, on_ends=1),
    }
    return page(
        request, "supportdesk/ticket_list.html", context, section="views", fragment="supportdesk/_ticket_table.html"
    )


def _selected_tickets(numbers):
    return list(Ticket.objects.filter(public_id__in=numbers).order_by("public_id"))


def _bulk_form(data=None, initial=None):
    from ..models import Group, User

    agents = User.objects.exclude(role=User.Role.END_USER).filter(suspended=False).order_by("name")
    return BulkUpdateForm(data, initial=initial, agents=agents, groups=Group.objects.order_by("name"))


@agent_required
def bulk_update(request):
    """Edit several tickets at once: choose changes, confirm them, apply (GET shows the form)."""
    data = request.POST if request.method == "POST" else request.GET
    back = safe_next(request, "/agent/filters/your-unsolved")
    selected = [int(n) for n in data.getlist("tickets") if n.isdigit()]
    stage, status = "edit", 200
    if request.method == "POST":
        form = _bulk_form(request.POST)
        if form.is_valid():
            if request.POST.get("confirm") == "yes":
                tickets = _selected_tickets(form.cleaned_data["tickets"])
                try:
                    domain.tickets_bulk_update(tickets=tickets, actor=request.agent, changes=form.changes())
                except ValidationError as exc:
                    form.add_error(None, exc)
                else:
                    if request.htmx:
                        return HttpResponse(status=204, headers={"HX-Redirect": back})
                    return redirect(back)
            else:
                stage = "confirm"
        if form.errors:
            status = 400
    else:
        form = _bulk_form(initial={"tickets": selected})
    context = {"form": form, "tickets": _selected_tickets(selected), "stage": stage, "next": back}
    return page(
        request,
        "supportdesk/bulk_update.html",
        context,
        section="views",
        fragment="supportdesk/_bulk_dialog.html",
        status=status,
    )


@agent_required
@require_POST
def tab_close_view(request, number):
    from .common import tab_close

    tab_close(request, number)
    return redirect(safe_next(request, "/agent/filters/your-unsolved"))
