"""A token's episodes: listed with GET /api/episodes, its own only (not its user's other tokens'),
ended by the scheduler's sweep once past their time limit, and counted with its runs' against its limits."""

from datetime import timedelta

import pytest
from django.utils import timezone
from replicagym.accounts.tokens import token_create
from replicagym.api import views

from episodes.models import Episode, Run
from episodes.queue.workers import scheduler_tick
from replicas.worlds.models import World

pytestmark = pytest.mark.django_db


@pytest.fixture
def second_token_client(agent_token, api_client_for):
    """Another token of the same user as agent_client's, for the same suite."""
    issued = token_create(user=agent_token.token.user, suites=["smoke"], expires_days=1, name="second")
    return api_client_for(secret=issued.secret)


def start(client) -> int:
    response = client.post("/api/episodes", {"task": "testbed.open-note"}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def test_a_token_sees_and_finishes_only_its_own_episodes_not_its_users_other_tokens(agent_client, second_token_client):
    mine, theirs = start(agent_client), start(second_token_client)
    assert agent_client.get(f"/api/episodes/{theirs}").status_code == 404
    assert agent_client.post(f"/api/episodes/{theirs}/finish", {"messages": []}, format="json").status_code == 404
    assert Episode.objects.get(pk=theirs).status == "running"
    assert [e["id"] for e in agent_client.get("/api/episodes").json()["results"]] == [mine]
    assert [e["id"] for e in second_token_client.get("/api/episodes").json()["results"]] == [theirs]
    assert agent_client.post(f"/api/episodes/{mine}/finish", {"messages": []}, format="json").status_code == 200


def test_the_episode_list_filters_by_status_pages_and_refuses_an_unknown_status(agent_client, monkeypatch):
    first, second = start(agent_client), start(agent_client)
    agent_client.post(f"/api/episodes/{first}/finish", {"messages": []}, format="json")
    body = agent_client.get("/api/episodes").json()
    assert body["count"] == 2 and [e["id"] for e in body["results"]] == [second, first]  # newest first
    assert [e["id"] for e in agent_client.get("/api/episodes?status=running").json()["results"]] == [second]
    assert [e["id"] for e in agent_client.get("/api/episodes?status=failed").json()["results"]] == [first]
    assert agent_client.get("/api/episodes?status=timed_out").json()["count"] == 0
    refused = agent_client.get("/api/episodes?status=lost")
    assert refused.status_code == 400 and "status" in refused.json()
    monkeypatch.setattr(views.EpisodePage, "page_size", 1)
    page = agent_client.get("/api/episodes").json()
    assert [e["id"] for e in page["results"]] == [second] and page["next"].endswith("page=2")
    assert [e["id"] for e in agent_client.get("/api/episodes?page=2").json()["results"]] == [first]


def test_the_sweep_ends_an_api_episode_past_its_limit_frees_its_slot_and_collects_its_world(agent_client, agent_token):
    # the fixture's token holds 2 at once: both taken, a third start is refused until one ends
    late, on_time = start(agent_client), start(agent_client)
    assert agent_client.post("/api/episodes", {"task": "testbed.open-note"}, format="json").status_code == 429
    limit = Episode.objects.get(pk=late).instance.limits["max_seconds"]
    now = timezone.now()
    Episode.objects.filter(pk=late).update(started_at=now - timedelta(seconds=limit + 31))
    # past its limit but inside the grace an agent has to send its own /finish: left alone
    Episode.objects.filter(pk=on_time).update(started_at=now - timedelta(seconds=limit + 5))
    world = Episode.objects.get(pk=late).world_id

    outcome = scheduler_tick(gc_after=timedelta(0))

    assert outcome["api_timed_out"] == [late]
    ended = Episode.objects.get(pk=late)
    assert ended.status == "timed_out" and "over the limit" in ended.error and ended.finished_at is not None
    assert ended.rewards["episode_reward"] == 0
    assert not World.objects.filter(pk=world).exists()  # no longer an open episode's: the gc took it
    assert Episode.objects.get(pk=on_time).status == "running"
    listed = agent_client.get("/api/episodes?status=timed_out").json()["results"]
    assert [e["id"] for e in listed] == [late] and listed[0]["passed"] is False
    assert start(agent_client)  # its slot is free again


def test_an_api_episode_whose_ending_fails_is_errored_not_left_holding_its_slot(agent_client, monkeypatch):
    from episodes import external

    stuck = start(agent_client)
    limit = Episode.objects.get(pk=stuck).instance.limits["max_seconds"]
    Episode.objects.filter(pk=stuck).update(started_at=timezone.now() - timedelta(seconds=limit + 60))

    def broken(**kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(external, "episode_finish_external", broken)
    assert external.external_episodes_expire() == [stuck]
    ended = Episode.objects.get(pk=stuck)
    assert ended.status == "errored" and "ending it failed: OSError: disk full" in ended.error


def test_a_run_counts_against_the_tokens_concurrency_limit(api_client_for, django_user_model):
    from catalogue.packs import suite_current

    suite_current("testbed")  # two tasks
    user = django_user_model.objects.create_user(username="runner", password="pw-123456")
    token = token_create(user=user, suites=["testbed"], expires_days=1, max_concurrent=4, max_per_hour=60)
    api = api_client_for(secret=token.secret)
    # a run of 20 when at most 4 may be queued or running at once: no wait would make it fit
    over = api.post("/api/runs", {"suite": "testbed", "agent": "random", "attempts": 10}, format="json")
    assert over.status_code == 429 and "20 episodes at once are over this token's limits" in over.json()["detail"]
    assert "Retry-After" not in over
    assert (
        api.post("/api/runs", {"suite": "testbed", "agent": "random", "attempts": 2}, format="json").status_code == 201
    )
    # 4 queued now: one more episode, from a run or a start, waits for one of them to end
    more = api.post("/api/runs", {"suite": "testbed", "task_filter": "*.rename-*", "agent": "random"}, format="json")
    assert (
        more.status_code == 429 and "4 episodes of this token are queued or running (limit 4)" in more.json()["detail"]
    )
    assert int(more["Retry-After"]) >= 1
    assert Run.objects.count() == 1 and Episode.objects.count() == 4
