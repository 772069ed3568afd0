"""The support desk task pack: it loads and validates, its answer keys agree with the seeded world,
and in real browser episodes every reference solution earns task_completion 1.0 while doing
nothing and every negative example earn 0.
"""

import json
from decimal import Decimal

import pytest

from catalogue.packs import load_pack, pack_dir
from replicas.supportdesk import policies, selectors
from replicas.supportdesk.models import Order, Payment, Ticket, User
from replicas.supportdesk.tasks import params as P
from replicas.worlds import clock
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import template_get_or_build
from replicas.worlds.snapshot import snapshot
from tests.pack_episodes import (
    audit_holes,
    fault_fired,
    fires_in_episode,
    reference_play,
    rewards_answering,
    shares,
    sync_tasks,
    why,
)
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.rewards import reward_signals

PACK = pack_dir("supportdesk")
MUST_HAVE = {
    "refund-duplicate-charge",
    "partial-refund-missing-item",
    "prorated-refund-subscription",
    "refund-over-limit-escalate",
    "escalate-tier2-priority",
    "reset-password-after-verification",
    "merge-duplicate-tickets",
    "reply-on-right-channel",
    "apply-macro-and-adapt",
    "bulk-solve-plan-questions",
    "report-order-total",
    "refund-with-api-timeout",
}


def _spec(slug: str) -> dict:
    return json.loads((PACK / f"{slug}.json").read_text())


# --- the pack as data ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pack(django_db_setup, django_db_blocker):
    """The loaded pack, once per module: loading computes every task's answer key on its world template."""
    with django_db_blocker.unblock():
        return load_pack("supportdesk")


@pytest.mark.django_db
def test_pack_loads_validates_and_covers_the_issue_s_tasks(pack):
    slugs = {t.spec["slug"] for t in pack}
    assert len(pack) >= 22
    assert MUST_HAVE <= slugs
    assert {t.spec["difficulty"] for t in pack} == {"easy", "medium", "hard"}
    for t in pack:
        assert t.spec["reference_solution"], t.task_id
        assert t.spec["negative_examples"], t.task_id
        # a task that changes nothing may not pass by default: every verifier checks collateral too
        assert any(a["kind"] == "diff" and a.get("only_allowed") for a in t.spec["verifier"]["assertions"]), t.task_id


@pytest.mark.django_db
def test_every_task_signs_in_with_the_credentials_its_instruction_gives(pack):
    for t in pack:
        template = template_get_or_build(
            replica="supportdesk", seed=t.spec["seed"], variant=t.spec.get("variant", "default")
        )
        with bound_world(template):
            agent = User.objects.get(email=t.params["agent_email"])
            assert selectors.agent_authenticate(email=agent.email, password=t.params["agent_password"]) == agent
        assert "{agent_password}" in t.spec["instruction"] and "{agent_email}" in t.spec["instruction"]


@pytest.mark.django_db
def test_doing_nothing_fails_every_task(pack):
    """The verdict on an untouched world: the verifier reads only state, diff and answers, so no browser is needed."""
    for t in pack:
        template = template_get_or_build(
            replica="supportdesk", seed=t.spec["seed"], variant=t.spec.get("variant", "default")
        )
        state = snapshot(template)
        inputs = VerifierInputs(
            initial=state,
            final=state,
            final_page={"url": t.spec["start_page"], "title": "", "html": ""},
            params=t.params,
            clock=template.clock.isoformat().replace("+00:00", "Z"),
            replica="supportdesk",
        )
        assert not any(a["kind"] == "page" for a in t.spec["verifier"]["assertions"]), t.task_id
        verdict = verify(t.spec["verifier"], inputs)
        assert not verdict.passed, t.task_id
        assert reward_signals(verdict=verdict, trajectory=[], reference_steps=1)["task_completion"] == 0.0


@pytest.mark.django_db
def test_the_api_timeout_task_arms_a_timeout_on_the_refund_route_only():
    spec = _spec("refund-with-api-timeout")
    (fault,) = spec["faults"]
    assert fault["name"] == "api_timeout" and fault["params"]["times"] == 1
    import re

    route = re.compile(fault["params"]["route"])
    assert route.search("/api/v2/billing/payments/ch_abc/refunds")
    assert not route.search("/api/v2/billing/customers/361000001/orders")


@pytest.fixture
def small(db):
    world = template_get_or_build(replica="supportdesk", seed=7, variant="small")
    with bound_world(world):
        yield world


def test_duplicate_charge_key_is_the_later_of_two_equal_unrefunded_charges_within_the_limit(small):
    key = P.duplicate_charge(small)
    ticket = Ticket.objects.get(public_id=key["ticket"])
    dup, original = Payment.objects.get(public_id=key["payment"]), Payment.objects.get(public_id=key["original"])
    assert dup.order == original.order == Order.objects.get(public_id=key["order"])
    assert dup.customer == original.customer == ticket.requester
    assert dup.amount == original.amount == Decimal(key["amount"]) and dup.captured_at > original.captured_at
    assert not dup.refunds.exists()
    agent = User.objects.get(email=key["agent_email"])
    limit = policies.refund_policy().limit_for(
        agent=agent, customer=dup.customer, currency=dup.currency, escalated=False
    )
    assert dup.amount <= limit and not selectors.is_tier2(agent)


def test_over_limit_key_is_above_the_agents_limit_and_the_api_would_refuse_it(small):
    key = P.duplicate_charge_over_limit(small)
    payment = Payment.objects.get(public_id=key["payment"])
    assert Decimal(key["amount"]) > Decimal(key["limit"]) >= Decimal(key["below_limit"])
    assert key["tier2_name"] == policies.ESCALATION_GROUP
    quote = selectors.refund_quote(payment=payment, agent=User.objects.get(email=key["agent_email"]))
    assert quote["limit"] == Decimal(key["limit"])


def test_prorated_key_follows_the_help_center_formula_and_holds_for_the_whole_episode(small):
    key = P.prorated_cancellation(small)
    payment = Payment.objects.get(public_id=key["payment"])
    now = clock.now()
    expected = (payment.amount * key["days_left"] / key["period_days"]).quantize(policies.CENT)
    assert Decimal(key["amount"]) == expected
    for later in (now, now + P.EPISODE_SPAN):
        assert (
            policies.prorated_amount(
                price=payment.amount, period_start=payment.period_start, period_end=payment.period_end, at=later
            )
            == expected
        )
    assert Decimal(key["wrong_amount"]) != expected


def test_missing_item_key_is_the_named_item_s_unit_price(small):
    key = P.missing_item(small)
    order = Order.objects.get(public_id=key["order"])
    line = order.items.order_by("-line").first()
    assert line.name == key["item"] and line.unit_price == Decimal(key["amount"])
    assert Decimal(key["amount"]) < order.total and key["other_price"] != key["amount"]
    first = Ticket.objects.get(public_id=key["ticket"]).comments.order_by("created_at").first()
    assert key["item"] in first.body  # the customer names the item the key refunds


def test_tier_key_needs_the_loyalty_multiplier(small):
    key = P.damaged_with_tier(small)
    payment = Payment.objects.get(public_id=key["payment"])
    base = policies.refund_policy().agent_limits[payment.currency]
    assert base < payment.amount
    assert payment.customer.loyalty_tier in policies.refund_policy().tier_multipliers


def test_bulk_key_lists_exactly_the_unsolved_plans_tickets(small):
    key = P.bulk_solve_plans(small)
    unsolved = Ticket.objects.filter(status__in=P.UNSOLVED, merged_into__isnull=True)
    assert sorted(key["numbers"]) == sorted(t.public_id for t in unsolved if "plans" in t.tags)
    assert key["count"] == len(key["numbers"]) and key["other"] not in key["numbers"]


def test_answer_keys_come_from_the_world(small):
    total = P.order_total(small)
    order = Order.objects.get(public_id=total["order"])
    assert Decimal(total["total"]) == order.total == order.subtotal + order.shipping + order.tax
    renewal = P.renewal_date(small)
    sub = User.objects.get(name=renewal["customer"]).subscriptions.get(public_id=renewal["subscription"])
    assert renewal["renews"] == sub.current_period_end.date().isoformat()


def test_account_keys_pick_callers_whose_digits_do_or_do_not_match_a_card(db, pack):
    tasks = {t.spec["slug"]: t for t in pack}
    for slug, matches in (("reset-password-after-verification", True), ("refuse-unverified-account-reset", False)):
        task = tasks[slug]
        world = template_get_or_build(replica="supportdesk", seed=task.spec["seed"], variant=task.spec["variant"])
        with bound_world(world):
            customer = User.objects.get(public_id=task.params["customer_id"])
            assert Payment.objects.filter(customer=customer, card_last4=task.params["last4"]).exists() is matches
            ticket = Ticket.objects.get(public_id=task.params["ticket"])
            assert ticket.requester == customer
            assert any(task.params["last4"] in c.body for c in ticket.comments.filter(author=customer))
    assert (
        tasks["refuse-unverified-account-reset"].params["card_on_file"]
        != tasks["refuse-unverified-account-reset"].params["last4"]
    )


def test_a_world_without_candidates_fails_loudly(small):
    for ticket in Ticket.objects.all():
        if "duplicate_charge" in ticket.tags:
            ticket.status = "solved"
            ticket.save(update_fields=["status"])
    with pytest.raises(P.NoCandidate):
        P.duplicate_charge(small)


# --- episodes in a real browser ------------------------------------------------------------------------


# browser tests, each playing a share of the pack of about equal cost; on PostgreSQL, a sample that holds
# every assertion kind of the pack (see tests/pack_episodes.py). Each plays the references only: a negative example
# that acts otherwise than its reference needs an episode of its own, which `manage.py verify_tasks` plays (issue 28:
# the suite has no room for them), while the mutation audit of every reference episode (`audit_holes`) asks more of
# each verifier than its hand-written negatives do.
SHARES = shares("supportdesk")


def _reference_passes_and_answer_negatives_fail(task) -> list[str]:
    """What is wrong with one task in real episodes (nothing: an empty list)."""
    done = reference_play(task)
    if not done.rewards or done.rewards["task_completion"] != 1.0 or done.rewards["collateral"] != 1.0:
        return [f"{task.task_id}: the reference fails: {why(done)}"]
    # doing nothing is checked without a browser (test_doing_nothing_fails_every_task): an empty
    # episode's only inputs are the untouched world and no answer
    faulty = fires_in_episode(task)  # a data fault changes the world, it does not fire
    problems = audit_holes(task, done)
    if faulty and not fault_fired(done):  # issue 6's must-show: the oracle meets the armed fault...
        problems.append(f"{task.task_id}: the armed fault never fired")
    elif faulty and done.rewards["error_recovery"] != 1.0:  # ...and recovers from it
        problems.append(f"{task.task_id}: the reference does not recover: {why(done)}")
    for example in task.negative_examples:
        rewards = rewards_answering(done, task.reference_solution, example["actions"])
        if rewards is None:  # it acts otherwise than the reference: verify_tasks plays it
            continue
        if rewards["task_completion"] != 0.0:
            problems.append(f"{task.task_id}: {example['name']} passes, judged on the reference episode's steps")
        elif faulty and rewards["error_recovery"] != 0.0:  # an agent that never retries gets no credit
            problems.append(f"{task.task_id}: {example['name']} earns error_recovery")
    return problems


@pytest.mark.browser
@pytest.mark.parametrize("index", range(len(SHARES)))
def test_references_pass_and_negatives_that_answer_otherwise_fail(transactional_db, tmp_path, index):
    tasks = sync_tasks("supportdesk", SHARES[index], tmp_path / "tasks")
    problems = [p for task in tasks for p in _reference_passes_and_answer_negatives_fail(task)]
    assert not problems, "\n".join(problems)
