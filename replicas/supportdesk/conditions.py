"""The condition language of views, triggers, automations and SLA policies.

Conditions are {"all": [...], "any": [...]} lists of {"field", "operator", "value"}, as
in the product's admin. They are evaluated on a ticket in Python (triggers,
automations, SLA policies) or compiled to a query (views). Statuses and priorities
compare by their order (status less_than solved = unsolved).
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db.models import Q

STATUS_ORDER = ["new", "open", "pending", "hold", "solved", "closed"]
PRIORITY_ORDER = ["", "low", "normal", "high", "urgent"]
ORDERED = {"status": STATUS_ORDER, "priority": PRIORITY_ORDER}
PLAIN = {"type", "channel", "refund_type", "product", "order_number", "requester_tier"}
HOURS = {"hours_since_created": "created_at", "hours_since_updated": "updated_at", "hours_since_solved": "solved_at"}
CONTEXT_ONLY = {"update_type", "comment_includes_word", "comment_author", "comment_is_public"}
FIELDS = (
    set(ORDERED)
    | PLAIN
    | set(HOURS)
    | CONTEXT_ONLY
    | {"group", "assignee", "requester", "organization", "tags", "requester_tags", "subject"}
)
OPERATORS = {
    "is",
    "is_not",
    "less_than",
    "greater_than",
    "includes",
    "not_includes",
    "present",
    "not_present",
    "changed",
    "changed_to",
    "changed_from",
    "not_changed",
}


@dataclass
class Context:
    """What a trigger sees besides the ticket: the kind of update, its comment, what changed."""

    update_type: str = "updated"  # or "created"
    comment_body: str = ""
    comment_public: bool = True
    comment_author_role: str = ""  # "requester", "agent" or "" (no comment)
    changes: dict = field(default_factory=dict)  # field -> (from, to), as condition values
    agent: object = None  # current_user
    now: object = None


def validate(conditions) -> None:
    """Refuse a malformed condition set with a message naming the bad part."""
    if not isinstance(conditions, dict) or set(conditions) - {"all", "any"}:
        raise ValidationError("conditions must be an object with 'all' and/or 'any' lists")
    for key in ("all", "any"):
        items = conditions.get(key, [])
        if not isinstance(items, list):
            raise ValidationError(f"conditions.{key} must be a list")
        for i, c in enumerate(items):
            if not isinstance(c, dict) or c.get("field") not in FIELDS or c.get("operator") not in OPERATORS:
                raise ValidationError(f"conditions.{key}[{i}]: unknown field or operator in {c!r}")


def _value(ticket, name, agent=None):
    """The ticket's value of a condition field, in the form condition values are written in."""
    if name in ORDERED or name in PLAIN - {"requester_tier"} or name == "subject":
        return getattr(ticket, name) or ""
    if name == "group":
        return ticket.group.name if ticket.group_id else ""
    if name == "assignee":
        return ticket.assignee.email if ticket.assignee_id else ""
    if name == "requester":
        return ticket.requester.email
    if name == "organization":
        return ticket.organization.name if ticket.organization_id else ""
    if name == "requester_tier":
        return ticket.requester.loyalty_tier
    if name == "tags":
        return list(ticket.tags)
    if name == "requester_tags":
        return list(ticket.requester.tags)
    raise ValidationError(f"field {name!r} has no ticket value")


def _compare(name, actual, operator, value, agent):
    if name == "assignee" and value == "current_user":
        value = agent.email if agent is not None else None
    if operator == "present":
        return bool(actual)
    if operator == "not_present":
        return not actual
    if isinstance(actual, list):
        wanted = set(str(value).split())
        if operator == "includes":
            return bool(wanted & set(actual))
        if operator == "not_includes":
            return not wanted & set(actual)
        raise ValidationError(f"{name} takes includes, not_includes, present or not_present")
    if operator in ("less_than", "greater_than"):
        if name in ORDERED:
            order = ORDERED[name]
            a, v = order.index(actual), order.index(value)
        else:
            a, v = actual, value
        return a < v if operator == "less_than" else a > v
    if operator == "is":
        return actual == value
    if operator == "is_not":
        return actual != value
    if operator == "includes":
        return str(value).lower() in str(actual).lower()
    if operator == "not_includes":
        return str(value).lower() not in str(actual).lower()
    raise ValidationError(f"operator {operator!r} does not apply to {name}")


def _check(ticket, c, ctx: Context) -> bool:
    name, operator, value = c["field"], c["operator"], c.get("value")
    if operator in ("changed", "changed_to", "changed_from", "not_changed"):
        change = ctx.changes.get(name)
        if operator == "not_changed":
            return change is None
        if change is None:
            return False
        if name == "assignee" and value == "current_user" and ctx.agent is not None:
            value = ctx.agent.email
        return operator == "changed" or (change[1] if operator == "changed_to" else change[0]) == value
    if name == "update_type":
        return _compare(name, ctx.update_type, operator, value, ctx.agent)
    if name == "comment_includes_word":
        words = str(value).lower().split()
        return any(w in ctx.comment_body.lower() for w in words)
    if name == "comment_author":
        return _compare(name, ctx.comment_author_role, operator, value, ctx.agent)
    if name == "comment_is_public":
        return bool(ctx.comment_author_role) and ctx.comment_public == bool(value)
    if name in HOURS:
        at = getattr(ticket, HOURS[name])
        if at is None:
            return False
        hours = (ctx.now - at).total_seconds() / 3600
        return _compare(name, hours, operator, float(value), ctx.agent)
    return _compare(name, _value(ticket, name), operator, value, ctx.agent)


def matches(ticket, conditions: dict, ctx: Context) -> bool:
    every = conditions.get("all", [])
    some = conditions.get("any", [])
    return all(_check(ticket, c, ctx) for c in every) and (not some or any(_check(ticket, c, ctx) for c in some))


# --- views: the same conditions as a query ------------------------------------------------

_COLUMN = {
    "group": "group__name",
    "requester": "requester__email",
    "organization": "organization__name",
    "requester_tier": "requester__loyalty_tier",
    "assignee": "assignee__email",
}


def _json_includes(column, values) -> Q:
    # JSON lists are stored as text on SQLite and jsonb on PostgreSQL; '"tag"' with its
    # quotes matches one whole element in both text forms.
    q = Q()
    for v in values:
        q |= Q(**{f"{column}__icontains": f'"{v}"'})
    return q


def _q(c, *, agent, now) -> Q:
    name, operator, value = c["field"], c["operator"], c.get("value")
    if name in CONTEXT_ONLY or operator in ("changed", "changed_to", "changed_from", "not_changed"):
        raise ValidationError(f"views cannot use {name} {operator}: it only applies to ticket updates")
    column = _COLUMN.get(name, name)
    if name == "assignee" and value == "current_user":
        return Q(assignee=agent) if operator == "is" else ~Q(assignee=agent)
    if operator in ("present", "not_present"):
        if name in ("assignee", "group", "organization"):
            q = Q(**{f"{name}__isnull": False})
        elif name in ("tags", "requester_tags"):
            q = ~Q(**{"tags" if name == "tags" else "requester__tags": []})
        else:
            q = ~Q(**{column: ""})
        return q if operator == "present" else ~q
    if name in ("tags", "requester_tags"):
        col = "tags" if name == "tags" else "requester__tags"
        q = _json_includes(col, str(value).split())
        return q if operator == "includes" else ~q
    if name in HOURS:
        bound = now - timedelta(hours=float(value))
        col = HOURS[name]
        # hours since X less than N  <=>  X after now - N hours
        if operator == "less_than":
            return Q(**{f"{col}__gt": bound})
        if operator == "greater_than":
            return Q(**{f"{col}__lt": bound})
        raise ValidationError(f"{name} takes less_than or greater_than")
    if operator in ("less_than", "greater_than") and name in ORDERED:
        order = ORDERED[name]
        i = order.index(value)
        chosen = order[:i] if operator == "less_than" else order[i + 1 :]
        return Q(**{f"{column}__in": chosen})
    if operator == "is":
        return Q(**{column: value})
    if operator == "is_not":
        return ~Q(**{column: value})
    if operator == "includes":
        return Q(**{f"{column}__icontains": value})
    if operator == "not_includes":
        return ~Q(**{f"{column}__icontains": value})
    raise ValidationError(f"operator {operator!r} does not apply to {name} in a view")


def to_q(conditions: dict, *, agent, now) -> Q:
    q = Q()
    for c in conditions.get("all", []):
        q &= _q(c, agent=agent, now=now)
    some = conditions.get("any", [])
    if some:
        alt = Q(pk__in=[])
        for c in some:
            alt |= _q(c, agent=agent, now=now)
        q &= alt
    return q
