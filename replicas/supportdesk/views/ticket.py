"""The ticket page: properties panel, conversation and composer, merge, events, context panel."""

from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from replicas.worlds.faults import world_data_fault
from replicas.worlds.scoping import current_world

from .. import selectors
from ..forms import MergeForm, NewTicketForm, TicketForm, ticket_initial
from ..models import Group, Ticket, User
from . import domain
from .common import agent_required, page, tab_open


def _ticket_or_404(number):
    ticket = (
        Ticket.objects.select_related("requester", "requester__organization", "assignee", "group", "merged_into")
        .filter(public_id=number)
        .first()
    )
    if ticket is None:
        raise Http404("No such ticket")
    return ticket


def _form(ticket, data=None, initial=None):
    agents = User.objects.exclude(role=User.Role.END_USER).filter(suspended=False).order_by("name")
    form = TicketForm(
        data,
        initial=initial or ticket_initial(ticket),
        agents=list(agents),
        groups=list(Group.objects.order_by("name")),
    )
    _ambiguous_labels(form, ticket)
    return form


def _ambiguous_labels(form, ticket):
    """Under the ambiguous_field fault, the field it names (on its ticket) shows its options as the
    fault's detail labels them: bare "Partial" and "Prorated" side by side, where the desk normally
    says "Partial refund" and "Prorated refund"; the form carries no help text either way."""
    detail = world_data_fault(current_world(), "ambiguous_field")
    if not detail or detail.get("record") != ticket.public_id or detail.get("field") not in form.fields:
        return
    field = form.fields[detail["field"]]
    labels = detail.get("labels") or {}
    field.choices = [(value, labels.get(value, label)) for value, label in field.choices]


def _context(request, ticket, form, **extra):
    comments = list(ticket.comments.select_related("author").order_by("created_at", "public_id"))
    requester = ticket.requester
    other = (
        Ticket.objects.filter(requester=requester, merged_into__isnull=True)
        .exclude(pk=ticket.pk)
        .order_by("-updated_at")
        .only("public_id", "subject", "status", "updated_at")[:5]
    )
    sla = [m for m in selectors.ticket_sla(ticket) if m.status != "achieved"]
    context = {
        "ticket": ticket,
        "sla": min(sla, key=lambda m: m.due_at) if sla else None,
        "form": form,
        "comments": comments,
        "requester": requester,
        "other_tickets": list(other),
        "current_tab": ticket.public_id,
        "macros": _macros(),
        "submit_statuses": [
            ("new", "New"),
            ("open", "Open"),
            ("pending", "Pending"),
            ("hold", "On-hold"),
            ("solved", "Solved"),
        ],
    }
    context.update(extra)
    return context


def _macros():
    return list(selectors.macros_available().only("public_id", "title"))


@agent_required
def ticket_detail(request, number):
    ticket = _ticket_or_404(number)
    tab_open(request, ticket.public_id)
    status = 200
    if request.method == "POST":
        form = _form(ticket, request.POST)
        if "apply_macro" in request.POST:
            return _apply_macro(request, ticket, form)
        if form.is_valid():
            changes = form.changes(ticket)
            body = form.cleaned_data["comment"]
            if not changes and not body:
                form.add_error(None, "Nothing to submit: change a property or write a comment.")
            else:
                try:
                    domain.ticket_update(
                        ticket=ticket,
                        actor=request.agent,
                        changes=changes,
                        comment=body,
                        public=form.cleaned_data["comment_mode"] == "public",
                    )
                except ValidationError as exc:
                    form.add_error(None, exc)
                else:
                    return redirect(f"/agent/tickets/{ticket.public_id}")
        status = 400
        ticket = _ticket_or_404(number)  # show the ticket as stored, not as the refused write left it in memory
    else:
        form = _form(ticket)
        # the Conversations toggle swaps just the conversation in
        return page(
            request,
            "supportdesk/ticket.html",
            _context(request, ticket, form),
            section="views",
            fragment="supportdesk/_conversation.html",
        )
    return page(request, "supportdesk/ticket.html", _context(request, ticket, form), section="views", status=status)


def _apply_macro(request, ticket, form):
    """Fill the composer and properties from a macro without saving: the agent reviews, then submits."""
    raw = request.POST.get("macro", "")
    macro = selectors.macros_available().filter(public_id=int(raw)).first() if raw.isdigit() else None
    if macro is None:
        form = _form(ticket)
        form.add_error(None, "Choose a macro to apply.")
        return page(request, "supportdesk/ticket.html", _context(request, ticket, form), section="views", status=400)
    current = {k: form.data.get(k, v) for k, v in ticket_initial(ticket).items()}
    current["followers"] = (
        form.data.getlist("followers") if "followers" in form.data else ticket_initial(ticket).get("followers", [])
    )
    current["comment"] = form.data.get("comment", "")
    try:
        proposed = domain.macro_apply(ticket=ticket, macro=macro, actor=request.agent, values=current)
    except ValidationError as exc:
        form = _form(ticket, initial=current)
        form.add_error(None, exc)
        return page(request, "supportdesk/ticket.html", _context(request, ticket, form), section="views", status=400)
    form = _form(ticket, initial=proposed)
    context = _context(request, ticket, form, applied_macro=macro)
    return page(request, "supportdesk/ticket.html", context, section="views", fragment=None)


@agent_required
def ticket_merge(request, number):
    """Merge this ticket into another: pick the target, confirm, merge (GET shows the dialog)."""
    ticket = _ticket_or_404(number)
    stage, status = "edit", 200
    form = MergeForm(request.POST or None, source=ticket)
    if ticket.merged_into_id or ticket.status == "closed":
        form.add_error(None, "This ticket is closed and cannot be merged.")
    elif request.method == "POST" and form.is_valid():
        if request.POST.get("confirm") == "yes":
            try:
                domain.ticket_merge(
                    source=ticket,
                    target=form.cleaned_data["target"],
                    actor=request.agent,
                    comment=form.cleaned_data["comment"],
                )
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                target = f"/agent/tickets/{form.cleaned_data['target'].public_id}"
                if request.htmx:
                    return HttpResponse(status=204, headers={"HX-Redirect": target})
                return redirect(target)
        else:
            stage = "confirm"
    if form.errors and request.method == "POST":
        status = 400
    context = {"ticket": ticket, "form": form, "stage": stage, "current_tab": ticket.public_id}
    return page(
        request,
        "supportdesk/merge.html",
        context,
        section="views",
        fragment="supportdesk/_merge_dialog.html",
        status=status,
    )


@agent_required
def ticket_events(request, number):
    """The ticket's audit log (the product's Events view of the conversation)."""
    ticket = _ticket_or_404(number)
    tab_open(request, ticket.public_id)
    events = list(selectors.ticket_events(ticket).select_related("actor"))
    form = _form(ticket)
    context = _context(request, ticket, form, events=events, show_events=True)
    return page(request, "supportdesk/ticket.html", context, section="views", fragment="supportdesk/_events.html")


@agent_required
@require_POST
def ticket_take(request, number):
    """'take it': assign the ticket to the signed-in agent (and one of their groups if it has none)."""
    ticket = _ticket_or_404(number)
    changes = {"assignee": request.agent}
    if ticket.group is None and request.agent.default_group_id:
        changes["group"] = request.agent.default_group
    try:
        domain.ticket_update(ticket=ticket, actor=request.agent, changes=changes)
    except ValidationError as exc:
        # the form bound to the ticket as it is: an unbound form cannot hold an error
        form = _form(ticket, data=ticket_initial(ticket))
        form.is_valid()
        form.add_error(None, exc)
        return page(request, "supportdesk/ticket.html", _context(request, ticket, form), section="views", status=400)
    return redirect(f"/agent/tickets/{ticket.public_id}")


@agent_required
def ticket_new(request):
    """Open a ticket on a customer's behalf; the new ticket opens in a tab."""
    form = NewTicketForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            ticket = domain.ticket_create(
                requester=form.cleaned_data["requester"],
                subject=form.cleaned_data["subject"],
                body=form.cleaned_data["comment"],
                actor=request.agent,
                channel="web",
                fields=form.fields_to_set(),
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return redirect(f"/agent/tickets/{ticket.public_id}")
    status = 400 if request.method == "POST" else 200
    return page(request, "supportdesk/ticket_new.html", {"form": form}, section="views", status=status)
