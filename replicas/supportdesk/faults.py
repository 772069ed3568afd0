"""The support desk's side of fault injection: data-fault appliers, sign-in and error pages.

Read by replicas.worlds.faults (see replicas/worlds/faults/data.py for the contract).
Appliers run with the world bound, pick records only through `ctx.rng` over rows in
public-id order, and return the detail written into the fault's event.
"""

from datetime import timedelta

from django.db.models import Max
from django.http import HttpResponse, JsonResponse
from django.utils.html import format_html

from replicas.worlds.clock import now
from replicas.worlds.faults import DataFaultError
from replicas.worlds.faults.pages import wants_json

from .models import Comment, Order, Ticket, TicketEvent, User
from .policies import SIGNIN

LOGIN_PATH = "/auth/login"
UNSOLVED = ("new", "open", "pending", "hold")
MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")


def session_is_signed_in(session) -> bool:
    return SIGNIN.session_is_signed_in(session)


def error_response(request, *, status: int, code: str, message: str) -> HttpResponse:
    """What the desk answers when a backend fails: JSON for its APIs, its own error page otherwise."""
    if wants_json(request):
        return JsonResponse({"error": message, "code": code}, status=status)
    page = format_html(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error {} – Helpdesk</title></head>'
        '<body style="margin:0;font:14px/20px Inter,system-ui,sans-serif;color:#2f3941;background:#f8f9f9">'
        '<main style="max-width:440px;margin:18vh auto;padding:32px;background:#fff;border:1px solid '
        '#d8dcde;border-radius:8px">'
        '<h1 style="margin:0 0 8px;font-size:22px;line-height:28px">Oops! Something went wrong.</h1>'
        '<p style="margin:0 0 16px;color:#49545c">{}</p><p style="margin:0 0 24px;color:#68737d">Error code: {}</p>'
        '<a href="{}" style="color:#1f73b7;font-weight:600">Try again</a></main></body></html>',
        status,
        message,
        status,
        request.get_full_path(),
    )
    return HttpResponse(page, status=status)


def _next_public_id(model, start: int) -> int:
    top = model.objects.aggregate(top=Max("public_id"))["top"]
    return max(start, (top or 0) + 1)


def _pick(ctx, queryset, what: str):
    """The record the spec names, or one drawn from the seed among the candidates."""
    record = ctx.params.get("record")
    if record is not None:
        found = queryset.filter(public_id=record).first()
        if found is None:
            raise DataFaultError(f"record: no suitable {what} {record!r} in this world")
        return found
    rows = list(queryset.order_by("public_id"))
    if not rows:
        raise DataFaultError(f"this world has no {what} the fault could use")
    return ctx.rng.choice(rows)


def _ticket_ids(tickets) -> list[int]:
    return sorted(t.public_id for t in tickets)


def data_conflict(ctx) -> dict:
    """An order both cancelled and fulfilled: shipped, then cancelled in the storefront, never refunded."""
    order = _pick(ctx, Order.objects.filter(status="fulfilled", fulfilled_at__isnull=False), "fulfilled order")
    order.status = Order.Status.CANCELLED
    order.cancelled_at = order.fulfilled_at + timedelta(hours=ctx.rng.randint(1, 30))
    order.save(update_fields=["status", "cancelled_at"])
    return {
        "model": "order",
        "record": order.public_id,
        "conflict": {
            "status": "cancelled",
            "fulfilled_at": order.fulfilled_at.isoformat(),
            "tracking_number": order.tracking_number,
        },
        "tickets": _ticket_ids(Ticket.objects.filter(order_number=order.public_id)),
    }


def stale_record(ctx) -> dict:
    """A ticket someone else takes over while the agent has it open."""
    if ctx.phase == "arm":
        ticket = _pick(ctx, Ticket.objects.filter(status__in=("new", "open"), merged_into__isnull=True), "open ticket")
        return {"model": "ticket", "record": ticket.public_id, "route": f"^/agent/tickets/{ticket.public_id}$"}
    ticket = Ticket.objects.get(public_id=ctx.detail["record"])
    agents = list(User.objects.filter(role=User.Role.AGENT, suspended=False).order_by("public_id"))
    others = [a for a in agents if a.id != ticket.assignee_id]
    if not others:
        raise DataFaultError("no other agent could take the ticket over")
    other = ctx.rng.choice(others)
    at = now()
    before = {"status": ticket.status, "assignee": ticket.assignee.public_id if ticket.assignee else None}
    changes = [
        ("assignee", ticket.assignee.name if ticket.assignee else "", other.name),
        ("status", ticket.status, "pending"),
    ]
    ticket.assignee, ticket.status, ticket.updated_at = other, Ticket.Status.PENDING, at
    ticket.save(update_fields=["assignee", "status", "updated_at"])
    first = ticket.requester.name.split(" ")[0]
    Comment.objects.create(
        public_id=_next_public_id(Comment, 900000000),
        ticket=ticket,
        author=other,
        public=True,
        channel="web",
        body=f"Hi {first}, I'm taking this one over and will get back to you today.",
        created_at=at,
    )
    for field, old, new in changes:
        TicketEvent.objects.create(
            public_id=_next_public_id(TicketEvent, 20000000000),
            ticket=ticket,
            actor=other,
            kind="change",
            field=field,
            from_value=old,
            to_value=new,
            via="web",
            created_at=at,
        )
    return {
        "model": "ticket",
        "record": ticket.public_id,
        "changed": {"status": [before["status"], "pending"], "assignee": [before["assignee"], other.public_id]},
        "by": other.public_id,
    }


def ambiguous_field(ctx) -> dict:
    """The refund-type field shows bare "Partial" and "Prorated" with no help text.

    The rows do not change: the ticket pages read this detail (world_data_fault) to relabel
    the options. The record is a cancellation ticket where the two readings differ.
    """
    candidates = Ticket.objects.filter(status__in=UNSOLVED, refund_type="", merged_into__isnull=True)
    ticket = _pick(ctx, candidates, "unsolved ticket without a refund type")
    return {
        "model": "ticket",
        "record": ticket.public_id,
        "field": "refund_type",
        "labels": {"partial": "Partial", "prorated": "Prorated"},
        "help_text": "",
    }


def _legacy_date(when, fmt: str) -> str:
    # month names written out here: strftime's %b follows the process locale
    if fmt == "oracle":
        return f"{when.day:02d}-{MONTHS[when.month - 1]}-{when.year % 100:02d} {when.hour:02d}.{when.minute:02d}"
    if fmt == "dmy_dots":
        return f"{when.day:02d}.{when.month:02d}.{when.year} {when.hour:02d}:{when.minute:02d}"
    hour = when.hour % 12 or 12
    return (
        f"{when.month:02d}/{when.day:02d}/{when.year % 100:02d} {hour:02d}:{when.minute:02d} "
        f"{'AM' if when.hour < 12 else 'PM'}"
    )


def legacy_format(ctx) -> dict:
    """Tickets from a legacy import: their real date kept only as text in the old system's format."""
    candidates = list(Ticket.objects.filter(imported_date="").order_by("public_id"))
    if not candidates:
        raise DataFaultError("this world has no ticket the fault could mark as imported")
    chosen = sorted(ctx.rng.sample(candidates, k=min(ctx.params["count"], len(candidates))), key=lambda t: t.public_id)
    for ticket in chosen:
        ticket.imported_date = _legacy_date(ticket.created_at, ctx.params["format"])
        if "imported" not in ticket.tags:
            ticket.tags = [*ticket.tags, "imported"]
        ticket.save(update_fields=["imported_date", "tags"])
    return {
        "model": "ticket",
        "records": [t.public_id for t in chosen],
        "field": "imported_date",
        "format": ctx.params["format"],
        "values": {str(t.public_id): t.imported_date for t in chosen},
    }


DATA_FAULTS = {
    "data_conflict": data_conflict,
    "stale_record": stale_record,
    "ambiguous_field": ambiguous_field,
    "legacy_format": legacy_format,
}
