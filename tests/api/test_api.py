"""The REST API: token auth, episodes for agents with their own browser, validation, ownership.

Roles, suite scopes and quotas of agent tokens: tests/accounts/."""

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from episodes.models import Episode
from replicas.worlds.models import World

pytestmark = pytest.mark.django_db


def test_requests_without_a_token_are_refused(test_pack):
    assert APIClient().get("/api/tasks").status_code == 401
    assert APIClient().post("/api/episodes", {"task": "testbed.open-note"}, format="json").status_code == 401


def test_task_list_never_shows_verifier_answer_key_or_reference_solution(agent_client, test_pack):
    body = agent_client.get("/api/tasks").json()
    ids = [t["id"] for t in body]
    assert ids == ["testbed.open-note"]  # the token's "smoke" suite
    task = body[0]
    assert set(task) == {
        "id",
        "version",
        "replica",
        "title",
        "difficulty",
        "instruction",
        "start_page",
        "limits",
        "interaction",
    }
    assert (
        task["interaction"] == []
    )  # the UI interactions a task requires: none, so it may run in the agent's own browser
    text = str(body)
    assert "verifier" not in text and "reference_solution" not in text and "params" not in text
    assert task["instruction"] == "Open note #3 and tell me its status."


def test_create_episode_returns_world_origin_start_url_instruction_and_limits(agent_client, test_pack):
    response = agent_client.post("/api/episodes", {"task": "testbed.open-note", "agent": "my-agent/1.0"}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    episode = Episode.objects.get(pk=body["id"])
    # the agent is who runs the episode, recorded by the server (the token "fixture"), not the name the request gave
    assert episode.owner == agent_client.user and episode.status == "running" and episode.agent == "external:fixture"
    assert body["agent"] == "external:fixture"
    assert body["world"] == episode.world.token
    assert body["origin"] == f"http://w-{episode.world.token}.localhost:8000"
    assert body["start_url"] == body["origin"] + "/notes/3"
    assert body["instruction"] == "Open note #3 and tell me its status."
    assert body["limits"] == {"max_steps": 4, "max_seconds": 120.0}
    assert body["verdict"] is None and body["rewards"] is None and body["passed"] is None


@pytest.mark.parametrize(
    "payload, field, message",
    [
        ({}, "task", "This field is required."),
        ({"task": "testbed.no-such-task"}, "task", "unknown task 'testbed.no-such-task'"),
        ({"task": "nope"}, "task", "unknown task 'nope'"),
        ({"task": "testbed.open-note", "agent": "bad agent; rm -rf"}, "agent", "use letters, digits"),
        ({"task": ["testbed.open-note"]}, "task", "Not a valid string."),
    ],
)
def test_invalid_episode_requests_are_400_with_a_clear_message_and_change_nothing(
    agent_client, test_pack, payload, field, message
):
    worlds = World.objects.count()
    response = agent_client.post("/api/episodes", payload, format="json")
    assert response.status_code == 400
    assert any(message in m for m in response.json()[field])
    assert Episode.objects.count() == 0 and World.objects.count() == worlds


def test_other_users_episodes_are_404(agent_client, other_agent_client, test_pack):
    episode_id = agent_client.post("/api/episodes", {"task": "testbed.open-note"}, format="json").json()["id"]
    assert other_agent_client.get(f"/api/episodes/{episode_id}").status_code == 404
    response = other_agent_client.post(f"/api/episodes/{episode_id}/finish", {"messages": []}, format="json")
    assert response.status_code == 404
    assert Episode.objects.get(pk=episode_id).status == "running"
    assert agent_client.get(f"/api/episodes/{episode_id}").status_code == 200
    assert agent_client.get("/api/episodes/999999").status_code == 404


@pytest.mark.parametrize(
    "payload, message",
    [
        ({}, "messages"),
        ({"messages": "hello"}, "messages"),
        ({"messages": [1, {"a": 2}]}, "messages"),
        ({"messages": ["x"] * 51}, "messages"),
        ({"messages": ["x" * 10_001]}, "messages"),
        ({"messages": [None]}, "messages"),
    ],
)
def test_invalid_finish_requests_are_400_and_leave_the_episode_running(agent_client, test_pack, payload, message):
    episode_id = agent_client.post("/api/episodes", {"task": "testbed.open-note"}, format="json").json()["id"]
    response = agent_client.post(f"/api/episodes/{episode_id}/finish", payload, format="json")
    assert response.status_code == 400
    assert message in str(response.json())
    episode = Episode.objects.get(pk=episode_id)
    assert episode.status == "running" and episode.verdict is None and episode.rewards is None


def test_openapi_schema_generates_and_validates(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    for route in ("/api/episodes:", "/api/episodes/{episode_id}/finish:", "/api/tasks:"):
        assert route in text


def test_schema_is_served_at_api_schema(agent_client):
    response = agent_client.get("/api/schema/")
    assert response.status_code == 200 and b"openapi" in response.content
    assert b"agentToken" in response.content  # the token scheme's extension is registered where the schema is served


@pytest.mark.django_db
def test_finish_verifies_the_last_page_the_world_served_and_returns_rewards(django_user_model, world_client):
    from replicagym.accounts.tokens import token_create

    from catalogue.packs import task_current
    from tests.episodes.fixtures import sync_test_pack

    sync_test_pack()
    user = django_user_model.objects.create_user(username="agent", password="pw-123456")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user, suites=['testbed'], expires_days=1).secret}")
    created = client.post("/api/episodes", {"task": "testbed.report-owner"}, format="json").json()
    params = task_current("testbed.report-owner").params
    # the agent's own browser, signed in, opens the note: the world keeps the page it served
    world_client(Episode.objects.get(pk=created["id"]).world).get(f"/notes/{params['note']}")
    response = client.post(
        f"/api/episodes/{created['id']}/finish", {"messages": [f"It was {params['owner']}."]}, format="json"
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "succeeded" and body["passed"] is True
    assert body["rewards"]["task_completion"] == 1.0 and 0 <= body["rewards"]["episode_reward"] <= 1
    episode = Episode.objects.get(pk=created["id"])
    assert episode.final_url == f"{created['origin']}/notes/{params['note']}"
    assert episode.final_title
    assert client.get(f"/api/episodes/{created['id']}").json()["verdict"]["passed"] is True
    again = client.post(f"/api/episodes/{created['id']}/finish", {"messages": []}, format="json")
    assert again.status_code == 400 and "only a running API episode can be finished" in str(again.json())
