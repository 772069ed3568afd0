"""Answer assertions read typed values out of the agent's messages; never a naive substring."""

from decimal import Decimal

import pytest

from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.values import dates_in, money_in, numbers_in

EMPTY = {"replica": "testbed", "tables": {}}


def answer(messages, **assertion):
    spec = {"assertions": [{"name": "answer", "kind": "answer", **assertion}]}
    inputs = VerifierInputs(
        initial=EMPTY,
        final=EMPTY,
        messages=messages,
        replica="testbed",
        clock="2026-03-02T09:00:00Z",
        params={"amount": "49.99", "day": "2026-03-05"},
    )
    return verify(spec, inputs)


@pytest.mark.parametrize(
    "message, passed",
    [
        ("The duplicate charge was $49.99.", True),
        ("I refunded 49.99 USD.", True),
        ("I refunded USD 49.99 to the card.", True),
        ("Refund: US$ 49.99", True),
        ("The total was $149.99.", False),  # the classic false positive
        ("It was 49.999 units", False),
        ("Charged 49.99 EUR", False),  # the right number in another currency
        ("Order ORD-4999 refunded", False),
    ],
)
def test_money_answers_match_the_amount_and_currency_only(message, passed):
    assert answer([message], type="money", expected={"amount": "49.99", "currency": "USD"}).passed is passed


def test_zero_dollars_equals_zero_in_any_spelling():
    assert answer(["The balance is $0.00"], type="money", expected="0").passed
    assert answer(["The balance is $0"], type="money", expected="$0.00").passed
    assert not answer(["The balance is $10"], type="money", expected="$0.00").passed


def test_european_and_grouped_amounts_are_read_as_numbers():
    assert answer(["Refunded €1.234,50"], type="money", expected={"amount": "1234.5", "currency": "EUR"}).passed
    assert answer(["Refunded $1,234.50"], type="money", expected="1234.50").passed


def test_money_can_require_a_written_currency_and_amounts_with_one_are_the_candidates():
    assert not answer(
        ["refunded 49.99"], type="money", expected={"amount": "49.99", "currency": "USD"}, require_currency=True
    ).passed
    assert answer(["refunded 49.99"], type="money", expected={"amount": "49.99", "currency": "USD"}).passed
    assert not answer(["either $49.99 or $149.99"], type="money", expected="49.99").passed
    assert answer(
        ["refunded $49.99 on order 4419"], type="money", expected={"amount": "49.99", "currency": "USD"}
    ).passed


def test_a_bare_dollar_sign_can_be_any_dollar_but_a_code_is_one_currency():
    cad = {"amount": "140.62", "currency": "CAD"}
    assert answer(["The total is $140.62"], type="money", expected=cad, require_currency=True).passed
    assert answer(["The total is CA$140.62"], type="money", expected=cad, require_currency=True).passed
    assert not answer(["The total is US$140.62"], type="money", expected=cad).passed
    assert not answer(["The total is 140.62 USD"], type="money", expected=cad).passed
    assert not answer(["The total is £140.62"], type="money", expected=cad).passed


def test_money_expected_from_the_answer_key_keeps_its_type():
    assert answer(["It was $49.99"], type="money", expected="{amount}").passed


def test_numbers_match_whole_tokens_with_a_tolerance():
    assert answer(["There are 12 open tickets."], type="number", expected=12).passed
    assert not answer(["There are 112 open tickets."], type="number", expected=12).passed
    assert answer(["About 3.14"], type="number", expected="3.1416", tolerance=0.01).passed
    assert not answer(["About 3.2"], type="number", expected="3.1416", tolerance=0.01).passed


@pytest.mark.parametrize(
    "message",
    [
        "It shipped on 2026-03-05.",
        "It shipped on March 5, 2026",
        "on 5 March 2026",
        "on 03/05/2026",
        "on Thu, Mar 5th 2026",
        "2026-03-05T18:00:00Z",
    ],
)
def test_a_date_in_another_format_matches_the_same_day(message):
    assert answer([message], type="date", expected="2026-03-05").passed


def test_dates_are_typed_not_strings():
    assert not answer(["It shipped on 2026-03-06"], type="date", expected="2026-03-05").passed
    assert answer(["on 05/03/2026"], type="date", expected="2026-03-05", day_first=True).passed
    assert not answer(["on 05/03/2026"], type="date", expected="2026-03-05").passed
    assert answer(["due March 5, 2026"], type="date", expected={"clock": "+3d"}).passed  # clock is 2026-03-02
    assert answer(["due March 5, 2026"], type="date", expected="{day}").passed


def test_one_of_compares_normalized_whole_answers_or_searches_with_word_boundaries():
    assert answer(["  Tier 2 Billing. "], type="one_of", values=["tier 2 billing", "billing"]).passed
    assert not answer(["Not Tier 2 Billing"], type="one_of", values=["tier 2 billing"]).passed
    assert answer(["It goes to Tier 2 Billing today"], type="one_of", values=["tier 2 billing"], match="search").passed
    assert not answer(["It goes to Tier 2 Billings"], type="one_of", values=["tier 2 billing"], match="search").passed


def test_regex_matches_the_whole_answer_or_searches_with_word_boundaries():
    assert answer(["ORD-4419"], type="regex", pattern=r"ord-\d{4}").passed
    assert not answer(["see ORD-4419"], type="regex", pattern=r"ORD-\d{4}").passed
    assert answer(["see ORD-4419 please"], type="regex", pattern=r"ORD-\d{4}", match="search").passed
    assert not answer(["see XORD-44190"], type="regex", pattern=r"ORD-\d{4}", match="search").passed


def test_the_last_message_is_the_answer_unless_any_is_asked():
    messages = ["It was $49.99", "Sorry, it was $59.99"]
    assert not answer(messages, type="money", expected="49.99").passed
    assert answer(messages, type="money", expected="49.99", message="any").passed
    assert answer([], type="money", expected="49.99").assertions[0]["detail"] == "the agent sent no message"


def test_value_readers_find_every_typed_value():
    assert numbers_in("149.99 and 49.99, then 1,234.") == [Decimal("149.99"), Decimal("49.99"), Decimal("1234")]
    assert money_in("$5 or 7 EUR or US$8") == [(Decimal("5"), "$"), (Decimal("7"), "EUR"), (Decimal("8"), "USD")]
    assert [d.isoformat() for d in dates_in("2026-03-05 then 6 Mar 2026")] == ["2026-03-05", "2026-03-06"]
