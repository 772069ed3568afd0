"""The search syntax: field filters, comparisons, negation, quoted text, dates; clear errors."""

import pytest
from django.core.exceptions import ValidationError

from replicas.supportdesk import selectors
from replicas.supportdesk.conditions import PRIORITY_ORDER
from replicas.supportdesk.models import Comment, Ticket
from replicas.supportdesk.search import Term, parse
from replicas.worlds import clock

from .domain_helpers import front_line_agent

pytestmark = pytest.mark.django_db


def found(query, agent=None):
    return set(selectors.tickets_search(query, agent=agent or front_line_agent()).values_list("public_id", flat=True))


def test_parse_splits_fields_comparisons_negations_and_quoted_text():
    assert parse(
        'status:open requester:ana@x.com tags:billing priority>normal "free text" -tags:spam word group:"Tier '
        '2 Billing"'
    ) == [
        Term("status", ":", "open"),
        Term("requester", ":", "ana@x.com"),
        Term("tags", ":", "billing"),
        Term("priority", ">", "normal"),
        Term("", ":", "free text"),
        Term("tags", ":", "spam", negated=True),
        Term("", ":", "word"),
        Term("group", ":", "Tier 2 Billing"),
    ]


def test_the_issue_example_query_matches_exactly_the_tickets_it_describes(in_world):
    ticket = (
        Ticket.objects.filter(status="open", tags__icontains='"billing"')
        .select_related("requester")
        .order_by("public_id")
        .first()
    )
    Ticket.objects.filter(pk=ticket.pk).update(priority="urgent")
    word = ticket.subject.split()[0]
    expected = {
        t.public_id
        for t in Ticket.objects.filter(status="open", requester=ticket.requester, priority__in=["high", "urgent"])
        if "billing" in t.tags
        and (word.lower() in t.subject.lower() or Comment.objects.filter(ticket=t, body__icontains=word).exists())
    }
    assert ticket.public_id in expected
    assert found(f'status:open requester:{ticket.requester.email} tags:billing priority>normal "{word}"') == expected


def test_each_field_filter_agrees_with_the_database(in_world):
    agent = front_line_agent()
    all_ids = set(Ticket.objects.values_list("public_id", flat=True))
    assert found("status<solved") == set(
        Ticket.objects.filter(status__in=["new", "open", "pending", "hold"]).values_list("public_id", flat=True)
    )
    assert found("priority>=high") == set(
        Ticket.objects.filter(priority__in=PRIORITY_ORDER[3:]).values_list("public_id", flat=True)
    )
    assert found("assignee:none") == set(
        Ticket.objects.filter(assignee__isnull=True).values_list("public_id", flat=True)
    )
    assert found("assignee:me", agent) == set(Ticket.objects.filter(assignee=agent).values_list("public_id", flat=True))
    assert found('group:"tier 2 billing"') == set(
        Ticket.objects.filter(group__name="Tier 2 Billing").values_list("public_id", flat=True)
    )
    assert found("-tags:billing") == all_ids - {t.public_id for t in Ticket.objects.all() if "billing" in t.tags}
    assert found("channel:chat") == set(Ticket.objects.filter(channel="chat").values_list("public_id", flat=True))
    some = Ticket.objects.exclude(order_number="").first()
    assert found(f"order:{some.order_number.lower()}") == set(
        Ticket.objects.filter(order_number=some.order_number).values_list("public_id", flat=True)
    )
    assert found(f"#{some.public_id}") >= {some.public_id}


def test_dates_absolute_and_relative_to_the_world_clock(in_world):
    day = clock.now().date().isoformat()
    assert found(f"created:{day}") == {
        t.public_id for t in Ticket.objects.all() if t.created_at.date().isoformat() == day
    }
    recent = found("updated<2days")
    from datetime import timedelta

    assert recent == set(
        Ticket.objects.filter(updated_at__gt=clock.now() - timedelta(days=2)).values_list("public_id", flat=True)
    )


def test_free_text_matches_comment_bodies(in_world):
    comment = Comment.objects.filter(body__icontains="photo").first()
    assert comment.ticket.public_id in found("photo")


@pytest.mark.parametrize(
    "query, message",
    [
        ("colour:red", "Unknown search field 'colour'"),
        ("status:done", "Unknown status 'done'"),
        ("priority>extreme", "Unknown priority 'extreme'"),
        ("created>yesterday", "Bad date 'yesterday'"),
        ("tags>billing", "'tags' takes ':' only"),
        ("id:abc", "Ticket ids are numbers"),
    ],
)
def test_bad_queries_are_refused_with_a_message_naming_the_problem(in_world, query, message):
    with pytest.raises(ValidationError, match=message):
        selectors.tickets_search(query, agent=front_line_agent())
