"""The REST API's episode start takes an observation mode (episodes.engine.observation) and refuses a bad one."""

import pytest

from episodes.models import Episode
from replicas.worlds.models import World

pytestmark = pytest.mark.django_db


def test_api_episode_start_keeps_the_mode_and_refuses_a_bad_one_with_400(agent_client, test_pack):
    body = {"task": "testbed.open-note", "observation": {"mode": "diff", "full_every": 3}}
    response = agent_client.post("/api/episodes", body, format="json")
    assert response.status_code == 201, response.json()
    assert Episode.objects.get(pk=response.json()["id"]).agent_settings == {"observation": body["observation"]}
    worlds = World.objects.count()
    bad = agent_client.post("/api/episodes", {**body, "observation": {"mode": "video"}}, format="json")
    assert bad.status_code == 400
    assert "unknown observation mode 'video'" in bad.json()["observation"][0]
    assert Episode.objects.count() == 1 and World.objects.count() == worlds
