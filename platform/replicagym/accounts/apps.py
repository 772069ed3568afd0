from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "replicagym.accounts"
    label = "accounts"
    verbose_name = "Accounts, roles and agent tokens"

    def ready(self):
        # registers the OpenAPI description of the token scheme with drf-spectacular
        from . import schema  # noqa: F401
