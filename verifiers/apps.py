"""The verifiers app: installed so that `manage.py verify_tasks` is found; it has no models."""

from django.apps import AppConfig


class VerifiersConfig(AppConfig):
    """Verifier specs, assertions and reward signals; an app only for its `verify_tasks` command."""

    name = "verifiers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # registering the built-in checks is the import's effect
        from . import builtin_checks  # noqa: F401
