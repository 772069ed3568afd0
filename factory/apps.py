from django.apps import AppConfig


class FactoryConfig(AppConfig):
    """The factory's command (`manage.py factory build`) and the enterprise UI kit its replicas render with
    (templates/factory_kit/, static/factory_kit/): one kit, so every compiled replica looks and behaves alike."""

    name = "factory"
    verbose_name = "Environment factory"
    default_auto_field = "django.db.models.BigAutoField"
