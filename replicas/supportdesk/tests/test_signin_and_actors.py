"""Who did it: desk users' credentials need the installation's secret, sign-in failures are
throttled per world, and the tasks' verifiers check which desk user did the work."""

import hashlib
import json

import pytest
from django.test import override_settings

from catalogue.packs import pack_dir
from replicas.supportdesk import policies, selectors, services
from replicas.supportdesk.models import (
    AccountEvent,
    Comment,
    Group,
    IdentityVerification,
    Macro,
    Refund,
    SignInFailure,
    Ticket,
    TicketEvent,
    User,
)
from replicas.supportdesk.tasks import params as P
from replicas.worlds import signin as kit
from replicas.worlds.clock import world_clock_advance
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import canonical_json, snapshot, state_hash
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs

from .domain_helpers import customer, front_line_agent, paid_order, ticket_of, tier2_agent

pytestmark = pytest.mark.django_db
ACTOR_ASSERTIONS = {
    "the refund was issued by the agent the instruction names",
    "every change was made by the agent the instruction names",
}


def _seed_only_password(seed: int, agent_public_id: int) -> str:
    """The formula agents' passwords followed before the installation's secret: the seed was enough."""
    digest = hashlib.sha256(f"supportdesk-agent\x00{seed}\x00{agent_public_id}".encode()).digest()
    words = kit._WORDS
    return f"{words[digest[0] % 20]}-{words[digest[1] % 20]}-{int.from_bytes(digest[2:4], 'big') % 10000:04d}"


def _sign_in(client, email, password):
    return client.post("/auth/login", {"email": email, "password": password})


# --- credentials ----------------------------------------------------------------------------------


def test_a_tier2_agents_credentials_need_the_installation_secret_and_stay_out_of_the_state_hash(
    make_world, world_client
):
    world = make_world()
    with bound_world(world):
        agent = tier2_agent()
        password = selectors.agent_password(agent=agent)
        with override_settings(WORLD_SECRET="another installation"):
            elsewhere = selectors.agent_password(agent=agent)
            other = make_world()
        passwords = [selectors.agent_password(agent=a) for a in User.objects.exclude(role=User.Role.END_USER)]
    assert password != elsewhere  # same seed and agent, another secret: another password
    client = world_client(world, signed_in=False)
    refused = _sign_in(client, agent.email, _seed_only_password(world.seed, agent.public_id))
    assert refused.status_code == 400 and b"Invalid email or password" in refused.content
    assert _sign_in(client, agent.email, password).status_code == 302
    # credentials are in no snapshot: the state hash is the same whatever the secret
    assert world.state_hash == other.state_hash == state_hash(snapshot(other))
    state = snapshot(world)
    text = canonical_json(state)
    assert passwords and not any(p in text for p in passwords)
    user_fields = {f for row in state["tables"]["supportdesk.user"].values() for f in row}
    assert {f for f in user_fields if "password" in f} == {"password_reset_at"}  # when a reset was sent, no secret


# --- throttling -----------------------------------------------------------------------------------


def test_sign_in_is_throttled_after_five_failures_for_an_email_within_fifteen_world_minutes(make_world, world_client):
    world, other = make_world(), make_world()
    with bound_world(world):
        agent = User.objects.filter(role=User.Role.AGENT).order_by("public_id").first()
        password = selectors.agent_password(agent=agent)
    before = state_hash(snapshot(world))
    client = world_client(world, signed_in=False)
    for _ in range(policies.SIGNIN_MAX_FAILURES):
        assert _sign_in(client, agent.email, "wrong-guess-0000").status_code == 400
    throttled = _sign_in(client, agent.email.upper(), password)  # even the right password, in any case
    assert throttled.status_code == 429 and b"Too many attempts" in throttled.content
    assert client.get("/agent/filters/your-unsolved").status_code == 302  # not signed in
    assert state_hash(snapshot(world)) == before  # the count is the sign-in page's, not the desk's data
    # per world: the same agent signs in on another world at once
    assert _sign_in(world_client(other, signed_in=False), agent.email, password).status_code == 302
    # the failures age out on the world clock, and a success clears the count
    world_clock_advance(world=world, seconds=policies.SIGNIN_WINDOW.total_seconds())
    client = world_client(world, signed_in=False)
    assert _sign_in(client, agent.email, password).status_code == 302
    assert not SignInFailure.objects.filter(world=world).exists()


# --- who did it -------------------------------------------------------------------------------------


def _spec(slug):
    return json.loads((pack_dir("supportdesk") / f"{slug}.json").read_text())


def _refund_duplicate_and_finish(world, world_client, key, *, as_agent: User, solve: bool):
    """Sign in through the page as `as_agent`, refund the task's payment in full over the billing API, then solve or
    escalate.
    """
    with bound_world(world):
        password = selectors.agent_password(agent=as_agent)
    client = world_client(world, signed_in=False)
    assert _sign_in(client, as_agent.email, password).status_code == 302
    response = client.post(
        f"/api/v2/billing/payments/{key['payment']}/refunds",
        {"kind": "full", "reason": "duplicate", "ticket": key["ticket"]},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    with bound_world(world):
        ticket = Ticket.objects.get(public_id=key["ticket"])
        if solve:
            services.ticket_update(ticket=ticket, actor=as_agent, changes={"status": "solved"})
        else:
            tier2 = Group.objects.get(public_id=key["tier2"])
            services.ticket_update(
                ticket=ticket,
                actor=as_agent,
                changes={"group": tier2, "assignee": None, "status": "open"},
                comment="Refunded the duplicate charge.",
                public=False,
            )


def _verdict(world, slug, key, initial):
    spec = _spec(slug)
    final = snapshot(world)
    world.refresh_from_db()
    inputs = VerifierInputs(
        initial=initial,
        final=final,
        params=key,
        replica="supportdesk",
        clock=world.clock.isoformat().replace("+00:00", "Z"),
    )
    verdict = verify(spec["verifier"], inputs)
    return verdict, {a["name"] for a in verdict.assertions if not a["passed"]}


def test_refund_tasks_done_by_a_tier2_agent_fail_their_actor_assertion_and_pass_done_by_the_named_agent(
    make_world, world_client
):
    cases = [
        # the Tier 2 agent's refund passes every other check: only who did it gives it away
        ("refund-duplicate-charge", P.duplicate_charge, True, ACTOR_ASSERTIONS),
        # above the front-line limit: Tier 2's own limit lets the refund through
        ("refund-over-limit-escalate", P.duplicate_charge_over_limit, False, None),
    ]
    for slug, params_fn, solve, expected_failures in cases:
        world = make_world()
        with bound_world(world):
            key = params_fn(world)
            intruder = tier2_agent()
        assert intruder.email != key["agent_email"]
        initial = snapshot(world)
        _refund_duplicate_and_finish(world, world_client, key, as_agent=intruder, solve=solve)
        verdict, failed = _verdict(world, slug, key, initial)
        assert not verdict.passed, slug
        assert "every change was made by the agent the instruction names" in failed, slug
        assert expected_failures is None or failed == expected_failures
    # the same work by the agent the task names passes: the actor assertions can hold
    world = make_world()
    with bound_world(world):
        key = P.duplicate_charge(world)
        agent = User.objects.get(public_id=key["agent_id"])
    initial = snapshot(world)
    _refund_duplicate_and_finish(world, world_client, key, as_agent=agent, solve=True)
    verdict, failed = _verdict(world, "refund-duplicate-charge", key, initial)
    assert verdict.passed, failed


def test_every_write_of_the_desk_names_the_desk_user_who_made_it(in_world):
    """Refunds, comments, field changes, macros, merges, bulk updates and account repairs all record their actor."""
    agent = front_line_agent()
    owner = customer(0)
    payment = paid_order(owner, "40.00")
    ticket, other = ticket_of(owner), ticket_of(owner, number=99902)
    events_before = set(TicketEvent.objects.values_list("pk", flat=True))
    services.ticket_update(
        ticket=ticket, actor=agent, changes={"priority": "high"}, comment="Looking into it.", public=False
    )
    services.refund_issue(
        agent=agent, payment=payment, amount="10.00", currency="USD", kind="partial", reason="goodwill", ticket=ticket
    )
    macro = Macro.objects.filter(active=True).order_by("position", "public_id").first()
    services.macro_submit(ticket=ticket, macro=macro, actor=agent)
    services.identity_verify(agent=agent, customer=owner, method="card_last4", value="4242", ticket=ticket)
    services.password_reset(agent=agent, customer=owner, ticket=ticket)
    services.tickets_bulk_update(tickets=[other], actor=agent, changes={"add_tags": ["checked"]})
    services.ticket_merge(source=other, target=ticket, actor=agent)
    by_agent = TicketEvent.objects.exclude(pk__in=events_before).exclude(via__in=["trigger", "automation"])
    assert {e.via for e in by_agent} >= {"web", "macro", "bulk", "merge"}
    assert {e.actor_id for e in by_agent} == {agent.pk}
    assert {e.kind for e in by_agent} >= {"change", "comment", "refund", "verification", "account", "merge"}
    assert [r.agent for r in Refund.objects.filter(payment=payment)] == [agent]
    assert {c.author_id for c in Comment.objects.filter(ticket__in=[ticket, other], public=False)} == {agent.pk}
    assert [(a.action, a.agent) for a in AccountEvent.objects.filter(customer=owner, ticket=ticket)] == [
        ("password_reset", agent)
    ]
    assert IdentityVerification.objects.get(customer=owner, ticket=ticket).agent == agent
