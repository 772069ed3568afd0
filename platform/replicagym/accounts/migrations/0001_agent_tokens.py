"""Agent tokens, and the move of DRF's clear-text tokens (rest_framework.authtoken) to hashed ones.

An old token keeps working: its key becomes the secret, of which only the sha256 is kept; it is
scoped to every suite current at migration time (what it could reach before) and expires in
90 days. The clear-text table is then dropped.
"""

import hashlib
from datetime import timedelta

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

OLD_TABLE = "authtoken_token"
MIGRATED_DAYS = 90


def hash_clear_text_tokens(apps, schema_editor):
    connection = schema_editor.connection
    if OLD_TABLE not in connection.introspection.table_names():
        return
    AgentToken = apps.get_model("accounts", "AgentToken")
    Suite = apps.get_model("catalogue", "Suite")
    suites = sorted(set(Suite.objects.filter(is_current=True).values_list("name", flat=True)))
    now = django.utils.timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {connection.ops.quote_name('key')}, user_id, created FROM {OLD_TABLE}")
        for key, user_id, created in cursor.fetchall():
            AgentToken.objects.create(
                user_id=user_id,
                name="migrated from a clear-text token",
                prefix=key[:10],
                digest=hashlib.sha256(key.encode()).hexdigest(),
                suites=suites,
                created_at=created or now,
                expires_at=now + timedelta(days=MIGRATED_DAYS),
            )
        cursor.execute(f"DROP TABLE {OLD_TABLE}")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("episodes", "0002_step_changed"),
        ("catalogue", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AgentToken",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "name",
                    models.CharField(
                        blank=True, help_text="What the token is for, as its owner put it.", max_length=100
                    ),
                ),
                (
                    "prefix",
                    models.CharField(
                        help_text="The secret's first characters, to recognise it in a list.", max_length=12
                    ),
                ),
                (
                    "digest",
                    models.CharField(
                        help_text="sha256 (hex) of the secret; the secret itself is never stored.",
                        max_length=64,
                        unique=True,
                    ),
                ),
                (
                    "suites",
                    models.JSONField(
                        default=list, help_text="Names of the suites whose tasks the token may start episodes of."
                    ),
                ),
                (
                    "max_concurrent",
                    models.PositiveIntegerField(default=4, help_text="Episodes queued or running at once."),
                ),
                (
                    "max_per_hour",
                    models.PositiveIntegerField(default=60, help_text="Episodes started in any sliding hour."),
                ),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("expires_at", models.DateTimeField()),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
                ("last_used_at", models.DateTimeField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="agent_tokens",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="TokenEpisode",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "episode",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="episodes.episode"
                    ),
                ),
                (
                    "token",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="episode_links",
                        to="accounts.agenttoken",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["token", "created_at"], name="accounts_to_token_i_98daaa_idx")],
            },
        ),
        migrations.RunPython(hash_clear_text_tokens, migrations.RunPython.noop),
    ]
