from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "replicagym.reports"
    label = "reports"
    verbose_name = "Runs and reports"
