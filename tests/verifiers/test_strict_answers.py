"""Answers are strict by default: exactly one candidate of the answer's type, and the right one.

A message that lists candidates (every date of two years, every amount of an
invoice) is not an answer. Looser matching is the task's explicit choice, with a
stated reason the validator insists on.
"""

import json
from datetime import date, timedelta

import pytest

from catalogue.packs import PackError, load_pack
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.spec import SpecError, validate_spec
from verifiers.values import BadValue, to_decimal

EMPTY = {"replica": "testbed", "tables": {}}
RENEWAL = {"type": "date", "expected": "2026-04-01"}
ORDER_TOTAL = {"type": "money", "expected": {"amount": "140.62", "currency": "CAD"}, "require_currency": True}


def answer(message, **assertion):
    spec = {"assertions": [{"name": "answer", "kind": "answer", **assertion}]}
    inputs = VerifierInputs(
        initial=EMPTY, final=EMPTY, messages=[message], replica="testbed", clock="2026-03-02T09:00:00Z", params={}
    )
    verdict = verify(spec, inputs)
    return verdict.passed, verdict.assertions[0]["detail"]


def every_day(start: date, days: int) -> str:
    return ", ".join((start + timedelta(days=i)).isoformat() for i in range(days))


def test_a_message_listing_every_date_of_two_years_does_not_answer_a_renewal_date():
    passed, detail = answer(f"It renews on one of: {every_day(date(2025, 6, 1), 731)}.", **RENEWAL)
    assert not passed and "states 731 candidates" in detail
    assert not answer("It renews on April 1, 2026 or 2026-04-02.", **RENEWAL)[0]


def test_a_list_of_amounts_does_not_answer_an_order_total():
    amounts = " ".join(f"CA${n}.62" for n in range(100, 200))
    assert not answer(f"The total is one of {amounts}", **ORDER_TOTAL)[0]
    assert not answer("Subtotal CA$120.00, tax CA$20.62, total CA$140.62.", **ORDER_TOTAL)[0]


@pytest.mark.parametrize(
    ("message", "assertion"),
    [
        ("Subscription SUB-2044 renews on April 1, 2026 at 10:30.", RENEWAL),
        ("It renews 2026-04-01 (and again on 4/1/2026, the same day).", RENEWAL),
        ("Order ORD-4419 (ticket #8003) came to CA$140.62 in total.", ORDER_TOTAL),
        ("CA$140.62, that is 140.62 CAD.", ORDER_TOTAL),
        ("Refunds are possible up to 30 days after the charge on 2026-03-05.", {"type": "number", "expected": 30}),
        ("Ticket #8003 has 3 refunds worth $40 in all.", {"type": "number", "expected": 3}),
    ],
)
def test_the_single_right_value_passes_beside_ids_dates_times_and_repeats(message, assertion):
    passed, detail = answer(message, **assertion)
    assert passed, detail


def test_a_wrong_single_value_fails_and_the_staff_detail_says_why():
    passed, detail = answer("It renews on 2026-04-02.", **RENEWAL)
    assert not passed and "2026-04-02 is not right" in detail
    assert not answer("There are 4 or 5.", type="number", expected=4)[0]


def test_loose_matching_is_explicit_and_accepts_the_right_value_among_others():
    loose = {**RENEWAL, "match": "any", "reason": "the agent is asked for every renewal of the year"}
    assert answer(f"Renewals: {every_day(date(2026, 1, 1), 365)}", **loose)[0]
    assert not answer(f"Renewals: {every_day(date(2027, 1, 1), 365)}", **loose)[0]


def test_choices_and_public_ids_with_candidates_take_exactly_one():
    status = {"type": "one_of", "values": ["pending"], "match": "search", "candidates": "new|open|pending|solved"}
    assert answer("Ticket #8003 is pending.", **status)[0]
    assert not answer("It is new, open, pending or solved.", **status)[0]
    ticket = {"type": "regex", "pattern": "#?8003", "match": "search", "candidates": r"#\d+"}
    assert answer("The oldest is #8003.", **ticket)[0]
    assert not answer("One of #8001, #8002, #8003.", **ticket)[0]


@pytest.mark.parametrize(
    ("assertion", "path", "message"),
    [
        ({**ORDER_TOTAL, "match": "any"}, "assertions[0].reason", "must state its reason"),
        ({**RENEWAL, "match": "any", "reason": "  "}, "assertions[0].reason", "must state its reason"),
        ({"type": "number", "expected": 3, "match": "any"}, "assertions[0].reason", "must state its reason"),
        ({**RENEWAL, "match": "search"}, "assertions[0].match", 'matches "one" (the default) or "any"'),
        ({"type": "one_of", "values": ["a"], "match": "any"}, "assertions[0].match", 'matches "full"'),
        ({"type": "one_of", "values": ["a"], "candidates": "a|b"}, "assertions[0].candidates", "apply to"),
        (
            {"type": "regex", "pattern": "a", "match": "search", "candidates": "("},
            "assertions[0].candidates",
            "bad regular expression",
        ),
        ({**ORDER_TOTAL, "candidates": r"\d+"}, "assertions[0].candidates", "are its money values"),
    ],
)
def test_the_spec_refuses_loose_answers_without_a_reason_and_misplaced_options(assertion, path, message):
    with pytest.raises(SpecError) as err:
        validate_spec({"assertions": [{"name": "answer", "kind": "answer", **assertion}]}, replica="testbed")
    assert err.value.path == path and message in str(err.value)


def test_the_pack_validator_refuses_a_loose_money_answer_without_a_reason(tmp_path, db):
    task = {
        "slug": "loose-total",
        "title": "Report a total",
        "difficulty": "easy",
        "replica": "testbed",
        "seed": 7,
        "variant": "small",
        "instruction": "Tell me the total.",
        "start_page": "/",
        "limits": {"max_steps": 3, "max_seconds": 60},
        "verifier": {"assertions": [{"name": "the total", "kind": "answer", **ORDER_TOTAL, "match": "any"}]},
        "reference_solution": ['send_msg_to_user("CA$140.62")'],
    }
    (tmp_path / "loose-total.json").write_text(json.dumps(task))
    with pytest.raises(PackError) as err:
        load_pack("testbed", directory=tmp_path)
    assert "verifier.assertions[0].reason" in str(err.value) and "must state its reason" in str(err.value)
    task["verifier"]["assertions"][0]["reason"] = "any of the order's totals is accepted"
    (tmp_path / "loose-total.json").write_text(json.dumps(task))
    assert [t.task_id for t in load_pack("testbed", directory=tmp_path)] == ["testbed.loose-total"]


def test_an_empty_or_blank_number_is_a_bad_value_not_a_crash():
    for text in ("", "   "):
        with pytest.raises(BadValue):
            to_decimal(text)
