"""Deep, huge and non-finite JSON to every JSON endpoint: the REST API's operations (read from its schema,
so a new one is covered as soon as it exists), the OpenEnv and MCP gateways, task import and the run
form's agent settings. Never a 500: each is refused as invalid input, naming where the document is bad."""

import json

import httpx
import pytest
from drf_spectacular.generators import SchemaGenerator
from replicagym.accounts.tokens import token_create, token_episode_start
from replicagym.gateways.mcp_server import mcp_server
from replicagym.gateways.openenv import openenv_app
from replicagym.jsonintake import MAX_BYTES
from websockets.sync.client import connect

from catalogue.packs import task_current
from episodes.models import Episode, Run
from episodes.rollouts import group_open
from tests.episodes.fixtures import sync_test_pack
from tests.gateways.server import asgi_server

NEST = 100_000  # far past the interpreter's recursion limit, which json.loads reached as a RecursionError
KEYS = ("task", "agent", "suite", "messages", "action", "seed", "attempts", "agent_settings", "limits", "data", "type")
# name -> (body, the refusal must name this path, or None when any refusal will do)
BODIES = {
    "deep at the root": ("[" * NEST + "]" * NEST, "$[0]"),
    "deep in a member": ('{"task": ' + "[" * NEST + "]" * NEST + "}", "$.task[0]"),
    "deep inside the limit of the parser": ('{"messages": ' + "[" * 500 + "]" * 500 + "}", "$.messages[0]"),
    "huge": ('{"task": "' + "x" * (3 * MAX_BYTES) + '"}', "$"),
    "long string": ('{"task": "' + "x" * 200_000 + '"}', "$.task"),
    "NaN everywhere": ("{" + ", ".join(f'"{k}": NaN' for k in KEYS) + "}", None),
    "Infinity and 1e400": (
        "{" + ", ".join(f'"{k}": {["Infinity", "-Infinity", "1e400"][i % 3]}' for i, k in enumerate(KEYS)) + "}",
        None,
    ),
}


def post_operations() -> list[tuple[str, bool]]:
    """(path template, takes a JSON body) of every POST operation of the served schema."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted((path, "requestBody" in ops["post"]) for path, ops in schema["paths"].items() if "post" in ops)


@pytest.fixture
def clients(db, agent_token, author_user, api_client_for):
    sync_test_pack()
    episode = token_episode_start(token=agent_token.token, task=task_current("testbed.open-note"))
    run = Run.objects.create(agent="random", owner=agent_token.token.user)
    group = group_open(
        task="testbed.open-note",
        size=1,
        agent="external:fixture",
        owner=agent_token.token.user,
        start=lambda task, seed, variation: token_episode_start(
            token=agent_token.token, task=task, seed=seed, variation=variation
        ),
    )
    ids = {"episode_id": episode.pk, "run_id": run.pk, "group_id": group.pk}
    return ids, {"agent": api_client_for(secret=agent_token.secret), "author": api_client_for(user=author_user)}


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(BODIES))
def test_no_api_operation_answers_bad_json_with_a_server_error(clients, name, settings):
    settings.DEBUG = True  # what bin/start used to run with: still no debug page, and no 500
    ids, by_role = clients
    body, path = BODIES[name]
    operations = post_operations()
    assert ("/api/episodes", True) in operations and ("/api/runs", True) in operations
    assert ("/api/episodes/{episode_id}/finish", True) in operations
    assert ("/api/groups", True) in operations and ("/api/groups/{group_id}/finish", True) in operations
    before = (Episode.objects.count(), Run.objects.count())
    for template, takes_body in operations:
        url = template.format(**ids)
        for role, client in by_role.items():
            response = client.generic("POST", url, body, content_type="application/json")
            where = (name, url, role, response.status_code)
            assert response.status_code < 500, where
            # the agent owns the episode and the run: each operation reads its body and refuses it; staff
            # do not own them (404 before the body is read)
            if takes_body and (role == "agent" or response.status_code != 404):
                assert response.status_code == 400, where
                if path is not None:
                    assert response.json()["path"].startswith(path), (*where, response.json())
    assert (Episode.objects.count(), Run.objects.count()) == before
    assert Episode.objects.get(pk=ids["episode_id"]).status == "running"


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(BODIES))
def test_task_import_and_the_run_form_refuse_bad_json_without_a_server_error(author_user, client, name):
    sync_test_pack()
    client.force_login(author_user)
    body, path = BODIES[name]
    imported = client.post("/tasks/import/", {"text": body})
    # 400: a body over Django's own upload limit, refused before the view
    assert imported.status_code in (400, 422), (name, imported.status_code)
    launched = client.post(
        "/runs/new", {"suite": "testbed", "agent": "random", "attempts": 1, "priority": 0, "agent_settings": body}
    )
    # the form again, with the error, and no run
    assert launched.status_code in (200, 400, 422) and not Run.objects.exists(), (name, launched.status_code)


@pytest.fixture
def gateway_secret(transactional_db, django_user_model):
    sync_test_pack()
    user = django_user_model.objects.create_user(username="fuzz-agent", password="pw-123456")
    return token_create(user=user, suites=["smoke"], expires_days=1).secret


@pytest.mark.django_db(transaction=True)
def test_the_gateways_refuse_bad_json_without_a_server_error(gateway_secret):
    auth = {"Authorization": f"Bearer {gateway_secret}"}
    with asgi_server(openenv_app()) as url:
        for name, (body, _path) in BODIES.items():
            for route in ("/reset", "/step"):
                response = httpx.post(
                    url + route, content=body, headers={**auth, "Content-Type": "application/json"}, timeout=60
                )
                assert response.status_code in (413, 422), (name, route, response.status_code, response.text[:200])
            if len(body) <= 256 * 1024:  # the WebSocket's frames are capped below the huge body
                with connect(url.replace("http://", "ws://") + "/ws", additional_headers=auth, open_timeout=30) as ws:
                    ws.send(body)
                    reply = json.loads(ws.recv(timeout=60))
                    assert reply["type"] == "error" and reply["data"]["code"] in ("INVALID_JSON", "VALIDATION_ERROR"), (
                        name,
                        reply,
                    )
    with asgi_server(mcp_server()[0].streamable_http_app()) as url:
        headers = {**auth, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        for name, (body, _path) in BODIES.items():
            response = httpx.post(url + "/mcp", content=body, headers=headers, timeout=60)
            assert response.status_code < 500, (name, response.status_code, response.text[:200])
    assert not Episode.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(BODIES))
def test_a_world_logging_an_api_episode_takes_bad_json_without_a_server_error(agent_token, world_client, name):
    # the request log reads the names of a JSON body's members: a body too deep to parse was a RecursionError there
    episode = token_episode_start(token=agent_token.token, task=task_current("testbed.open-note"))
    body, _path = BODIES[name]
    response = world_client(episode.world).generic("POST", "/notes/3", body, content_type="application/json")
    assert response.status_code < 500, (name, response.status_code)
