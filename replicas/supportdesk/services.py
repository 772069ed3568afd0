"""Writes of the support desk: tickets, comments, merges, bulk updates, macros, refunds,
identity verification and account repairs, triggers and automations.

Every write runs in one transaction, checks everything before it changes anything,
writes its audit events, and refuses bad input with a ValidationError whose message
is what the agent sees (a refusal leaves the world exactly as it was).
"""

import hashlib
import re
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from replicas.worlds import clock
from replicas.worlds.clock import world_clock_advance
from replicas.worlds.scoping import current_world

from . import conditions, policies, selectors
from .models import (
    AccountEvent,
    Automation,
    Comment,
    Group,
    IdentityVerification,
    Macro,
    Order,
    Payment,
    Refund,
    SignInFailure,
    Subscription,
    Ticket,
    TicketEvent,
    TicketFollower,
    Trigger,
    User,
)

TAG = re.compile(r"^[a-z0-9_\-:./]{1,80}$")
ORDER_NUMBER = re.compile(r"^ORD-\d{3,10}$")
MAX_COMMENT = 65536
TICKET_FIELDS = {
    "status",
    "priority",
    "type",
    "group",
    "assignee",
    "requester",
    "tags",
    "order_number",
    "refund_type",
    "product",
    "followers",
    "subject",
}
EDITS = TICKET_FIELDS | {"add_tags", "remove_tags"}


class _Ids:
    """Next public ids of one model inside a write (one query, then counted in memory)."""

    def __init__(self, model, start: int):
        self.model, self.start, self.top = model, start, None

    def next(self) -> int:
        if self.top is None:
            self.top = self.model.objects.aggregate(m=Max("public_id"))["m"] or self.start
        self.top += 1
        return self.top


def _token(prefix: str, *parts) -> str:
    """A processor-style id (re_…) that follows from what it identifies, so runs agree."""
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode()).digest()
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    n = int.from_bytes(digest, "big")
    chars = []
    for _ in range(24):
        n, r = divmod(n, len(alphabet))
        chars.append(alphabet[r])
    return prefix + "".join(chars)


def _require_agent(actor, what="do this"):
    if not isinstance(actor, User) or actor.role == User.Role.END_USER or actor.suspended:
        raise ValidationError(f"Only an active agent can {what}.", code="not_agent")


# --- sign-in ------------------------------------------------------------------------------


def agent_sign_in(*, email: str, password: str) -> User:
    """The agent these credentials name, throttled per world and email as the product does.

    A refused try is recorded (the caller's transaction must not roll it back: the view
    catches the error); past policies.SIGNIN_MAX_FAILURES within SIGNIN_WINDOW the
    password is not even checked, so guessing gets nowhere. Success clears the count.
    """
    world, now = current_world(), clock.now()
    key = (email or "").strip().lower()[:254] if isinstance(email, str) else ""
    failures = SignInFailure.objects.filter(world=world, email=key)
    if failures.filter(at__gt=now - policies.SIGNIN_WINDOW).count() >= policies.SIGNIN_MAX_FAILURES:
        minutes = int(policies.SIGNIN_WINDOW.total_seconds() // 60)
        raise ValidationError(f"Too many attempts. Wait {minutes} minutes and try again.", code="throttled")
    try:
        agent = selectors.agent_authenticate(email=email, password=password)
    except ValidationError:
        SignInFailure.objects.create(world=world, email=key, at=now)
        raise
    failures.delete()
    return agent


# --- tickets ------------------------------------------------------------------------------


def _display(field: str, value) -> str:
    """How a field value reads in the event log."""
    if value is None:
        return ""
    if field in ("assignee", "requester"):
        return value.email
    if field == "group":
        return value.name
    if field in ("tags", "followers"):
        return " ".join(v.email if isinstance(v, User) else v for v in value)
    return str(value)


def _clean_tags(value) -> list[str]:
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, (list, tuple)):
        raise ValidationError("Tags must be a list of words.", code="bad_tags")
    out = []
    for tag in value:
        if not isinstance(tag, str):
            raise ValidationError("Tags must be words.", code="bad_tags")
        tag = tag.strip().lower()
        if not TAG.match(tag):
            raise ValidationError(
                f"'{tag}' is not a valid tag: use letters, digits, _ - : . / and no spaces.", code="bad_tags"
            )
        if tag not in out:
            out.append(tag)
    if len(out) > 50:
        raise ValidationError("A ticket can have at most 50 tags.", code="bad_tags")
    return out


def _choice(field, value, choices):
    if value not in {c[0] for c in choices}:
        shown = ", ".join(c[0] for c in choices if c[0])
        raise ValidationError(
            f"'{value}' is not a valid {field.replace('_', ' ')} (one of: {shown}).", code=f"bad_{field}"
        )
    return value


def _normalize(ticket: Ticket, changes: dict, actor) -> dict:
    """Validated target values of `changes` (only those that differ from the ticket)."""
    unknown = set(changes) - EDITS
    if unknown:
        raise ValidationError(f"Unknown ticket field(s): {', '.join(sorted(unknown))}.", code="bad_field")
    out = {}
    for field, value in changes.items():
        if field == "status":
            _choice("status", value, Ticket.Status.choices)
            if value == "new" and ticket.status != "new":
                raise ValidationError("A ticket cannot go back to New.", code="bad_status")
            if value == "closed" and actor is not None:  # only rules (actor None) close tickets
                raise ValidationError(
                    "Tickets are closed by the desk's automation after they are solved; submit as Solved.",
                    code="bad_status",
                )
        elif field == "priority":
            _choice("priority", value, [("", "-"), *Ticket.Priority.choices])
        elif field == "type":
            _choice("type", value, [("", "-"), *Ticket.Type.choices])
        elif field == "refund_type":
            _choice("refund_type", value, Ticket.RefundType.choices)
        elif field == "product":
            _choice("product", value, Ticket.Product.choices)
        elif field == "order_number":
            value = (value or "").strip().upper()
            if value and not ORDER_NUMBER.match(value):
                raise ValidationError(
                    f"'{value}' is not an order number: they look like ORD-48213.", code="bad_order_number"
                )
        elif field == "subject":
            value = (value or "").strip()
            if not value or len(value) > 250:
                raise ValidationError("The subject must be 1 to 250 characters.", code="bad_subject")
        elif field == "group":
            if value is not None and not isinstance(value, Group):
                raise ValidationError("Unknown group.", code="bad_group")
        elif field == "assignee":
            if value is not None and (
                not isinstance(value, User) or value.role == User.Role.END_USER or value.suspended
            ):
                raise ValidationError("Tickets can only be assigned to active agents.", code="bad_assignee")
        elif field == "requester":
            if not isinstance(value, User):
                raise ValidationError("Unknown requester.", code="bad_requester")
        elif field == "followers":
            if not isinstance(value, (list, tuple)) or any(
                not isinstance(u, User) or u.role == User.Role.END_USER for u in value
            ):
                raise ValidationError("Followers must be agents.", code="bad_followers")
            value = sorted(set(value), key=lambda u: u.public_id)
        elif field in ("tags", "add_tags", "remove_tags"):
            value = _clean_tags(value)
        out[field] = value
    # tags: the final list from set / add / remove
    if {"tags", "add_tags", "remove_tags"} & set(out):
        tags = out.pop("tags", list(ticket.tags))
        tags += [t for t in out.pop("add_tags", []) if t not in tags]
        remove = set(out.pop("remove_tags", []))
        out["tags"] = [t for t in tags if t not in remove]
    # assignee and group agree: an assignee brings their default group; a group keeps
    # only an assignee who is a member of it
    group = out.get("group", ticket.group)
    assignee = out.get("assignee", ticket.assignee)
    if "assignee" in out and assignee is not None and "group" not in out and group is None:
        group = out["group"] = assignee.default_group
    if assignee is not None and group is not None and not assignee.memberships.filter(group=group).exists():
        raise ValidationError(
            f"{assignee.name} is not a member of the group {group.name}; choose another assignee or group.",
            code="assignee_not_in_group",
        )
    status = out.get("status", ticket.status)
    if status == "solved" and assignee is None:
        if actor is None or actor.role == User.Role.END_USER:
            raise ValidationError("A ticket needs an assignee to be solved.", code="solve_unassigned")
        # the product assigns a ticket to whoever solves it when it has no assignee
        out["assignee"] = actor
        if group is None and actor.default_group_id:
            out["group"] = actor.default_group
        elif group is not None and not actor.memberships.filter(group=group).exists():
            raise ValidationError(
                f"Assign the ticket before solving it: you are not a member of {group.name}.", code="solve_unassigned"
            )
    current_followers = None
    changed = {}
    for field, value in out.items():
        if field == "followers":
            current_followers = list(ticket.followers.order_by("public_id"))
            if [u.pk for u in current_followers] != [u.pk for u in value]:
                changed[field] = value
        elif getattr(ticket, field) != value:
            changed[field] = value
    return changed


class _Writer:
    """Writes one update of one ticket: field changes, the comment, events; then triggers."""

    def __init__(self, ticket, actor, via, rule=""):
        self.ticket, self.actor, self.via, self.rule = ticket, actor, via, rule
        self.now = clock.now()
        self.events = _Ids(TicketEvent, 20000000000)
        self.comments = _Ids(Comment, 900000000)

    def event(self, *, kind, field="", old="", new="", via=None, rule=None, actor="same"):
        TicketEvent.objects.create(
            public_id=self.events.next(),
            ticket=self.ticket,
            actor=self.actor if actor == "same" else actor,
            kind=kind,
            field=field,
            from_value=old,
            to_value=new,
            via=via or self.via,
            rule=self.rule if rule is None else rule,
            created_at=self.now,
        )

    def apply(self, changed: dict, *, via=None, rule=None, actor="same") -> dict:
        """Set the validated changes; returns field -> (from, to) as condition values."""
        t = self.ticket
        diff = {}
        for field, value in changed.items():
            if field == "followers":
                old = list(t.followers.order_by("public_id"))
                TicketFollower.objects.filter(ticket=t).delete()
                for u in value:
                    TicketFollower.objects.create(ticket=t, user=u, created_at=self.now)
                self.event(
                    kind="change",
                    field="followers",
                    old=_display("followers", old),
                    new=_display("followers", value),
                    via=via,
                    rule=rule,
                    actor=actor,
                )
                continue
            old = getattr(t, field)
            setattr(t, field, value)
            self.event(
                kind="change",
                field=field,
                old=_display(field, old),
                new=_display(field, value),
                via=via,
                rule=rule,
                actor=actor,
            )
            if field == "requester":
                t.organization = value.organization
            diff[field] = (_cond_value(field, old), _cond_value(field, value))
        if "status" in changed:
            if changed["status"] == "solved":
                t.solved_at = self.now
            elif changed["status"] in ("open", "pending", "hold"):
                t.solved_at = None
        return diff

    def comment(self, body, *, public, author=None, via=None, rule=None):
        author = author or self.actor
        Comment.objects.create(
            public_id=self.comments.next(),
            ticket=self.ticket,
            author=author,
            body=body,
            public=public,
            # a reply that came in by email (a customer's answer) is shown as one
            channel="email" if (via or self.via) == "mail" else "web",
            created_at=self.now,
        )
        self.event(
            kind="comment", field="comment", new="public" if public else "internal", via=via, rule=rule, actor=author
        )

    def save(self):
        self.ticket.updated_at = self.now
        self.ticket.save()


def _cond_value(field, value):
    if isinstance(value, User):
        return value.email
    if isinstance(value, Group):
        return value.name
    return "" if value is None else value


def _clean_comment(body) -> str:
    if not isinstance(body, str):
        raise ValidationError("The comment must be text.", code="bad_comment")
    body = body.strip()
    if len(body) > MAX_COMMENT:
        raise ValidationError(f"Comments are limited to {MAX_COMMENT} characters.", code="bad_comment")
    return body


def _update(
    ticket, *, actor, changes, comment="", public=True, via="web", rule="", run_triggers=True, update_type="updated"
):
    if ticket.status == "closed" or ticket.merged_into_id:
        raise ValidationError(
            f"Ticket #{ticket.public_id} is closed and can no longer be updated; create a follow-up ticket instead.",
            code="ticket_closed",
        )
    changes = dict(changes or {})
    body = _clean_comment(comment or "")
    changed = _normalize(ticket, changes, actor)
    if not changed and not body:
        raise ValidationError("Nothing to update: change a property or write a comment.", code="no_change")
    if body and actor.role == User.Role.END_USER and not public:
        raise ValidationError("Only agents can write internal notes.", code="bad_comment")
    w = _Writer(ticket, actor, via, rule)
    diff = w.apply(changed)
    if body:
        w.comment(body, public=public)
    w.save()
    if run_triggers:
        role = (
            ""
            if not body
            else ("requester" if actor.pk == ticket.requester_id else ("agent" if actor.is_agent else "end-user"))
        )
        ctx = conditions.Context(
            update_type=update_type,
            comment_body=body,
            comment_public=public,
            comment_author_role=role,
            changes=diff,
            agent=actor,
            now=w.now,
        )
        _triggers_run(w, ctx)
    return ticket


@transaction.atomic
def ticket_update(
    *, ticket: Ticket, actor: User, changes: dict, comment: str = "", public: bool = True, via: str = "web"
) -> Ticket:
    """Change a ticket's properties and/or add a comment, as one audited update; triggers run after."""
    if via not in TicketEvent.Via.values:
        raise ValidationError(f"Unknown channel of update '{via}'.", code="bad_via")
    if actor is None or not isinstance(actor, User) or (actor.is_agent and actor.suspended):
        raise ValidationError("Unknown or suspended user.", code="not_agent")
    if not actor.is_agent:
        if actor.pk != ticket.requester_id or set(changes or {}):
            raise ValidationError("Customers can only reply to their own tickets.", code="not_agent")
    return _update(ticket, actor=actor, changes=changes, comment=comment, public=public, via=via)


def comment_add(*, ticket: Ticket, author: User, body: str, public: bool = True, via: str = "web") -> Ticket:
    """Add a reply or an internal note (an update with no field changes)."""
    if not (body or "").strip():
        raise ValidationError("The comment is empty.", code="bad_comment")
    return ticket_update(ticket=ticket, actor=author, changes={}, comment=body, public=public, via=via)


@transaction.atomic
def ticket_create(
    *,
    requester: User,
    subject: str,
    body: str,
    actor: User | None = None,
    channel: str = "web",
    fields: dict | None = None,
) -> Ticket:
    """Open a ticket for `requester` (by an agent on their behalf, or themselves); triggers run."""
    actor = actor or requester
    _choice("channel", channel, Ticket.Channel.choices)
    subject = (subject or "").strip()
    if not subject or len(subject) > 250:
        raise ValidationError("The subject must be 1 to 250 characters.", code="bad_subject")
    body = _clean_comment(body or "")
    if not body:
        raise ValidationError("Describe the request: the first comment is empty.", code="bad_comment")
    if not isinstance(requester, User):
        raise ValidationError("Unknown requester.", code="bad_requester")
    now = clock.now()
    top = Ticket.objects.aggregate(m=Max("public_id"))["m"] or 8000
    ticket = Ticket(
        public_id=top + 1,
        subject=subject,
        status="new",
        channel=channel,
        requester=requester,
        submitter=actor,
        organization=requester.organization,
        tags=[],
        created_at=now,
        updated_at=now,
    )
    changed = _normalize(ticket, dict(fields or {}), actor)
    followers = changed.pop("followers", None)
    for field, value in changed.items():
        setattr(ticket, field, value)
    ticket.save()
    w = _Writer(ticket, actor, "mail" if channel == "email" else "web")
    w.event(kind="create", field="status", new="new")
    for field, value in changed.items():
        w.event(kind="change", field=field, new=_display(field, value))
    if followers:
        w.apply({"followers": followers})
    w.comment(body, public=True)
    w.save()
    ctx = conditions.Context(
        update_type="created",
        comment_body=body,
        comment_author_role="requester" if actor.pk == requester.pk else "agent",
        changes={f: ("", _cond_value(f, v)) for f, v in changed.items()},
        agent=actor,
        now=now,
    )
    _triggers_run(w, ctx)
    return ticket


@transaction.atomic
def ticket_merge(*, source: Ticket, target: Ticket, actor: User, comment: str = "", source_comment: str = "") -> Ticket:
    """Close `source` into `target`: both get a note, the source its pointer to the target."""
    _require_agent(actor, "merge tickets")
    if source.pk == target.pk:
        raise ValidationError("A ticket cannot be merged into itself.", code="merge_self")
    for t in (source, target):
        if t.status == "closed" or t.merged_into_id:
            raise ValidationError(f"Ticket #{t.public_id} is closed and cannot be merged.", code="ticket_closed")
    comment = (
        _clean_comment(comment or "")
        or f'Request #{source.public_id} "{source.subject}" was closed and merged into this request.'
    )
    source_comment = (
        _clean_comment(source_comment or "")
        or f'This request was closed and merged into request #{target.public_id} "{target.subject}".'
    )
    ws = _Writer(source, actor, "merge")
    ws.comment(source_comment, public=False)
    ws.apply({"status": "closed", "merged_into": target})
    ws.save()
    wt = _Writer(target, actor, "merge")
    wt.comment(comment, public=False)
    wt.event(kind="merge", field="merged", new=str(source.public_id))
    wt.save()
    return target


@transaction.atomic
def tickets_bulk_update(*, tickets, actor: User, changes: dict, comment: str = "", public: bool = True) -> list:
    """The same changes on several tickets: all of them or none (the first refusal names its ticket)."""
    _require_agent(actor, "update tickets")
    tickets = list(tickets)
    if not tickets:
        raise ValidationError("Select at least one ticket.", code="no_tickets")
    if len(tickets) > 100:
        raise ValidationError("Bulk updates are limited to 100 tickets at a time.", code="too_many")
    for t in tickets:
        try:
            _update(t, actor=actor, changes=changes, comment=comment, public=public, via="bulk")
        except ValidationError as exc:
            raise ValidationError(
                f"Ticket #{t.public_id}: {' '.join(exc.messages)} No ticket was changed.",
                code=getattr(exc, "code", None),
            ) from None
    return tickets


# --- macros ---------------------------------------------------------------------------------


def _macro_changes(macro_actions, *, ticket, agent) -> tuple[dict, str, bool]:
    """A macro's (or rule's) actions as ticket_update changes, the comment text and its visibility."""
    changes, body, public = {}, "", True
    for a in macro_actions:
        field, value = a.get("field"), a.get("value")
        if field in ("status", "priority", "type", "refund_type", "product", "order_number"):
            changes[field] = value
        elif field == "group":
            changes["group"] = Group.objects.filter(name=value).first() if value else None
            if value and changes["group"] is None:
                raise ValidationError(f"The group '{value}' no longer exists.", code="bad_group")
        elif field == "assignee":
            if value == "current_user":
                changes["assignee"] = agent
            elif value:
                changes["assignee"] = User.objects.filter(email__iexact=value).exclude(role=User.Role.END_USER).first()
                if changes["assignee"] is None:
                    raise ValidationError(f"The agent '{value}' no longer exists.", code="bad_assignee")
            else:
                changes["assignee"] = None
        elif field in ("add_tags", "remove_tags", "set_tags"):
            changes["tags" if field == "set_tags" else field] = str(value).split()
        elif field == "comment_value":
            body = selectors.render_placeholders(str(value), ticket=ticket, agent=agent)
        elif field == "comment_mode":
            public = value != "internal"
    return changes, body, public


def macro_apply(*, ticket: Ticket, macro: Macro, actor: User, values: dict) -> dict:
    """The ticket form's values after applying `macro` to `values` (what the agent sees); saves nothing.

    `values` and the result are in the form's shape: assignee/group as public ids (text),
    tags as one space-separated string, comment text, comment_mode.
    """
    _require_agent(actor, "apply macros")
    if not macro.active:
        raise ValidationError(f"The macro '{macro.title}' is no longer active.", code="macro_inactive")
    changes, body, public = _macro_changes(macro.actions, ticket=ticket, agent=actor)
    out = dict(values)
    for field, value in changes.items():
        if field in ("assignee", "group"):
            out[field] = str(value.public_id) if value is not None else ""
        elif field == "tags":
            out["tags"] = " ".join(value)
        elif field in ("add_tags", "remove_tags"):
            tags = str(out.get("tags", "")).split()
            if field == "add_tags":
                tags += [t for t in value if t not in tags]
            else:
                tags = [t for t in tags if t not in value]
            out["tags"] = " ".join(tags)
        else:
            out[field] = value
    if body:
        existing = str(out.get("comment", "") or "").strip()
        out["comment"] = f"{existing}\n\n{body}" if existing else body
        out["comment_mode"] = "public" if public else "internal"
    return out


@transaction.atomic
def macro_submit(*, ticket: Ticket, macro: Macro, actor: User) -> Ticket:
    """Apply `macro` and save at once (the product's 'apply and submit')."""
    _require_agent(actor, "apply macros")
    if not macro.active:
        raise ValidationError(f"The macro '{macro.title}' is no longer active.", code="macro_inactive")
    changes, body, public = _macro_changes(macro.actions, ticket=ticket, agent=actor)
    _update(ticket, actor=actor, changes=changes, comment=body, public=public, via="macro", rule=macro.title)
    Macro.objects.filter(pk=macro.pk).update(usage_count=macro.usage_count + 1)
    return ticket


# --- triggers and automations -------------------------------------------------------------------


def _rule_actions(w: "_Writer", rule, kind: str, ctx) -> dict:
    """Apply a trigger's or automation's actions to w.ticket; returns the changes made."""
    notify = [a for a in rule.actions if a.get("field") in ("notify_requester", "notify_assignee", "notify_group")]
    other = [a for a in rule.actions if a not in notify]
    changes, body, public = _macro_changes(other, ticket=w.ticket, agent=None)
    changed = _normalize(w.ticket, changes, None) if changes else {}
    diff = w.apply(changed, via=kind, rule=rule.title, actor=None) if changed else {}
    if body:
        # rules speak as the desk: the ticket's assignee, or the first administrator
        author = w.ticket.assignee or User.objects.filter(role=User.Role.ADMIN).order_by("public_id").first()
        w.comment(body, public=public, author=author, via=kind, rule=rule.title)
    for a in notify:
        to = {
            "notify_requester": w.ticket.requester.email,
            "notify_assignee": w.ticket.assignee.email if w.ticket.assignee_id else "",
            "notify_group": w.ticket.group.name if w.ticket.group_id else "",
        }[a["field"]]
        if to:
            w.event(
                kind="notification",
                field=a["field"].removeprefix("notify_"),
                new=f"{to}: {selectors.render_placeholders(str(a.get('value', '')), ticket=w.ticket, agent=None)}",
                via=kind,
                rule=rule.title,
                actor=None,
            )
    return diff


def _triggers_run(w: "_Writer", ctx) -> None:
    """Run the active triggers in order; after one fires, start over; each fires at most once."""
    triggers = list(Trigger.objects.filter(active=True).order_by("position", "public_id"))
    fired = set()
    progress = True
    while progress:
        progress = False
        for trig in triggers:
            if trig.public_id in fired or not conditions.matches(w.ticket, trig.conditions, ctx):
                continue
            fired.add(trig.public_id)
            try:
                with transaction.atomic():
                    diff = _rule_actions(w, trig, "trigger", ctx)
            except ValidationError as exc:
                # a misconfigured trigger must not block the agent's update: log it instead
                w.event(
                    kind="rule_error",
                    field="trigger",
                    new=" ".join(exc.messages),
                    via="trigger",
                    rule=trig.title,
                    actor=None,
                )
                continue
            ctx.changes.update(diff)
            progress = True
            break
    w.save()


@transaction.atomic
def automations_run() -> int:
    """Evaluate the time-based automations on the world clock; returns how many actions fired."""
    now = clock.now()
    fired = 0
    for auto in Automation.objects.filter(active=True).order_by("position", "public_id"):
        query = conditions.to_q(auto.conditions, agent=None, now=now)
        for ticket in (
            Ticket.objects.filter(query, merged_into__isnull=True)
            .exclude(status="closed")
            .select_related("requester", "assignee", "group")
            .order_by("public_id")
        ):
            # fire once per ticket until the ticket changes again
            if TicketEvent.objects.filter(
                ticket=ticket, via="automation", rule=auto.title, created_at__gte=ticket.updated_at
            ).exists():
                continue
            w = _Writer(ticket, None, "automation", auto.title)
            try:
                with transaction.atomic():
                    _rule_actions(w, auto, "automation", conditions.Context(now=now))
                    w.save()
            except ValidationError as exc:
                w.event(kind="rule_error", field="automation", new=" ".join(exc.messages), actor=None)
                continue
            fired += 1
    return fired


def clock_advance(*, seconds: float) -> None:
    """Move the bound world's clock forward (its automations run through on_clock_advance)."""
    world_clock_advance(world=current_world(), seconds=seconds)


# --- refunds -------------------------------------------------------------------------------


def _amount(value) -> Decimal:
    try:
        amount = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise ValidationError(f"'{value}' is not an amount.", code="bad_amount") from None
    if not amount.is_finite():
        raise ValidationError(f"'{value}' is not an amount.", code="bad_amount")
    if amount <= 0:
        raise ValidationError("The refund amount must be greater than zero.", code="bad_amount")
    if amount != amount.quantize(policies.CENT):
        raise ValidationError("Amounts have at most two decimals.", code="bad_amount")
    return amount.quantize(policies.CENT)


@transaction.atomic
def refund_issue(
    *,
    agent: User,
    payment: Payment,
    amount,
    currency: str,
    kind: str,
    reason: str,
    ticket: Ticket | None = None,
    note: str = "",
    via: str = "web",
) -> Refund:
    """Refund (part of) a payment back to its card, within the refund policy."""
    _require_agent(agent, "issue refunds")
    if not isinstance(payment, Payment):
        raise ValidationError("Unknown payment.", code="unknown_payment")
    # lock the payment's refunds: two refunds at once must not both pass the remaining check
    payment = (
        Payment.objects.select_for_update(of=("self",))
        .select_related("customer", "order", "subscription")
        .get(pk=payment.pk)
    )
    money = lambda v: policies.money(v, payment.currency)  # noqa: E731
    # the payment's own state first: no amount can be right for a failed or spent payment
    if payment.status != Payment.Status.SUCCEEDED:
        raise ValidationError(
            f"Payment {payment.public_id} did not succeed: there is nothing to refund.", code="payment_failed"
        )
    refunded = selectors.refunded_total(payment)
    remaining = payment.amount - refunded
    if remaining <= 0:
        raise ValidationError(
            f"Payment {payment.public_id} is already fully refunded ({money(refunded)}).", code="already_refunded"
        )
    amount = _amount(amount)
    _choice("refund kind", kind, Refund.Kind.choices)
    _choice("reason", reason, Refund.Reason.choices)
    note = (note or "").strip()
    if len(note) > 500:
        raise ValidationError("The note is limited to 500 characters.", code="bad_note")
    if currency != payment.currency:
        raise ValidationError(
            f"Refunds are made in the payment's currency ({payment.currency}), not {currency}.",
            code="currency_mismatch",
        )
    if ticket is not None and payment.customer_id != ticket.requester_id:
        raise ValidationError(
            f"Payment {payment.public_id} belongs to another customer than the requester of ticket "
            f"#{ticket.public_id}: "
            "refunds go only to the requester's own orders.",
            code="not_requesters_payment",
        )
    if amount > remaining:
        raise ValidationError(
            f"{money(amount)} is more than can still be refunded on payment {payment.public_id}: {money(remaining)} "
            f"({money(refunded)} of {money(payment.amount)} already refunded).",
            code="over_remaining",
        )
    now = clock.now()
    if kind == Refund.Kind.FULL and amount != remaining:
        raise ValidationError(
            f"A full refund is the whole remaining amount, {money(remaining)}; choose Partial for less.",
            code="bad_kind",
        )
    if kind == Refund.Kind.PARTIAL and amount == remaining:
        raise ValidationError("This is the whole remaining amount: choose Full refund.", code="bad_kind")
    if kind == Refund.Kind.PRORATED:
        if payment.subscription_id is None or payment.period_end is None:
            raise ValidationError("Prorated refunds are only for subscription payments.", code="bad_kind")
        most = min(
            remaining,
            policies.prorated_amount(
                price=payment.amount, period_start=payment.period_start, period_end=payment.period_end, at=now
            ),
        )
        if most <= 0:
            raise ValidationError("The period of this payment is over: nothing is left to prorate.", code="bad_kind")
        if amount > most:
            days_left = max(0, (payment.period_end - now).days)
            raise ValidationError(
                f"A prorated refund can be at most {money(most)} ({days_left} of "
                f"{(payment.period_end - payment.period_start).days} days left in the period).",
                code="over_prorated",
            )
    policy = policies.refund_policy()
    escalated = selectors.is_tier2(agent)
    if not escalated and (now - payment.captured_at).days > policy.window_days:
        raise ValidationError(
            f"Payment {payment.public_id} is older than the {policy.window_days}-day refund window: "
            f"escalate the ticket to {policies.ESCALATION_GROUP}.",
            code="outside_window",
        )
    limit = policy.limit_for(agent=agent, customer=payment.customer, currency=payment.currency, escalated=escalated)
    if limit is not None and refunded + amount > limit:
        total = f" ({money(refunded + amount)} in total on this payment)" if refunded else ""
        advice = f"escalate the ticket to {policies.ESCALATION_GROUP}" if not escalated else "ask an administrator"
        raise ValidationError(
            f"{money(amount)}{total} is above your refund limit of {money(limit)}: {advice}.", code="over_limit"
        )

    n = Refund.objects.filter(payment=payment).count()
    refund = Refund.objects.create(
        public_id=_token("re_", payment.public_id, n + 1, amount),
        payment=payment,
        amount=amount,
        currency=payment.currency,
        kind=kind,
        reason=reason,
        note=note,
        agent=agent,
        ticket=ticket,
        created_at=now,
    )
    if payment.order_id:
        _order_status_after_refund(payment.order)
    if kind == Refund.Kind.PRORATED:
        Subscription.objects.filter(pk=payment.subscription_id).update(
            status=Subscription.Status.CANCELLED, cancelled_at=now
        )
    if ticket is not None:
        w = _Writer(ticket, agent, via if via in TicketEvent.Via.values else "web")
        w.event(kind="refund", field="refund", new=f"{money(amount)} on {payment.public_id} ({kind}, {reason})")
        w.save()
    return refund


def _order_status_after_refund(order: Order) -> None:
    paid = sum((p.amount for p in order.payments.filter(status=Payment.Status.SUCCEEDED)), Decimal(0))
    refunded = sum((r.amount for r in Refund.objects.filter(payment__order=order)), Decimal(0))
    net = paid - refunded
    if net <= 0:
        order.status = Order.Status.REFUNDED
    elif net < order.total:
        order.status = Order.Status.PARTIALLY_REFUNDED
    else:
        return  # e.g. a duplicate charge refunded: what was bought is still paid for once
    order.save(update_fields=["status"])


# --- identity and account repairs ---------------------------------------------------------------


def _require_customer(customer):
    if not isinstance(customer, User) or customer.role != User.Role.END_USER:
        raise ValidationError("Account actions are for customers' accounts.", code="not_customer")


def _ticket_of(ticket, customer):
    if ticket is not None and ticket.requester_id != customer.pk:
        raise ValidationError(f"Ticket #{ticket.public_id} was not requested by {customer.name}.", code="not_requester")


@transaction.atomic
def identity_verify(
    *, agent: User, customer: User, method: str, value: str, ticket: Ticket | None = None
) -> IdentityVerification:
    """Record that `customer` proved who they are (card's last 4 digits, or one of their order numbers)."""
    _require_agent(agent, "verify identities")
    _require_customer(customer)
    _ticket_of(ticket, customer)
    _choice("verification method", method, IdentityVerification.Method.choices)
    value = (value or "").strip()
    if method == IdentityVerification.Method.CARD_LAST4:
        if not re.fullmatch(r"\d{4}", value):
            raise ValidationError("Enter the last 4 digits of the card (4 digits).", code="bad_evidence")
        card = Payment.objects.filter(customer=customer, card_last4=value).order_by("-captured_at").first()
        if card is None:
            raise ValidationError(
                f"{value} does not match the last 4 digits of any card {customer.name} paid with. Identity not "
                "verified.",
                code="verification_failed",
            )
        evidence = f"{card.card_brand} •••• {value}"
    else:
        value = value.upper()
        if not ORDER_NUMBER.match(value):
            raise ValidationError("Enter an order number like ORD-48213.", code="bad_evidence")
        if not Order.objects.filter(customer=customer, public_id=value).exists():
            raise ValidationError(
                f"{value} is not an order of {customer.name}. Identity not verified.", code="verification_failed"
            )
        evidence = value
    now = clock.now()
    record = IdentityVerification.objects.create(
        public_id=_Ids(IdentityVerification, 100000).next(),
        customer=customer,
        agent=agent,
        ticket=ticket,
        method=method,
        evidence=evidence,
        created_at=now,
    )
    if ticket is not None:
        w = _Writer(ticket, agent, "web")
        w.event(
            kind="verification",
            field="identity",
            new=f"{customer.email} verified by {record.get_method_display().lower()}",
        )
        w.save()
    return record


def _account_action(*, agent, customer, ticket, action, detail, apply):
    _require_agent(agent, "change customers' accounts")
    _require_customer(customer)
    _ticket_of(ticket, customer)
    if selectors.identity_verification_current(customer) is None:
        raise ValidationError(
            f"Verify {customer.name}'s identity first (last 4 digits of a card on file, or an order number); "
            f"a verification counts for {policies.VERIFICATION_VALID_HOURS} hours.",
            code="verification_required",
        )
    apply(customer)
    now = clock.now()
    customer.save()
    AccountEvent.objects.create(
        public_id=_Ids(AccountEvent, 500000).next(),
        customer=customer,
        agent=agent,
        ticket=ticket,
        action=action,
        detail=detail,
        created_at=now,
    )
    if ticket is not None:
        w = _Writer(ticket, agent, "web")
        w.event(kind="account", field=action, new=customer.email)
        w.save()
    return customer


@transaction.atomic
def password_reset(*, agent: User, customer: User, ticket: Ticket | None = None) -> User:
    """Send the customer a password-reset link (after identity verification)."""

    def apply(c):
        c.password_reset_at = clock.now()

    return _account_action(
        agent=agent,
        customer=customer,
        ticket=ticket,
        action="password_reset",
        detail=f"Reset link sent to {customer.email}",
        apply=apply,
    )


@transaction.atomic
def account_unlock(*, agent: User, customer: User, ticket: Ticket | None = None) -> User:
    """Unlock a customer's account locked after failed sign-ins (after identity verification)."""
    if isinstance(customer, User) and customer.locked_at is None:
        raise ValidationError(f"{customer.name}'s account is not locked.", code="not_locked")

    def apply(c):
        c.locked_at, c.failed_logins = None, 0

    return _account_action(
        agent=agent,
        customer=customer,
        ticket=ticket,
        action="account_unlock",
        detail="Unlocked; failed sign-ins reset",
        apply=apply,
    )


@transaction.atomic
def twofactor_reset(*, agent: User, customer: User, ticket: Ticket | None = None) -> User:
    """Remove a customer's second factor so they can enrol again (after identity verification)."""
    if isinstance(customer, User) and not customer.twofactor_enabled:
        raise ValidationError(f"{customer.name} has no two-factor authentication to reset.", code="no_twofactor")
    method = customer.twofactor_method

    def apply(c):
        c.twofactor_enabled, c.twofactor_method = False, ""

    return _account_action(
        agent=agent,
        customer=customer,
        ticket=ticket,
        action="twofactor_reset",
        detail=f"Removed {method or 'second factor'}",
        apply=apply,
    )
