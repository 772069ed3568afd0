"""The help center and the agents' knowledge base state the numbers the desk enforces: refund limits
by currency and tier, the refund window, SLA targets and the automations' hours. The articles are read
as text (as an agent reads them) and held against what refund_issue, the SLA badges and the
automations apply, so the two cannot drift apart."""

import re
from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.core.exceptions import ValidationError
from django.utils.html import escape

from replicas.supportdesk import policies, services
from replicas.supportdesk.apps import SupportdeskConfig
from replicas.supportdesk.models import Article, Automation, Payment, SlaPolicy
from replicas.supportdesk.seed import policy_articles
from replicas.supportdesk.tasks.params import desk_agent
from replicas.worlds import clock
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.django_db

LIMITS_TITLE = "Refund limits by currency and loyalty tier"
AMOUNT = r"(?:CA\$|\$|€|£)([\d,]+\.\d\d)"


def _amount(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def stated_limits(body: str) -> dict:
    """(currency, who) -> amount, from the limits article's lines ('USD: agents $200.00 · Gold members $300.00 ·
    ...').
    """
    out = {}
    for currency, cells in re.findall(r"^([A-Z]{3}): (.+)$", body, re.M):
        for who, amount in re.findall(r"([A-Za-z0-9 ]+?) " + AMOUNT, cells):
            out[(currency, who.strip(" ·"))] = _amount(amount)
    return out


def stated_window(body: str) -> int:
    return int(re.search(r"window is (\d+) days", body).group(1))


def _article(articles, title):
    (found,) = [a for a in articles if a[0] == title]
    return found


@pytest.mark.parametrize("variant", ["default", "strict-refunds"])
def test_limits_article_states_the_limits_refunds_apply(variant):
    knobs = SupportdeskConfig.variants[variant]
    policy = policies.refund_policy(knobs)
    _, _, _, body, visibility = _article(policy_articles(knobs), LIMITS_TITLE)
    assert visibility == Article.Visibility.AGENTS
    limits = stated_limits(body)
    agent = SimpleNamespace(role="agent")
    for currency in policies.CURRENCY_CODES:
        for tier, who in [("", "agents"), ("gold", "Gold members"), ("platinum", "Platinum members")]:
            enforced = policy.limit_for(
                agent=agent, customer=SimpleNamespace(loyalty_tier=tier), currency=currency, escalated=False
            )
            assert limits[(currency, who)] == enforced, (variant, currency, who)
        tier2 = policy.limit_for(
            agent=agent, customer=SimpleNamespace(loyalty_tier=""), currency=currency, escalated=True
        )
        assert limits[(currency, policies.ESCALATION_GROUP)] == tier2
    assert stated_window(body) == policy.window_days
    # the public refund policy gives the same window and agent limits
    _, _, _, public, _ = _article(policy_articles(knobs), "Refund policy")
    assert f"up to {policy.window_days} days after the charge" in public
    for currency, limit in policy.agent_limits.items():
        assert policies.money(limit, currency) in public


def test_seeded_articles_are_the_policy_articles_and_refunds_hold_to_them(world):
    """The world's own articles are the ones written from its policy, and refund_issue refuses just what
    they say: above the stated limit, or older than the stated window."""
    with bound_world(world):
        knobs = SupportdeskConfig.variants[world.variant]
        seeded = {a.title: (a.body, a.visibility) for a in Article.objects.filter(public_id__lt=360600100)}
        assert seeded == {t: (b, v) for t, _, _, b, v in policy_articles(knobs)}
        body = seeded[LIMITS_TITLE][0]
        limits, window = stated_limits(body), stated_window(body)
        agent, now = desk_agent(), clock.now()
        tiers = {"": "agents", "gold": "Gold members", "platinum": "Platinum members"}
        over = [
            p
            for p in Payment.objects.filter(status="succeeded", captured_at__gte=now - timedelta(days=window - 1))
            .select_related("customer")
            .order_by("public_id")
            if p.customer.loyalty_tier in tiers
            and not p.refunds.exists()
            and p.amount > limits[(p.currency, tiers[p.customer.loyalty_tier])]
        ]
        assert over, "the world has a recent payment above the stated limit"
        payment = over[0]
        stated = limits[(payment.currency, tiers[payment.customer.loyalty_tier])]
        with pytest.raises(ValidationError) as refused:
            services.refund_issue(
                agent=agent,
                payment=payment,
                amount=stated + policies.CENT,
                currency=payment.currency,
                kind="partial",
                reason="goodwill",
            )
        assert refused.value.code == "over_limit"
        services.refund_issue(
            agent=agent, payment=payment, amount=stated, currency=payment.currency, kind="partial", reason="goodwill"
        )
        old = (
            Payment.objects.filter(status="succeeded", captured_at__lt=now - timedelta(days=window + 1))
            .order_by("public_id")
            .first()
        )
        assert old is not None, "the world has a payment older than the stated window"
        with pytest.raises(ValidationError) as late:
            services.refund_issue(
                agent=agent, payment=old, amount="1.00", currency=old.currency, kind="partial", reason="goodwill"
            )
        assert late.value.code == "outside_window"


UNITS = {"minutes": 1, "hour": 60, "hours": 60, "day": 1440, "days": 1440}


def _minutes(count: str, unit: str) -> int:
    return int(count) * UNITS[unit]


def test_sla_article_states_the_targets_the_badges_read(world):
    with bound_world(world):
        body = Article.objects.get(title="SLA targets", visibility=Article.Visibility.AGENTS).body
        stated, policy = {}, None
        for line in body.splitlines():
            if line.endswith(":") and not line.startswith("-"):
                policy = line[:-1]
            found = re.match(r"- (\w+): first reply within (\d+) (\w+), next reply within (\d+) (\w+)$", line)
            if found:
                priority, n1, u1, n2, u2 = found.groups()
                stated[(policy, priority.lower())] = {"first_reply": _minutes(n1, u1), "next_reply": _minutes(n2, u2)}
        enforced = {
            (p.title, priority): targets for p in SlaPolicy.objects.all() for priority, targets in p.targets.items()
        }
        assert len(enforced) == 8 and stated == enforced


def test_automations_article_states_the_hours_the_automations_use(world):
    with bound_world(world):
        body = Article.objects.get(title="Pending tickets and automatic closing").body
        hours = {
            rule.title: next(c["value"] for c in rule.conditions["all"] if c["field"].startswith("hours_since"))
            for rule in Automation.objects.all()
        }
    assert f"reminder after {hours['Remind requester after 3 days pending']} hours" in body
    assert f"solved after {hours['Solve pending tickets after 7 days']} hours" in body
    assert f"close {hours['Close solved tickets after 4 days']} hours after" in body


def test_help_center_shows_public_articles_and_knowledge_base_internal_ones(world, world_client):
    with bound_world(world):
        internal = Article.objects.get(title="Escalation paths")
        public = Article.objects.get(title="Refund policy")
    client = world_client(world)
    help_center = client.get("/hc/en-us/articles").content.decode()
    knowledge = client.get("/agent/knowledge").content.decode()
    assert escape(public.title) in help_center and escape(internal.title) not in help_center
    assert escape(internal.title) in knowledge and escape(public.title) not in knowledge
    # the workspace's navigation reaches both
    assert 'href="/agent/knowledge" aria-label="Knowledge base"' in knowledge
    assert 'href="/hc/en-us/articles" aria-label="Help Center"' in knowledge
    page = client.get(f"/hc/en-us/articles/{internal.public_id}").content.decode()
    assert "Internal" in page and "Visible to agents and admins" in page
    assert "Internal</span>" not in client.get(f"/hc/en-us/articles/{public.public_id}").content.decode()
    found = client.get("/agent/knowledge", {"q": "Tier 2 Technical"}).content.decode()
    assert escape(internal.title) in found
