# imported as a module so that apps.py defines exactly one AppConfig, which Django then picks
from replicas.worlds import registry


class SupportdeskConfig(registry.ReplicaConfig):
    """A support desk in the manner of Zendesk's agent workspace."""

    name = "replicas.supportdesk"
    label = "supportdesk"
    verbose_name = "Support desk"
    default_auto_field = "django.db.models.BigAutoField"

    # Knobs read by seed.generate. `tickets` sets the size; the rest switch messy layers on.
    variants = {
        "default": {"tickets": 300},
        "small": {"tickets": 40},
        "10k": {"tickets": 2400},
        "100k": {"tickets": 24000},
    }
    start_pages = {
        "views": "/agent/filters/unsolved",
        "dashboard": "/agent/dashboard",
    }
