"""Every support desk task's params are declarative (a template, or a named picker for the hard cases),
and on each task's seed and variant they give exactly the answer key of the Python params function the
task named before: templates against the old functions (tests/legacy_params.py), pickers against
params.py called directly, so converting the task files changed no answer key."""

import json

import pytest

from catalogue.packs import pack_dir, task_params
from catalogue.task_templates import is_template, template_errors, template_params
from replicas.supportdesk.models import Payment, User
from replicas.supportdesk.tasks import params as P
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import template_get_or_build
from replicas.worlds.snapshot import canonical_json
from tests.templates import module_template

from . import legacy_params as L

PACK = pack_dir("supportdesk")
# the params function each task file named before it became declarative
BEFORE = {
    "add-tag-keep-others": P.refund_request_tags,
    "apply-macro-and-adapt": P.wismo_macro,
    "assign-to-security-group": L.reassign_security,
    "bulk-solve-plan-questions": P.bulk_solve_plans,
    "escalate-tier2-priority": L.escalate_premium,
    "fault-ambiguous-refund-type": P.prorated_cancellation,
    "fault-data-conflict-escalate": P.missing_item_escalation,
    "fault-interstitial-add-tag": P.refund_request_tags,
    "fault-layout-shift-escalate": L.escalate_premium,
    "fault-server-error-take-ticket": L.take_new,
    "fault-session-expiry-escalate": L.escalate_premium,
    "fault-slow-billing-refund": P.duplicate_charge,
    "fault-stale-record-colleague": L.take_new,
    "merge-duplicate-tickets": P.merge_duplicates,
    "partial-refund-missing-item": P.missing_item,
    "prorated-refund-subscription": P.prorated_cancellation,
    "refund-damaged-gold-tier": P.damaged_with_tier,
    "refund-duplicate-charge": P.duplicate_charge,
    "refund-over-limit-escalate": P.duplicate_charge_over_limit,
    "refund-with-api-timeout": P.duplicate_charge,
    "refuse-unverified-account-reset": P.reset_unverifiable,
    "reply-on-right-channel": P.reply_channels,
    "report-order-total": P.order_total,
    "report-refunded-amount": P.refunded_so_far,
    "report-renewal-date": P.renewal_date,
    "reset-2fa-after-verification": P.twofactor_reset_verified,
    "reset-password-after-verification": P.password_reset_verified,
    "take-new-ticket": L.take_new,
    "triage-bug-report": L.bug_ticket,
    "unlock-account-after-verification": P.unlock_verified,
}


def _agent_group(before: dict) -> dict:
    """The group 'take it' puts a ticket of no group in: the agent's default group."""
    return {"agent_group": User.objects.get(public_id=before["agent_id"]).default_group.public_id}


# params a task gained after its conversion, for an assertion the mutation audit asked for
ADDED = {"take-new-ticket": _agent_group, "fault-server-error-take-ticket": _agent_group}
messy_template = module_template("supportdesk", variant="small-messy")  # small's is the conftest's
SLUGS = sorted(p.stem for p in PACK.glob("*.json") if p.stem != "suites")


def _spec(slug):
    return json.loads((PACK / f"{slug}.json").read_text())


def _pickers(spec):
    return [step["picker"] for step in spec["params"] if "picker" in step and step["picker"] != "desk_agent"]


def test_every_task_is_declarative_and_every_old_function_is_accounted_for():
    # every old function's task is still here; tasks written after the conversion have none (declarative from the
    # start), and the loop below holds them to the same rules
    assert set(BEFORE) <= set(SLUGS)
    for slug in SLUGS:
        spec = _spec(slug)
        assert is_template(spec["params"]), slug
        assert template_errors(spec["params"], replica="supportdesk") == [], slug
        # a hard case is one picker giving the whole key: a converted task's is named as the function it runs; a
        # later task's is one the replica declares
        if slug in BEFORE:
            assert _pickers(spec) in ([], [BEFORE[slug].__name__]), slug
        else:
            assert len(_pickers(spec)) <= 1 and set(_pickers(spec)) <= set(get_replica("supportdesk").pickers), slug


@pytest.mark.django_db
@pytest.mark.parametrize("slug", sorted(BEFORE))
def test_declarative_params_equal_the_old_functions_on_the_task_s_world(slug):
    spec = _spec(slug)
    world = template_get_or_build(replica="supportdesk", seed=spec["seed"], variant=spec["variant"])
    with bound_world(world):
        before = json.loads(canonical_json(BEFORE[slug](world)))
        added = ADDED[slug](before) if slug in ADDED else {}
    now = template_params(spec["params"], world=world)
    assert now == {**before, **added}
    assert task_params(spec) == {**before, **added}  # as the catalogue loads it


@pytest.mark.django_db
def test_policies_give_what_the_pickers_compute():
    world = template_get_or_build(replica="supportdesk", seed=7, variant="small")
    with bound_world(world):
        over = P.duplicate_charge_over_limit(world)
        agent = User.objects.get(public_id=over["agent_id"])
        groups = sorted(agent.memberships.values_list("group__public_id", flat=True))
        currency = Payment.objects.get(public_id=over["payment"]).currency
    steps = [
        {"name": "agent", "picker": "desk_agent"},
        {"name": "limit", "policy": "refund_limit", "args": {"agent": "{agent_id}", "payment": over["payment"]}},
        {"name": "groups", "policy": "assignable_groups", "args": {"agent": "{agent_id}"}},
        {"name": "gold", "policy": "loyalty_tier_name", "args": {"tier": "gold"}},
        {"name": "no_tier", "policy": "loyalty_tier_name", "args": {"tier": ""}},
    ]
    params = template_params(steps, world=world)
    assert params["limit"] == over["limit"] and currency == over["currency"]
    assert params["groups"] == [None, *groups]
    assert (params["gold"], params["no_tier"]) == ("Gold", "None")
