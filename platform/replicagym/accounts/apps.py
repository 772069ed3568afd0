from django.apps import AppConfig
from django.db.models.signals import post_migrate


def role_groups_create(using="default", **kwargs):
    """The author and annotator groups exist after every migrate: before, an admin made them by hand.
    A post_migrate handler rather than a data migration, so test databases built from the models get them too."""
    from django.contrib.auth.models import Group

    from .roles import GROUP_ROLES

    for role in GROUP_ROLES:
        Group.objects.using(using).get_or_create(name=role.value)


class AccountsConfig(AppConfig):
    name = "replicagym.accounts"
    label = "accounts"
    verbose_name = "Accounts, roles and agent tokens"

    def ready(self):
        post_migrate.connect(role_groups_create, sender=self)
