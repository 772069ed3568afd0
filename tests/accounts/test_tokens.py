"""Agent tokens: stored hashed, expiring, revocable, limited to their suites, held to their quotas."""

import hashlib
import importlib
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection
from django.utils import timezone
from replicagym.accounts.models import AgentToken, TokenEpisode
from replicagym.accounts.tokens import TokenError, token_authenticate, token_create, token_revoke

from episodes.models import Episode
from replicas.worlds.models import World

pytestmark = pytest.mark.django_db

START = "/api/episodes"


def start(client, task="testbed.open-note"):
    return client.post(START, {"task": task}, format="json")


def test_the_secret_is_never_stored_only_its_sha256(agent_token, api_client_for):
    row = AgentToken.objects.get(pk=agent_token.token.pk)
    assert row.digest == hashlib.sha256(agent_token.secret.encode()).hexdigest()
    stored = [
        str(v) for v in AgentToken.objects.values_list(*[f.attname for f in AgentToken._meta.concrete_fields]).get()
    ]
    assert not any(agent_token.secret in value for value in stored)
    assert api_client_for(secret=agent_token.secret).get("/api/tasks").status_code == 200


@pytest.mark.parametrize("secret", ["", "rg_nope", "Token", "a b", "rg_" + "x" * 43])
def test_unknown_or_malformed_secrets_are_401(agent_token, api_client_for, secret):
    client = api_client_for()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    assert client.get("/api/tasks").status_code == 401


def test_an_expired_token_is_refused_with_its_expiry_date(agent_token, api_client_for):
    AgentToken.objects.filter(pk=agent_token.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = api_client_for(secret=agent_token.secret).get("/api/tasks")
    assert response.status_code == 401 and "this token expired on" in response.json()["detail"]


def test_a_revoked_token_is_refused_and_stays_revoked(agent_token, api_client_for):
    client = api_client_for(secret=agent_token.secret)
    assert client.get("/api/tasks").status_code == 200
    first = token_revoke(token_id=agent_token.token.pk).revoked_at
    response = client.get("/api/tasks")
    assert response.status_code == 401 and "this token was revoked on" in response.json()["detail"]
    assert token_revoke(token_id=agent_token.token.pk).revoked_at == first  # revoking again changes nothing


def test_a_token_of_an_inactive_user_is_refused(agent_token):
    agent_token.token.user.is_active = False
    agent_token.token.user.save()
    with pytest.raises(TokenError, match="inactive"):
        token_authenticate(agent_token.secret)


def test_a_token_lists_only_the_tasks_of_its_suites(agent_token, api_client_for, author_user):
    assert [t["id"] for t in api_client_for(secret=agent_token.secret).get("/api/tasks").json()] == [
        "testbed.open-note"
    ]
    assert [t["id"] for t in api_client_for(user=author_user).get("/api/tasks").json()] == [
        "testbed.open-note",
        "testbed.report-owner",
    ]


def test_a_token_cannot_start_an_episode_of_a_task_outside_its_suites(agent_token, api_client_for):
    worlds = World.objects.count()
    response = start(api_client_for(secret=agent_token.secret), "testbed.report-owner")
    assert response.status_code == 403
    assert response.json()["detail"] == (
        "this token may start episodes of the suites smoke only; task 'testbed.report-owner' is in none of them"
    )
    assert Episode.objects.count() == 0 and World.objects.count() == worlds


def test_past_the_concurrent_quota_starts_are_429_with_retry_after_and_create_nothing(agent_token, api_client_for):
    client = api_client_for(secret=agent_token.secret)  # the fixture's token: 2 at once
    assert [start(client).status_code for _ in range(2)] == [201, 201]
    worlds = World.objects.count()
    response = start(client)
    assert response.status_code == 429
    assert "2 episodes of this token are queued or running (limit 2)" in response.json()["detail"]
    assert 1 <= int(response["Retry-After"]) <= 120  # the open-note task's time limit
    assert Episode.objects.count() == 2 and World.objects.count() == worlds
    # an episode that ends frees its slot
    Episode.objects.filter(pk=Episode.objects.order_by("pk").first().pk).update(status=Episode.Status.FAILED)
    assert start(client).status_code == 201


def test_past_the_hourly_quota_starts_are_429_until_the_oldest_start_is_an_hour_old(agent_token, api_client_for):
    client = api_client_for(secret=agent_token.secret)  # the fixture's token: 5 per hour
    AgentToken.objects.filter(pk=agent_token.token.pk).update(max_concurrent=10)
    for _ in range(5):
        assert start(client).status_code == 201
    Episode.objects.update(status=Episode.Status.SUCCEEDED)
    TokenEpisode.objects.filter(pk=TokenEpisode.objects.order_by("pk").first().pk).update(
        created_at=timezone.now() - timedelta(minutes=50)
    )
    response = start(client)
    assert response.status_code == 429 and "started 5 episodes in the last hour" in response.json()["detail"]
    assert 9 * 60 <= int(response["Retry-After"]) <= 10 * 60 + 1
    TokenEpisode.objects.filter(created_at__lt=timezone.now() - timedelta(minutes=40)).update(
        created_at=timezone.now() - timedelta(minutes=61)
    )
    assert start(client).status_code == 201


def test_signed_in_authors_are_not_held_to_token_scopes(author_user, api_client_for, agent_token):
    response = start(api_client_for(user=author_user), "testbed.report-owner")
    assert response.status_code == 201
    assert not TokenEpisode.objects.exists()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"suites": []}, "at least one suite"),
        ({"suites": ["smoke", "nope"]}, "unknown suite(s) nope"),
        ({"expires_days": 0}, "expires-days must be a whole number from 1 to 3650"),
        ({"expires_days": 5000}, "expires-days must be a whole number from 1 to 3650"),
        ({"max_concurrent": 0}, "concurrent must be a whole number"),
        ({"max_per_hour": "7"}, "per-hour must be a whole number"),
        ({"name": "x" * 101}, "name must be at most 100 characters"),
    ],
)
def test_token_create_refuses_bad_input_and_creates_nothing(agent_token, kwargs, message):
    before = AgentToken.objects.count()
    with pytest.raises(TokenError) as info:
        token_create(**{"user": agent_token.token.user, "suites": ["smoke"], "expires_days": 1, **kwargs})
    assert message in str(info.value)
    assert AgentToken.objects.count() == before


def test_clear_text_tokens_of_the_old_table_become_hashed_tokens_and_the_table_goes(agent_token, django_user_model):
    user = django_user_model.objects.create_user(username="legacy", password="pw-123456")
    key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        created = connection.data_types["DateTimeField"]  # as DRF's table had it on this database
        cursor.execute(
            f'CREATE TABLE authtoken_token ("key" varchar(40) PRIMARY KEY, created {created}, user_id integer)'
        )
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, %s, %s)", [key, timezone.now(), user.pk])
    migration = importlib.import_module("replicagym.accounts.migrations.0001_agent_tokens")
    migration.hash_clear_text_tokens(apps, SimpleNamespace(connection=connection))  # all it uses of a schema editor
    assert "authtoken_token" not in connection.introspection.table_names()
    token = token_authenticate(key)  # the old key keeps working, now checked by its hash
    assert token.user == user and token.digest == hashlib.sha256(key.encode()).hexdigest()
    assert token.suites == ["smoke", "testbed"] and token.expires_at > timezone.now() + timedelta(days=89)
