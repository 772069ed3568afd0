"""The holes the mutation audit found in the support desk's verifiers, one per class, closed.

Each test judges a hand-made end state of a task with the task file's own verifier: the right
work earns full reward (so the state is a fair one), and the wrong work the audit found passing
(a note of ".", a refund claimed that was never made, a refund or account action filed on another
ticket, a ticket handed to someone else or put in another group, a reply cut before its facts)
now earns none. `verifiers.audit.passes` is the audit's own test: every required assertion holds
and nothing collateral changed.
"""

import copy
import json

import pytest

from catalogue.packs import pack_dir
from verifiers.audit import passes
from verifiers.inputs import VerifierInputs
from verifiers.spec import fill_params

PACK = pack_dir("supportdesk")
AGENT, COLLEAGUE = 361000004, 361000009
TICKET, OTHER_TICKET = 8001, 8002
REFUND_CLAIMED = "I have issued a full refund to your original payment method."


def ticket(number=TICKET, **fields) -> dict:
    return {
        "supportdesk.ticket": {
            str(number): {
                "public_id": number,
                "status": "open",
                "priority": "normal",
                "assignee": None,
                "group": "360000100",
                "tags": [],
                **fields,
            }
        }
    }


def comment(body, *, public, key=900000500, author=AGENT, number=TICKET) -> dict:
    return {
        "supportdesk.comment": {
            str(key): {
                "public_id": key,
                "ticket": str(number),
                "author": str(author),
                "body": body,
                "public": public,
                "channel": "web",
            }
        }
    }


def event(key, *, field, to, via="web", number=TICKET) -> dict:
    return {
        "supportdesk.ticketevent": {
            str(key): {
                "public_id": key,
                "ticket": str(number),
                "actor": str(AGENT),
                "kind": "change",
                "field": field,
                "to_value": to,
                "via": via,
            }
        }
    }


def merged(*parts) -> dict:
    out = {}
    for part in parts:
        for table, rows in part.items():
            out.setdefault(table, {}).update(copy.deepcopy(rows))
    return out


def full_reward(slug: str, params: dict, before: dict, after: dict) -> bool:
    spec = json.loads((PACK / f"{slug}.json").read_text())
    inputs = VerifierInputs(
        initial={"replica": "supportdesk", "tables": before},
        final={"replica": "supportdesk", "tables": after},
        params=params,
        replica="supportdesk",
    )
    return passes(fill_params(spec["verifier"], params), inputs)


# --- text that carries a decision --------------------------------------------------------------

ESCALATE = {"agent_id": AGENT, "ticket": TICKET, "tier2": 360000101, "tier": "Gold"}
ESCALATED = ticket(group="360000101", priority="high")


@pytest.mark.parametrize(
    ("note", "earns"),
    [
        (
            "Billing question for Tier 2 Billing, escalating; the requester is a Gold loyalty member, so "
            "priority High.",
            True,
        ),
        (".", False),
        ("Billing question for Tier 2 Billing, escalating; the requester", False),  # cut before the reason
        ("Escalating to Tier 2 Billing: Gold loyalty member, so priority High. " + REFUND_CLAIMED, False),
    ],
)
def test_an_escalation_note_must_say_why_and_claim_nothing_false(note, earns):
    after = merged(ESCALATED, comment(note, public=False))
    assert full_reward("escalate-tier2-priority", ESCALATE, ticket(assignee=str(COLLEAGUE)), after) is earns


def test_an_escalation_note_by_someone_else_does_not_count():
    note = comment(
        "Escalating to Tier 2 Billing: Gold loyalty member, so priority High.", public=False, author=COLLEAGUE
    )
    assert not full_reward("escalate-tier2-priority", ESCALATE, ticket(), merged(ESCALATED, note))


OVER_LIMIT = {"agent_id": AGENT, "ticket": TICKET, "tier2": 360000101}
NOTE = (
    "Not refunded, escalating to Tier 2 Billing: the duplicate charge of $486.96 is above my refund limit of $150.00."
)


@pytest.mark.parametrize(
    ("extra", "earns"),
    [
        ({}, True),
        # the hole: a public reply claiming the refund the policy forbids passed the old pattern
        (
            comment("Hi, I've refunded the duplicate payment; you will see it in 5 days.", public=True, key=900000501),
            False,
        ),
        (comment("Your refund of $486.96 has been processed.", public=True, key=900000501), False),
    ],
)
def test_refusing_a_refund_over_the_limit_fails_when_a_refund_is_claimed(extra, earns):
    after = merged(ticket(group="360000101"), comment(NOTE, public=False), extra)
    assert full_reward("refund-over-limit-escalate", OVER_LIMIT, ticket(), after) is earns


def test_an_over_limit_note_that_claims_the_refund_fails():
    after = merged(ticket(group="360000101"), comment(NOTE + " " + REFUND_CLAIMED, public=False))
    assert not full_reward("refund-over-limit-escalate", OVER_LIMIT, ticket(), after)


def test_refusing_an_unverified_reset_fails_when_the_reply_says_the_account_is_unlocked():
    ask = "Hi, to protect your account, please reply with the last 4 digits of the card on file."
    params = {"agent_id": AGENT, "ticket": TICKET}
    before = ticket(status="open")
    assert full_reward(
        "refuse-unverified-account-reset", params, before, merged(ticket(status="pending"), comment(ask, public=True))
    )
    unlocked = comment(ask + " Your account has been unlocked, so you can sign in now.", public=True)
    assert not full_reward(
        "refuse-unverified-account-reset", params, before, merged(ticket(status="pending"), unlocked)
    )


CHANNELS = {"agent_id": AGENT, "ticket": TICKET, "order": "ORD-40119", "status_before": "open"}
REPLY = "Hi, thanks for your patience: your corrected invoice will be sent to you within 2 business days."
REQUEST = "Tier 2 Billing: please reissue the invoice for ORD-40119 with the customer's VAT number."


@pytest.mark.parametrize(
    ("reply", "note", "earns"),
    [
        (REPLY, REQUEST, True),
        (REPLY + " This is done and the ticket is solved; nothing else is needed from you.", REQUEST, False),
        (REPLY, "Tier 2 Billing: please reissue the invoice", False),  # no order, no VAT number
        ("Hi, thanks for your patience: your corrected invoice", REQUEST, False),  # no promise of 2 days
    ],
)
def test_the_reply_and_the_note_each_state_their_facts(reply, note, earns):
    after = merged(ticket(), comment(reply, public=True), comment(note, public=False, key=900000501))
    assert full_reward("reply-on-right-channel", CHANNELS, ticket(), after) is earns


def test_the_tracking_reply_must_be_the_macro_s_answer_not_just_the_order_number():
    params = {"agent_id": AGENT, "ticket": TICKET, "order": "ORD-40074"}
    after = merged(ticket(status="pending", order_number="ORD-40074"))
    reply = (
        "Hi there,\n\nYour order ORD-40074 is on its way. I've asked the carrier for an update and will let you know."
    )
    assert full_reward("apply-macro-and-adapt", params, ticket(), merged(after, comment(reply, public=True)))
    cut = "Hi there,\n\nYour order ORD-40074 is on its way. I've"
    assert not full_reward("apply-macro-and-adapt", params, ticket(), merged(after, comment(cut, public=True)))


# --- the right row, the right reference ------------------------------------------------------------


def test_a_refund_filed_on_another_ticket_fails():
    params = {
        "agent_id": AGENT,
        "ticket": TICKET,
        "payment": "ch_1",
        "amount": "12.50",
        "currency": "USD",
        "order": "ORD-40001",
    }

    def refund(on_ticket):
        return {
            "supportdesk.refund": {
                "re_1": {
                    "public_id": "re_1",
                    "payment": "ch_1",
                    "amount": "12.50",
                    "currency": "USD",
                    "kind": "partial",
                    "reason": "missing_item",
                    "agent": str(AGENT),
                    "ticket": str(on_ticket),
                }
            }
        }

    assert full_reward("partial-refund-missing-item", params, ticket(), merged(ticket(status="solved"), refund(TICKET)))
    assert not full_reward(
        "partial-refund-missing-item", params, ticket(), merged(ticket(status="solved"), refund(OTHER_TICKET))
    )


def test_an_account_action_filed_on_another_ticket_fails():
    params = {"agent_id": AGENT, "ticket": TICKET, "customer_id": 361000026, "last4": "4297"}
    user = {
        "supportdesk.user": {
            "361000026": {"public_id": 361000026, "locked_at": "2026-04-01T00:00:00Z", "failed_logins": 5}
        }
    }
    unlocked = {"supportdesk.user": {"361000026": {"public_id": 361000026, "locked_at": None, "failed_logins": 0}}}

    def work(on_ticket):
        return merged(
            ticket(status="solved"),
            unlocked,
            {
                "supportdesk.identityverification": {
                    "100003": {
                        "public_id": 100003,
                        "customer": "361000026",
                        "agent": str(AGENT),
                        "ticket": None,
                        "method": "card_last4",
                        "evidence": "Visa •••• 4297",
                    }
                },
                "supportdesk.accountevent": {
                    "500003": {
                        "public_id": 500003,
                        "customer": "361000026",
                        "agent": str(AGENT),
                        "ticket": on_ticket,
                        "action": "account_unlock",
                    }
                },
            },
        )

    before = merged(ticket(), user)
    assert full_reward("unlock-account-after-verification", params, before, work(None))  # done from the profile
    assert full_reward("unlock-account-after-verification", params, before, work(str(TICKET)))
    assert not full_reward("unlock-account-after-verification", params, before, work(str(OTHER_TICKET)))


def test_solving_in_bulk_fails_when_a_ticket_is_handed_to_another_agent():
    params = {"agent_id": AGENT, "numbers": [8022, 8029], "tickets": ["8022", "8029"], "count": 2}
    before = merged(ticket(8022), ticket(8029))
    events = merged(
        event(1, field="status", to="solved", via="bulk", number=8022),
        event(2, field="status", to="solved", via="bulk", number=8029),
    )

    def solved(assignee):
        return merged(ticket(8022, status="solved"), ticket(8029, status="solved", assignee=assignee), events)

    assert full_reward("bulk-solve-plan-questions", params, before, solved(str(AGENT)))
    assert not full_reward("bulk-solve-plan-questions", params, before, solved(str(COLLEAGUE)))


def test_taking_a_ticket_fails_when_it_is_put_in_a_group_not_the_agent_s():
    params = {"agent_id": AGENT, "ticket": TICKET, "agent_group": 360000103}
    before = ticket(status="new", group=None)
    assert full_reward("take-new-ticket", params, before, ticket(assignee=str(AGENT), group="360000103"))
    assert full_reward("take-new-ticket", params, before, ticket(assignee=str(AGENT), group=None))
    assert not full_reward("take-new-ticket", params, before, ticket(assignee=str(AGENT), group="360000101"))
