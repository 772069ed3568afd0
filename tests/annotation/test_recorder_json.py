"""The recorder's JSON posts go through the platform's JSON intake: deep, huge or non-finite bodies are a 400
(a 413 past its size), never a 500 (the fuzz of the other JSON endpoints: tests/api/test_json_fuzz.py)."""

import pytest
from replicagym.annotation.services import item_claim, recording_start

from replicas.worlds.recording import RECORDING_PREFIX, recording_start_url, recording_token
from tests.api.test_json_fuzz import BODIES


@pytest.fixture
def recording(people, item):
    item_claim(item_id=item.pk, user=people["annie"])
    return recording_start(item_id=item.pk, user=people["annie"])


@pytest.mark.parametrize("name", list(BODIES))
@pytest.mark.parametrize("subpath", ["steps", "thought", "submit"])
def test_bad_json_to_the_recorder_is_refused_not_a_server_error(client, recording, name, subpath):
    world = recording.world
    host = f"w-{world.token}.localhost:8000"
    start = recording_start_url(world=world, session=recording.pk, port=8000).split(":8000", 1)[1]
    assert client.get(start, HTTP_HOST=host).status_code == 302
    body, _path = BODIES[name]
    response = client.generic(
        "POST",
        RECORDING_PREFIX + subpath,
        body,
        content_type="application/json",
        HTTP_HOST=host,
        HTTP_X_RECORDING_TOKEN=recording_token(world=world, session=recording.pk),
    )
    assert response.status_code in (400, 413), (name, response.status_code)
    assert recording.steps.count() == 0
