from django.apps import AppConfig


class WorldsConfig(AppConfig):
    name = "replicas.worlds"
    label = "worlds"
    verbose_name = "Worlds"

    def ready(self):
        from . import system_checks  # noqa: F401  (registers the checks)
        from .requestlog import connect_signals

        # every replica's models are loaded by now: the request log listens to their writes
        connect_signals()
