from django.apps import AppConfig


class VerifiersConfig(AppConfig):
    """Verifier specs, assertions and reward signals; an app only for its `verify_tasks` command."""

    name = "verifiers"
    default_auto_field = "django.db.models.BigAutoField"
