"""The desk's business rules in one place: refund limits and windows, prorating, identity
verification, agent passwords. Services enforce them, the seed writes them into the
help-center articles, and variants may override them through their knobs.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import current_world
from replicas.worlds.signin import WorldSignIn

CENT = Decimal("0.01")
CURRENCY_CODES = ("USD", "EUR", "GBP", "CAD")
CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "CAD": "CA$"}

# What an agent of the front line may refund on one payment without escalation, by currency.
DEFAULT_AGENT_LIMITS = {"USD": "200.00", "EUR": "180.00", "GBP": "160.00", "CAD": "270.00"}
# Members of Tier 2 Billing (and administrators) may go this many times higher.
DEFAULT_TIER2_MULTIPLIER = 10
# Loyalty tiers raise the agent's limit for that customer.
DEFAULT_TIER_MULTIPLIERS = {"gold": "1.5", "platinum": "2"}
DEFAULT_REFUND_WINDOW_DAYS = 60
# An identity verification counts for this long on the world clock.
VERIFICATION_VALID_HOURS = 24
ESCALATION_GROUP = "Tier 2 Billing"
# Sign-in throttling, as the product does it: this many refused sign-ins for one email
# within the window (world clock) and the page refuses further tries until they age out.
SIGNIN_MAX_FAILURES = 5
SIGNIN_WINDOW = timedelta(minutes=15)

# Reply-time targets in minutes by SLA policy and priority: the seed writes them into the SLA
# policies the workspace's badges read, and into the agents' knowledge base.
SLA_TARGETS = {
    "Premium customers": {
        "urgent": {"first_reply": 30, "next_reply": 60},
        "high": {"first_reply": 60, "next_reply": 120},
        "normal": {"first_reply": 120, "next_reply": 240},
        "low": {"first_reply": 240, "next_reply": 480},
    },
    "Standard": {
        "urgent": {"first_reply": 60, "next_reply": 120},
        "high": {"first_reply": 240, "next_reply": 480},
        "normal": {"first_reply": 480, "next_reply": 960},
        "low": {"first_reply": 1440, "next_reply": 2880},
    },
}
PREMIUM_TIERS = ("gold", "platinum")
# Hours after which the time-based automations act (seeded as their conditions, stated in the KB).
CLOSE_SOLVED_AFTER_HOURS = 96
REMIND_PENDING_AFTER_HOURS = 72
SOLVE_PENDING_AFTER_HOURS = 168


@dataclass(frozen=True)
class RefundPolicy:
    agent_limits: dict[str, Decimal]
    tier2_multiplier: int
    tier_multipliers: dict[str, Decimal]
    window_days: int

    def limit_for(self, *, agent, customer, currency: str, escalated: bool) -> Decimal | None:
        """The most `agent` may refund on one payment of `customer`; None means no limit."""
        if agent.role == "admin":
            return None
        base = self.agent_limits[currency]
        if escalated:
            base = base * self.tier2_multiplier
        factor = self.tier_multipliers.get(customer.loyalty_tier, Decimal(1))
        return (base * factor).quantize(CENT)


def refund_policy(knobs: dict | None = None) -> RefundPolicy:
    """The refund policy of the bound world (its variant's knobs over the defaults)."""
    if knobs is None:
        world = current_world()
        knobs = get_replica(world.replica).knobs(world.variant)
    limits = {**DEFAULT_AGENT_LIMITS, **knobs.get("refund_limits", {})}
    tiers = {**DEFAULT_TIER_MULTIPLIERS, **knobs.get("tier_multipliers", {})}
    return RefundPolicy(
        agent_limits={c: Decimal(v) for c, v in limits.items()},
        tier2_multiplier=int(knobs.get("tier2_multiplier", DEFAULT_TIER2_MULTIPLIER)),
        tier_multipliers={t: Decimal(v) for t, v in tiers.items()},
        window_days=int(knobs.get("refund_window_days", DEFAULT_REFUND_WINDOW_DAYS)),
    )


def money(value: Decimal, currency: str) -> str:
    """'$1,234.50', '€12.00', 'CA$270.00': how the desk writes amounts."""
    return f"{CURRENCY_SYMBOLS.get(currency, currency + ' ')}{value.quantize(CENT):,}"


def prorated_amount(*, price: Decimal, period_start: datetime, period_end: datetime, at: datetime) -> Decimal:
    """The unused share of a period's price at `at`, by whole days left (the KB's formula)."""
    total_days = max(1, (period_end - period_start).days)
    if at >= period_end:
        return Decimal("0.00")
    days_left = min(total_days, (period_end - max(at, period_start)).days)
    return (price * days_left / total_days).quantize(CENT, rounding=ROUND_HALF_UP)


def verification_expires(at: datetime) -> datetime:
    return at + timedelta(hours=VERIFICATION_VALID_HOURS)


# Agents sign in with the worlds' kit: their passwords follow from the seed, the agent's id and
# the installation's secret (settings.WORLD_SECRET), so a task may state them but the public seed
# alone does not give them.
SIGNIN = WorldSignIn(replica="supportdesk", who="agent")


def agent_password(*, seed: int, agent_public_id: int) -> str:
    """The password of agent `agent_public_id` in worlds of `seed` on this installation."""
    return SIGNIN.password(seed=seed, user_id=agent_public_id)
