from django.contrib import admin

from .models import AgentToken


@admin.register(AgentToken)
class AgentTokenAdmin(admin.ModelAdmin):
    """Tokens are made by `manage.py token create` (which shows the secret once); here they are read and revoked."""

    list_display = ("id", "prefix", "user", "name", "suites", "expires_at", "revoked_at", "last_used_at")
    readonly_fields = ("user", "prefix", "digest", "created_at", "last_used_at")

    def has_add_permission(self, request):
        return False
