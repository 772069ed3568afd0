"""The support desk's data faults: applied at world creation (or, for stale_record, when
triggered) by the desk's appliers in replicas/supportdesk/faults.py."""

import re

import pytest
from django.test import Client

from replicas.supportdesk.models import Comment, Order, Ticket, TicketEvent
from replicas.worlds.faults import FaultSpecError, fault_events, recovery_outcomes, world_data_fault
from replicas.worlds.models import FaultProgress, World
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_for():
    def make(world):
        return Client(HTTP_HOST=f"w-{world.token}.localhost:8000")

    return make


def test_data_conflict_leaves_an_order_both_fulfilled_and_cancelled(make_world):
    world = make_world(faults=[{"name": "data_conflict"}])
    [applied] = fault_events(world=world)
    assert (applied["event"], applied["at_request"], applied["detail"]["model"]) == ("applied", 0, "order")
    with bound_world(world):
        order = Order.objects.get(public_id=applied["detail"]["record"])
        assert (
            order.status == "cancelled" and order.fulfilled_at is not None and order.cancelled_at > order.fulfilled_at
        )
        assert applied["detail"]["tickets"] == sorted(
            Ticket.objects.filter(order_number=order.public_id).values_list("public_id", flat=True)
        )
    assert world.state_hash != world.template.state_hash  # the state at creation includes the fault
    assert recovery_outcomes([applied]) == [
        {"index": 0, "fault": "data_conflict", "fired": False, "recovered": None, "counted": False}
    ]


def test_data_faults_pick_the_same_records_in_every_world_of_a_seed(make_world):
    faults = [{"name": "data_conflict"}, {"name": "legacy_format", "params": {"count": 4}}, {"name": "ambiguous_field"}]
    a, b = make_world(faults=faults), make_world(faults=faults)
    assert a.state_hash == b.state_hash
    assert fault_events(world=a) == fault_events(world=b)


def test_data_conflict_can_name_its_order(make_world):
    template = make_world()
    with bound_world(template):
        target = Order.objects.filter(status="fulfilled").order_by("-public_id").first().public_id
    world = make_world(faults=[{"name": "data_conflict", "params": {"record": target}}])
    assert fault_events(world=world)[0]["detail"]["record"] == target


@pytest.mark.parametrize(
    "fmt, pattern",
    [
        ("us_short", r"\d\d/\d\d/\d\d \d\d:\d\d [AP]M"),
        ("dmy_dots", r"\d\d\.\d\d\.20\d\d \d\d:\d\d"),
        ("oracle", r"\d\d-[A-Z]{3}-\d\d \d\d\.\d\d"),
    ],
)
def test_legacy_format_writes_dates_in_the_old_format(make_world, fmt, pattern):
    world = make_world(faults=[{"name": "legacy_format", "params": {"format": fmt, "count": 3}}])
    detail = fault_events(world=world)[0]["detail"]
    assert len(detail["records"]) == 3
    with bound_world(world):
        for ticket in Ticket.objects.filter(public_id__in=detail["records"]):
            assert re.fullmatch(pattern, ticket.imported_date) and "imported" in ticket.tags
            assert detail["values"][str(ticket.public_id)] == ticket.imported_date


def test_ambiguous_field_is_read_by_pages_and_changes_no_rows(make_world, world):
    assert world_data_fault(world, "ambiguous_field") is None
    faulty = make_world(faults=[{"name": "ambiguous_field"}])
    detail = world_data_fault(faulty, "ambiguous_field")
    assert detail["labels"] == {"partial": "Partial", "prorated": "Prorated"} and detail["help_text"] == ""
    assert faulty.state_hash == world.state_hash


def test_stale_record_changes_its_ticket_on_the_refresh_and_not_before(make_world, client_for):
    world = make_world(faults=[{"name": "stale_record"}])
    assert fault_events(world=world) == []
    detail = FaultProgress.objects.get(world=world).detail
    number = detail["record"]
    assert detail["route"] == f"^/agent/tickets/{number}$"
    with bound_world(world):
        before = Ticket.objects.get(public_id=number)
        comments = Comment.objects.filter(ticket=before).count()
    client = client_for(world)
    client.get(f"/agent/tickets/{number}")  # first visit: unchanged
    client.get(f"/agent/tickets/{number + 1}")  # another ticket does not count
    with bound_world(world):
        assert Ticket.objects.get(public_id=number).status == before.status
    client.get(f"/agent/tickets/{number}")  # the refresh: someone else has taken it over
    [fired] = fault_events(world=world)
    assert (fired["event"], fired["at_request"], fired["route"]) == ("fired", 3, f"/agent/tickets/{number}")
    with bound_world(world):
        after = Ticket.objects.get(public_id=number)
        assert after.status == "pending" and after.assignee.public_id == fired["detail"]["by"]
        assert after.assignee_id != before.assignee_id
        assert after.updated_at == world.clock
        assert Comment.objects.filter(ticket=after).count() == comments + 1
        assert set(
            TicketEvent.objects.filter(ticket=after, created_at=world.clock).values_list("field", flat=True)
        ) == {"status", "assignee"}
    client.get(f"/agent/tickets/{number}")
    assert len(fault_events(world=world)) == 1  # once only


def test_a_data_conflict_naming_a_missing_order_creates_no_world(make_world):
    make_world()  # the template exists: only the clone could be left behind
    before = World.objects.count()
    with pytest.raises(
        FaultSpecError, match=r"faults\[0\]\.params: record: no suitable fulfilled order 'ORD-0' in this world"
    ):
        make_world(faults=[{"name": "data_conflict", "params": {"record": "ORD-0"}}])
    assert World.objects.count() == before
