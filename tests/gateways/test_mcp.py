"""The MCP gateway, through the official mcp SDK's client over streamable HTTP: tools listed, a task completed."""
import asyncio
import concurrent.futures
import json

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from replicagym.accounts.tokens import token_create
from replicagym.catalogue.packs import task_current
from replicagym.gateways.mcp_server import mcp_server

from episodes.models import Episode
from tests.episodes.fixtures import sync_test_pack
from tests.gateways.server import asgi_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def secret(django_user_model):
    sync_test_pack()
    user = django_user_model.objects.create_user(username="mcp-agent", password="pw-123456")
    return token_create(user=user, suites=["smoke"], expires_days=1).secret


@pytest.fixture
def server():
    app = mcp_server()[0].streamable_http_app()
    with asgi_server(app) as url:
        yield url + "/mcp"


def _client(url: str, secret: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=120)
    return Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120)


def _data(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content if result.structured_content is not None else json.loads(result.content[0].text)


def in_own_loop(coroutine):
    """Runs a coroutine on a thread of its own: a browser fixture of the same worker may hold this thread's loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_an_mcp_client_lists_the_tools_and_completes_a_task(server, secret):
    status = task_current("testbed.open-note").params["status"]

    async def play():
        async with _client(server, secret) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            started = _data(await client.call_tool("start_episode", {"task": "testbed.open-note"}))
            episode = started["episode"]
            seen = _data(await client.call_tool("observe", {"episode": episode}))
            clicked = _data(await client.call_tool("click", {"episode": episode, "bid": "a999999"}))
            answered = _data(await client.call_tool("send_message", {"episode": episode, "text": f"Note #3 is {status}."}))
            finished = _data(await client.call_tool("finish", {"episode": episode}))
            return names, started, seen, clicked, answered, finished

    names, started, seen, clicked, answered, finished = in_own_loop(play())
    assert {"start_episode", "observe", "send_message", "finish", "click", "fill", "goto", "scroll", "press",
            "select_option", "report_infeasible", "noop"} <= names
    assert "send_msg_to_user" not in names
    assert started["observation"]["url"].endswith("/notes/3") and not started["done"]
    assert seen["state"]["status"] == "running" and "[" in seen["observation"]["axtree"]
    assert clicked["observation"]["last_action_error"] and not clicked["done"]
    assert answered["done"] and answered["reward"] > 0.5
    assert finished["status"] == "succeeded" and finished["verdict"]["passed"] is True
    assert [set(a) for a in finished["verdict"]["assertions"]] == [{"name", "passed", "required"}]
    episode = Episode.objects.get(pk=started["episode"])
    assert episode.owner.username == "mcp-agent"
    assert list(episode.steps.values_list("action", flat=True)) == ['click("a999999")', f'send_msg_to_user("Note #3 is {status}.")']


def test_mcp_tools_refuse_a_bad_token_another_scope_and_unknown_episodes(server, secret):
    async def attempts():
        async with _client(server, "rg_nope") as client:
            bad_token = await client.call_tool("start_episode", {"task": "testbed.open-note"})
        async with _client(server, secret) as client:
            out_of_scope = await client.call_tool("start_episode", {"task": "testbed.report-owner"})
            unknown = await client.call_tool("observe", {"episode": 424242})
        return bad_token, out_of_scope, unknown

    bad_token, out_of_scope, unknown = in_own_loop(attempts())
    assert bad_token.is_error and "invalid token" in bad_token.content[0].text
    assert out_of_scope.is_error and "smoke" in out_of_scope.content[0].text
    assert unknown.is_error and "no episode 424242" in unknown.content[0].text
    assert not Episode.objects.exists()
