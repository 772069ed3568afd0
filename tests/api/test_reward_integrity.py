"""Reward integrity over the REST API: what an agent could get paid or told for wrong work.

Each test plays the request that used to pay or tell too much (issue 25): a do-nothing
episode whose verdict named the assertions (and so the right branch), a right answer sent
after the time limit (episode_reward 1.0), a token's episode labelled `oracle` (exported
as oracle data).
"""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from replicagym.accounts.tokens import token_create
from replicagym.annotation.exports import candidates
from rest_framework.test import APIClient

from catalogue.packs import task_current, task_sync
from episodes.creation import episode_create
from episodes.models import Episode
from episodes.trajectory import trajectory_lines

pytestmark = pytest.mark.django_db


def _client(django_user_model, *, suites, name=""):
    user = django_user_model.objects.create_user(username="integrity-agent", password="pw-123456")
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=f"Token {token_create(user=user, suites=suites, expires_days=1, name=name).secret}"
    )
    return client


def test_a_do_nothing_episode_is_not_told_which_assertions_held(django_user_model):
    task_sync(replica="supportdesk")
    task = task_current("supportdesk.refund-over-limit-escalate")
    client = _client(django_user_model, suites=["supportdesk-refunds"])
    created = client.post("/api/episodes", {"task": task.task_id}, format="json").json()
    finished = client.post(f"/api/episodes/{created['id']}/finish", {"messages": []}, format="json")
    assert finished.status_code == 200, finished.content
    shown = client.get(f"/api/episodes/{created['id']}").json()
    stored = Episode.objects.get(pk=created["id"]).verdict
    # on doing nothing, "no refund was issued (it is above the agent's limit)" holds: its name gave the branch away
    held = [a["name"] for a in stored["assertions"] if a["passed"]]
    assert any("no refund" in name for name in held), held
    for payload in (finished.json(), shown):
        assert payload["verdict"] == {"passed": False} and payload["passed"] is False
        assert set(payload["rewards"].values()) == {0.0}
        text = json.dumps(payload)
        assert not [a["name"] for a in stored["assertions"] if a["name"] in text]
        assert "partial" not in text and "collateral_ok" not in text


def test_a_right_answer_after_the_time_limit_earns_nothing(django_user_model, test_pack):
    client = _client(django_user_model, suites=["smoke"])
    created = client.post("/api/episodes", {"task": "testbed.open-note"}, format="json").json()
    episode = Episode.objects.get(pk=created["id"])
    limit = task_current("testbed.open-note").limits["max_seconds"]
    Episode.objects.filter(pk=episode.pk).update(started_at=timezone.now() - timedelta(seconds=limit + 5))
    answer = f"Note #{episode.params['note']} is {episode.params['status']}."
    finished = client.post(f"/api/episodes/{episode.pk}/finish", {"messages": [answer]}, format="json").json()
    shown = client.get(f"/api/episodes/{episode.pk}").json()
    for payload in (finished, shown):
        assert (
            payload["status"] == "timed_out" and payload["passed"] is False and payload["verdict"] == {"passed": False}
        )
        assert payload["rewards"]["task_completion"] == 0.0 and payload["rewards"]["episode_reward"] == 0.0
    episode.refresh_from_db()
    assert episode.verdict["passed"] is True  # the answer was right: staff still read the verdict
    assert episode.rewards == dict.fromkeys(episode.rewards, 0.0)
    exported = json.loads(next(iter(trajectory_lines(episode))))  # the trajectory export's header
    assert exported["passed"] is False and exported["rewards"]["episode_reward"] == 0.0


def test_a_tokens_episode_asking_to_be_the_oracle_is_recorded_external_and_never_exported_as_oracle(
    django_user_model, test_pack
):
    client = _client(django_user_model, suites=["smoke"], name="rl-run-7")
    created = client.post("/api/episodes", {"task": "testbed.open-note", "agent": "oracle"}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["agent"] == "external:rl-run-7"
    planted = Episode.objects.get(pk=created.json()["id"])
    assert planted.agent == "external:rl-run-7"
    answer = f"Note #{planted.params['note']} is {planted.params['status']}."
    assert client.post(f"/api/episodes/{planted.pk}/finish", {"messages": [answer]}, format="json").json()["passed"]
    # a row labelled oracle before the server recorded the kind: driven from outside all the same
    legacy = episode_create(task="testbed.open-note", agent="oracle", status=Episode.Status.RUNNING, claimed_by="api:1")
    # the engine's own oracle episode, which the oracle source is for
    engine = episode_create(task="testbed.open-note", agent="oracle", status=Episode.Status.RUNNING)
    Episode.objects.filter(pk__in=[legacy.pk, engine.pk]).update(status=Episode.Status.SUCCEEDED)
    exported = {c.episode.pk: c.source for c in candidates(suite="smoke", sources=["oracle", "runs"])}
    assert exported == {engine.pk: "oracle"}


def test_staff_starting_an_episode_as_the_oracle_are_recorded_external_too(django_user_model, test_pack):
    staff = django_user_model.objects.create_user(username="author-1", password="pw-123456", is_superuser=True)
    client = APIClient()
    client.force_authenticate(user=staff)
    created = client.post("/api/episodes", {"task": "testbed.open-note", "agent": "oracle"}, format="json")
    assert created.status_code == 201, created.content
    assert Episode.objects.get(pk=created.json()["id"]).agent == "external:author-1"
