from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "replicagym.accounts"
    label = "accounts"
    verbose_name = "Accounts, roles and agent tokens"
