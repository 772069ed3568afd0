from django.apps import AppConfig


class CatalogueConfig(AppConfig):
    name = "replicagym.catalogue"
    label = "catalogue"
    verbose_name = "Task catalogue"
