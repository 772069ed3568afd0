from django.apps import AppConfig


class WorldsConfig(AppConfig):
    name = "replicas.worlds"
    label = "worlds"
    verbose_name = "Worlds"
