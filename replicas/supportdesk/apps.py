# imported as a module so that apps.py defines exactly one AppConfig, which Django then picks
import hashlib
import inspect
import json
from functools import cached_property

from replicas.worlds import registry

# The messy layers of seed.LAYERS, all switched on (listed here so apps.py stays import-light).
ALL_LAYERS = [
    "duplicate_charges",
    "cancelled_fulfilled",
    "legacy_dates",
    "stale_customers",
    "conflicting_policies",
    "near_duplicate_customers",
]


def _layer(name: str) -> dict:
    return {"tickets": 300, "layers": [name]}


class SupportdeskConfig(registry.ReplicaConfig):
    """A support desk in the manner of Zendesk's agent workspace."""

    name = "replicas.supportdesk"
    label = "supportdesk"
    verbose_name = "Support desk"
    default_auto_field = "django.db.models.BigAutoField"

    # Knobs read by seed.generate. `tickets` sets the size, `layers` switches messy data
    # on; policy knobs (refund_limits, refund_window_days, tier2_multiplier,
    # tier_multipliers) override policies.py's defaults.
    variants = {
        "default": {"tickets": 300},
        "small": {"tickets": 40},
        "messy": {"tickets": 300, "layers": ALL_LAYERS},
        "small-messy": {"tickets": 40, "layers": ALL_LAYERS},
        "duplicate-charges": _layer("duplicate_charges"),
        "cancelled-fulfilled": _layer("cancelled_fulfilled"),
        "legacy-dates": _layer("legacy_dates"),
        "stale-customers": _layer("stale_customers"),
        "conflicting-policies": _layer("conflicting_policies"),
        "near-duplicates": _layer("near_duplicate_customers"),
        "strict-refunds": {"tickets": 300, "refund_limits": {"USD": "100.00", "EUR": "90.00", "GBP": "80.00", "CAD": "135.00"}, "refund_window_days": 30},
        "10k": {"tickets": 710, "layers": ALL_LAYERS},
        "100k": {"tickets": 7200, "layers": ALL_LAYERS},
    }
    start_pages = {
        "views": "/agent/filters/unsolved",
        "dashboard": "/agent/dashboard",
    }

    @cached_property
    def generator_version(self) -> str:
        """Also changes with the variants' knobs and the policies the seed writes into the help center."""
        from . import policies

        digest = hashlib.sha256(registry.ReplicaConfig.generator_version.func(self).encode())
        digest.update(inspect.getsource(policies).encode())
        digest.update(json.dumps(self.variants, sort_keys=True).encode())
        return digest.hexdigest()[:16]

    def on_clock_advance(self, world):
        """Run the time-based automations after the world clock moved (called with `world` bound)."""
        from .services import automations_run

        return automations_run()
