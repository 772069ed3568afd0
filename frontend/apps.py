from django.apps import AppConfig


class FrontendConfig(AppConfig):
    """The platform's own pages and their design system."""

    name = "frontend"
