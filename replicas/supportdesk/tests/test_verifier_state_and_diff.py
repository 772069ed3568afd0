"""State and diff assertions over snapshots of a real support desk world, changed by hand: its
tickets carry what the testbed's notes lack (several statuses, tag lists, child comments with
their own flags), so the verifier's field kinds and diff rules are exercised here."""

import pytest

from replicas.supportdesk.models import Comment, Ticket, User
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot
from verifiers.engine import collateral_changes, verify
from verifiers.inputs import VerifierInputs

pytestmark = pytest.mark.django_db


class Desk:
    """A support desk world with its initial snapshot; `inputs()` snapshots it again as the final state."""

    def __init__(self, world):
        self.world = world
        self.initial = snapshot(world)

    def bound(self):
        return bound_world(self.world)

    def ticket(self, **filters):
        with self.bound():
            return Ticket.objects.filter(**filters).order_by("public_id").first()

    def update_ticket(self, public_id, **values):
        with self.bound():
            Ticket.objects.filter(public_id=public_id).update(**values)

    def inputs(self, **kwargs) -> VerifierInputs:
        kwargs.setdefault("clock", self.world.clock.isoformat().replace("+00:00", "Z"))
        return VerifierInputs(initial=self.initial, final=snapshot(self.world), replica="supportdesk", **kwargs)


@pytest.fixture
def desk(world):
    return Desk(world)


def spec(*assertions, **extra):
    return {"assertions": list(assertions), **extra}


def one(verdict):
    (result,) = verdict.assertions
    return result


def solved(ticket="{ticket}", **extra):
    return {
        "name": "solved",
        "kind": "state",
        "table": "supportdesk.ticket",
        "where": {"public_id": ticket},
        "expect": {"count": 1, "fields": {"status": "solved"}},
        **extra,
    }


def test_state_passes_when_the_ticket_is_solved_and_fails_when_not(desk):
    ticket = desk.ticket(status="open")
    assert not verify(spec(solved()), desk.inputs(params={"ticket": ticket.public_id})).passed
    desk.update_ticket(ticket.public_id, status="solved")
    verdict = verify(spec(solved()), desk.inputs(params={"ticket": ticket.public_id}))
    assert verdict.passed and verdict.partial == 1.0
    assert one(verdict)["detail"] == f"1 row(s) of supportdesk.ticket match: {ticket.public_id}"


def test_state_reports_the_field_that_differs(desk):
    ticket = desk.ticket(status="open")
    verdict = verify(spec(solved()), desk.inputs(params={"ticket": ticket.public_id}))
    assert one(verdict)["detail"] == f'supportdesk.ticket {ticket.public_id}: status is "open", expected "solved"'


def test_expected_fields_of_no_matching_row_never_pass_vacuously(desk):
    check = {
        "name": "x",
        "kind": "state",
        "table": "supportdesk.ticket",
        "where": {"public_id": 1},
        "expect": {"fields": {"status": "solved"}},
    }
    assert not verify(spec(check), desk.inputs()).passed


def test_state_counts_exactly_and_in_ranges(desk):
    n_open = sum(1 for r in desk.initial["tables"]["supportdesk.ticket"].values() if r["status"] == "open")
    exact = {
        "name": "n",
        "kind": "state",
        "table": "supportdesk.ticket",
        "where": {"status": "open"},
        "expect": {"count": n_open},
    }
    ranged = {**exact, "name": "r", "expect": {"count": {"min": n_open + 1}}}
    verdict = verify(spec(exact, ranged), desk.inputs())
    assert [a["passed"] for a in verdict.assertions] == [True, False]
    assert verdict.partial == 0.5 and not verdict.passed


def test_a_failing_optional_assertion_does_not_fail_the_verdict(desk):
    ticket = desk.ticket(status="open")
    still_open = {
        "name": "open",
        "kind": "state",
        "table": "supportdesk.ticket",
        "where": {"public_id": ticket.public_id},
        "expect": {"fields": {"status": "open"}},
    }
    verdict = verify(spec(still_open, solved(ticket.public_id, required=False)), desk.inputs())
    assert verdict.passed and verdict.partial == 0.5


def test_text_is_exact_by_default_with_case_and_whitespace_options(desk):
    ticket = desk.ticket(status="open")
    desk.update_ticket(ticket.public_id, subject="  Refund   REQUESTED ")
    base = {"kind": "state", "table": "supportdesk.ticket", "where": {"public_id": ticket.public_id}}
    exact = {**base, "name": "exact", "expect": {"fields": {"subject": "refund requested"}}}
    loose = {
        **base,
        "name": "loose",
        "expect": {
            "fields": {"subject": {"eq": "refund requested", "case_insensitive": True, "normalize_whitespace": True}}
        },
    }
    verdict = verify(spec(exact, loose), desk.inputs())
    assert [a["passed"] for a in verdict.assertions] == [False, True]


def test_sets_are_order_free_and_lists_are_not(desk):
    ticket = desk.ticket(status="open")
    desk.update_ticket(ticket.public_id, tags=["vip", "billing"])
    base = {"kind": "state", "table": "supportdesk.ticket", "where": {"public_id": ticket.public_id}}
    checks = [
        {**base, "name": "set", "expect": {"fields": {"tags": {"set": ["billing", "vip"]}}}},
        {**base, "name": "list", "expect": {"fields": {"tags": ["billing", "vip"]}}},
        {**base, "name": "contains", "expect": {"fields": {"tags": {"contains": "vip"}}}},
        {**base, "name": "missing", "expect": {"fields": {"tags": {"contains": ["vip", "refund"]}}}},
    ]
    verdict = verify(spec(*checks), desk.inputs())
    assert [a["passed"] for a in verdict.assertions] == [True, False, True, False]


def test_datetimes_compare_as_instants_dates_and_on_the_world_clock(desk):
    ticket = desk.ticket(status="open")
    clock = desk.world.clock
    from datetime import timedelta

    desk.update_ticket(ticket.public_id, solved_at=clock + timedelta(days=3))
    base = {"kind": "state", "table": "supportdesk.ticket", "where": {"public_id": ticket.public_id}}
    day = (clock + timedelta(days=3)).date().isoformat()
    other_offset = (
        (clock + timedelta(days=3)).astimezone(__import__("zoneinfo").ZoneInfo("America/New_York")).isoformat()
    )
    checks = [
        {**base, "name": "clock", "expect": {"fields": {"solved_at": {"clock": "+3d"}}}},
        {
            **base,
            "name": "clock range",
            "expect": {"fields": {"solved_at": {"gt": {"clock": "+2d"}, "lte": {"clock": "+72h"}}}},
        },
        {**base, "name": "same day", "expect": {"fields": {"solved_at": day}}},
        {**base, "name": "other zone", "expect": {"fields": {"solved_at": other_offset}}},
        {
            **base,
            "name": "tolerance",
            "expect": {"fields": {"solved_at": {"eq": {"clock": "+3d1h"}, "tolerance": "90m"}}},
        },
        {**base, "name": "wrong", "expect": {"fields": {"solved_at": {"clock": "+2d"}}}},
    ]
    verdict = verify(spec(*checks), desk.inputs())
    assert [a["passed"] for a in verdict.assertions] == [True, True, True, True, True, False]


def test_references_compare_by_the_target_public_key(desk):
    ticket = desk.ticket(status="open")
    with desk.bound():
        agent = User.objects.filter(role="agent").order_by("public_id").last()
        Ticket.objects.filter(public_id=ticket.public_id).update(assignee=agent)
    check = {
        "name": "assigned",
        "kind": "state",
        "table": "supportdesk.ticket",
        "where": {"public_id": ticket.public_id},
        "expect": {"fields": {"assignee": agent.public_id}},
    }
    assert verify(spec(check), desk.inputs()).passed


def test_the_right_reply_on_the_wrong_ticket_fails(desk):
    """The tickets/comments form of 'the right amount refunded on the wrong order'."""
    right, wrong = desk.ticket(status="open"), desk.ticket(status="pending")
    with desk.bound():
        author = User.objects.filter(role="admin").first()
        top = max(Comment.objects.values_list("public_id", flat=True))
        Comment.objects.create(
            public_id=top + 1,
            ticket=wrong,
            author=author,
            body="Your refund of $49.99 is on its way.",
            public=True,
            created_at=desk.world.clock,
        )
    check = {
        "name": "replied",
        "kind": "diff",
        "table": "supportdesk.comment",
        "op": "added",
        "where": {"ticket": "{ticket}", "body": {"matches": r"(?<![\d.])49\.99(?![\d])"}},
        "count": 1,
    }
    verdict = verify(spec(check), desk.inputs(params={"ticket": right.public_id}))
    assert not verdict.passed
    assert one(verdict)["detail"] == "0 added row(s) of supportdesk.comment match; expected 1"
    assert verify(spec(check), desk.inputs(params={"ticket": wrong.public_id})).passed


def test_diff_changed_rows_match_on_from_and_to(desk):
    ticket = desk.ticket(status="open")
    desk.update_ticket(ticket.public_id, status="solved")

    def change(frm, to):
        return {
            "name": f"{frm}->{to}",
            "kind": "diff",
            "table": "supportdesk.ticket",
            "op": "changed",
            "where": {"public_id": ticket.public_id},
            "changes": {"status": {"from": frm, "to": to}},
        }

    verdict = verify(
        spec(change("open", "solved"), change("pending", "solved"), change("open", "closed")), desk.inputs()
    )
    assert [a["passed"] for a in verdict.assertions] == [True, False, False]


def test_diff_removed_rows_match_on_their_initial_values(desk):
    ticket = desk.ticket(status="open")
    with desk.bound():
        comment = Comment.objects.filter(ticket=ticket).order_by("public_id").first()
        comment.delete()
    check = {
        "name": "gone",
        "kind": "diff",
        "table": "supportdesk.comment",
        "op": "removed",
        "where": {"ticket": ticket.public_id},
        "count": 1,
    }
    nothing = {"name": "none", "kind": "diff", "table": "supportdesk.comment", "op": "removed", "count": 0}
    verdict = verify(spec(check, nothing), desk.inputs())
    assert [a["passed"] for a in verdict.assertions] == [True, False]


def test_changes_outside_allowed_changes_are_collateral(desk):
    target, other = desk.ticket(status="open"), desk.ticket(status="pending")
    allowed = [
        {
            "table": "supportdesk.ticket",
            "ops": ["changed"],
            "fields": ["status"],
            "where": {"public_id": target.public_id},
        },
        {"table": "supportdesk.ticket", "ops": ["changed"], "fields": ["updated_at"]},
    ]
    only = {"name": "only", "kind": "diff", "only_allowed": True}
    desk.update_ticket(target.public_id, status="solved", updated_at=desk.world.clock)
    verdict = verify(spec(only, allowed_changes=allowed), desk.inputs())
    assert verdict.passed and verdict.collateral_ok and verdict.collateral == []

    new_priority = "low" if other.priority != "low" else "high"
    desk.update_ticket(other.public_id, status="solved", priority=new_priority, updated_at=desk.world.clock)
    verdict = verify(spec(only, allowed_changes=allowed), desk.inputs())
    assert not verdict.passed and not verdict.collateral_ok
    key = str(other.public_id)
    assert {(c["key"], c["field"]) for c in verdict.collateral} == {(key, "status"), (key, "priority")}
    assert verdict.assertions[0]["detail"].startswith("2 change(s) outside allowed_changes")


def test_without_allowed_changes_nothing_is_collateral(desk):
    ticket = desk.ticket(status="open")
    desk.update_ticket(ticket.public_id, status="solved")
    inputs = desk.inputs()
    assert collateral_changes(spec(solved(ticket.public_id)), inputs) == []
    assert collateral_changes(spec(solved(ticket.public_id), allowed_changes=[]), inputs)[0]["field"] == "status"


def test_an_added_row_outside_the_rules_is_collateral(desk):
    ticket = desk.ticket(status="open")
    with desk.bound():
        author = User.objects.filter(role="admin").first()
        top = max(Comment.objects.values_list("public_id", flat=True))
        Comment.objects.create(
            public_id=top + 1, ticket=ticket, author=author, body="note", public=False, created_at=desk.world.clock
        )
    rules = [{"table": "supportdesk.comment", "ops": ["added"], "where": {"public": True}}]
    assert collateral_changes(spec(solved(ticket.public_id), allowed_changes=rules), desk.inputs()) == [
        {"table": "supportdesk.comment", "op": "added", "key": str(top + 1)}
    ]


def test_verify_never_writes_and_leaves_its_inputs_unchanged(desk, django_assert_num_queries):
    import copy

    ticket = desk.ticket(status="open")
    desk.update_ticket(ticket.public_id, status="solved")
    inputs = desk.inputs(params={"ticket": ticket.public_id})
    before = copy.deepcopy(inputs)
    with django_assert_num_queries(0):
        verdict = verify(spec(solved()), inputs)
    assert verdict.passed and inputs == before
