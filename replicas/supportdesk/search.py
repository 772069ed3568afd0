"""The product's ticket search syntax: `status:open requester:ana@x.com tags:billing
priority>normal created>2026-03-01 -tags:spam "free text" #8001`.

A query is parsed into terms, then compiled into one queryset filter. Bad input (an
unknown field, an unknown status, a bad date) is refused with a message naming it.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef, Q

from .conditions import PRIORITY_ORDER, STATUS_ORDER

TOKEN = re.compile(
    r'\s*(?:(?P<neg>-)?(?P<key>[a-z_]+)(?P<op><=|>=|:|<|>)(?:"(?P<qval>[^"]*)"|(?P<val>\S+))'
    r'|"(?P<phrase>[^"]*)"|(?P<word>\S+))'
)
KEYS = {
    "status",
    "priority",
    "type",
    "channel",
    "via",
    "requester",
    "assignee",
    "group",
    "organization",
    "tags",
    "tag",
    "subject",
    "order",
    "order_number",
    "refund_type",
    "product",
    "created",
    "updated",
    "solved",
    "ticket_id",
    "id",
}
RELATIVE = re.compile(r"^(\d+)(minutes?|hours?|days?|weeks?)$")
UNITS = {"minute": 60, "hour": 3600, "day": 86400, "week": 604800}


@dataclass(frozen=True)
class Term:
    key: str  # "" for free text
    op: str
    value: str
    negated: bool = False


def parse(query: str) -> list[Term]:
    if len(query) > 500:
        raise ValidationError("Search queries are limited to 500 characters.")
    terms = []
    for m in TOKEN.finditer(query):
        if m.group("key"):
            key = m.group("key")
            if key not in KEYS:
                raise ValidationError(f"Unknown search field '{key}'. Known fields: {', '.join(sorted(KEYS))}.")
            value = m.group("qval") if m.group("qval") is not None else m.group("val")
            terms.append(Term(key, m.group("op"), value, bool(m.group("neg"))))
        elif m.group("phrase") is not None:
            if m.group("phrase").strip():
                terms.append(Term("", ":", m.group("phrase").strip()))
        elif m.group("word"):
            terms.append(Term("", ":", m.group("word")))
    return terms


def _ordered(name, order, op, value):
    if value not in order or value == "":
        raise ValidationError(f"Unknown {name} '{value}'. Use one of: {', '.join(v for v in order if v)}.")
    i = order.index(value)
    chosen = {":": [value], "<": order[:i], ">": order[i + 1 :], "<=": order[: i + 1], ">=": order[i:]}[op]
    return Q(**{f"{name}__in": chosen})


def _moment(value: str, now: datetime) -> tuple[datetime, datetime]:
    """The instant range a date term means: a whole day for 2026-03-01, a point for 3days."""
    m = RELATIVE.match(value)
    if m:
        unit = m.group(2).rstrip("s")
        at = now - timedelta(seconds=int(m.group(1)) * UNITS[unit])
        return at, at
    try:
        day = datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError:
        raise ValidationError(
            f"Bad date '{value}': write YYYY-MM-DD or a relative time like 3days or 4hours."
        ) from None
    start = datetime.combine(day, time(0), tzinfo=UTC)
    return start, start + timedelta(days=1)


def _date(column, op, value, now):
    start, end = _moment(value, now)
    relative = start == end
    if op == ":":
        return Q(**{f"{column}__gte": start, f"{column}__lt": end}) if not relative else Q(**{f"{column}__gte": start})
    if relative:
        # created<3days: less than 3 days ago, i.e. after that moment
        return {
            "<": Q(**{f"{column}__gt": start}),
            "<=": Q(**{f"{column}__gte": start}),
            ">": Q(**{f"{column}__lt": start}),
            ">=": Q(**{f"{column}__lte": start}),
        }[op]
    return {
        "<": Q(**{f"{column}__lt": start}),
        "<=": Q(**{f"{column}__lt": end}),
        ">": Q(**{f"{column}__gte": end}),
        ">=": Q(**{f"{column}__gte": start}),
    }[op]


def _person(column, value, agent):
    if value == "me":
        return Q(**{column: agent})
    if value == "none":
        return Q(**{f"{column}__isnull": True})
    if "@" in value:
        return Q(**{f"{column}__email__iexact": value})
    return Q(**{f"{column}__name__icontains": value})


def _term_q(term: Term, *, agent, now) -> Q:
    from .models import Comment

    key, op, value = term.key, term.op, term.value
    if key == "":
        number = value.lstrip("#")
        text = (
            Q(subject__icontains=value)
            | Q(requester__name__icontains=value)
            | Q(requester__email__icontains=value)
            | Q(order_number__iexact=value)
        )
        text |= Exists(Comment.objects.filter(ticket=OuterRef("pk"), body__icontains=value))
        if number.isdigit():
            text |= Q(public_id=int(number))
        return text
    if op != ":" and key not in ("status", "priority", "created", "updated", "solved", "ticket_id", "id"):
        raise ValidationError(f"'{key}' takes ':' only, not '{op}'.")
    if key == "status":
        return _ordered("status", STATUS_ORDER, op, value)
    if key == "priority":
        if value == "none" and op == ":":
            return Q(priority="")
        return _ordered("priority", PRIORITY_ORDER, op, value)
    if key in ("created", "updated", "solved"):
        return _date({"created": "created_at", "updated": "updated_at", "solved": "solved_at"}[key], op, value, now)
    if key in ("ticket_id", "id"):
        if not value.lstrip("#").isdigit():
            raise ValidationError(f"Ticket ids are numbers, not '{value}'.")
        n = int(value.lstrip("#"))
        return {
            ":": Q(public_id=n),
            "<": Q(public_id__lt=n),
            ">": Q(public_id__gt=n),
            "<=": Q(public_id__lte=n),
            ">=": Q(public_id__gte=n),
        }[op]
    if key in ("requester", "assignee"):
        return _person(key, value, agent)
    if key in ("tags", "tag"):
        return Q(tags__icontains=f'"{value}"')
    if key == "group":
        return Q(group__isnull=True) if value == "none" else Q(group__name__iexact=value)
    if key == "organization":
        return Q(organization__isnull=True) if value == "none" else Q(organization__name__icontains=value)
    if key == "subject":
        return Q(subject__icontains=value)
    if key in ("order", "order_number"):
        return Q(order_number__iexact=value)
    if key in ("channel", "via"):
        return Q(channel=value)
    return Q(**{key: "" if value == "none" else value})


def ticket_filter(query: str, *, agent, now) -> Q:
    q = Q()
    for term in parse(query):
        part = _term_q(term, agent=agent, now=now)
        q &= ~part if term.negated else part
    return q
