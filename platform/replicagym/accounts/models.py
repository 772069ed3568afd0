"""Agent tokens: only a sha256 digest of the secret is kept; each token expires, can be revoked,
is limited to named suites and carries its own quotas."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class AgentToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_tokens")
    name = models.CharField(max_length=100, blank=True, help_text="What the token is for, as its owner put it.")
    prefix = models.CharField(max_length=12, help_text="The secret's first characters, to recognise it in a list.")
    digest = models.CharField(
        max_length=64, unique=True, help_text="sha256 (hex) of the secret; the secret itself is never stored."
    )
    suites = models.JSONField(
        default=list, help_text="Names of the suites whose tasks the token may start episodes of."
    )
    model_agents = models.JSONField(
        default=list,
        blank=True,
        help_text="Model agents (openai:MODEL) the token's runs may use: they spend the platform's API key.",
    )
    max_concurrent = models.PositiveIntegerField(default=4, help_text="Episodes queued or running at once.")
    max_per_hour = models.PositiveIntegerField(default=60, help_text="Episodes started in any sliding hour.")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"token {self.pk} ({self.prefix}…, {self.user})"

    def state(self, now=None) -> str:
        now = now or timezone.now()
        if self.revoked_at is not None:
            return "revoked"
        return "expired" if self.expires_at <= now else "active"


class TokenEpisode(models.Model):
    """An episode started with a token: what the token's quotas count."""

    token = models.ForeignKey(AgentToken, on_delete=models.CASCADE, related_name="episode_links")
    episode = models.OneToOneField("episodes.Episode", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["token", "created_at"])]
