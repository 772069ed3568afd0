"""The MCP gateway, through the official mcp SDK's client over streamable HTTP: tools listed, a task completed
with browser tools, token quotas, unfinished episodes closed when their MCP session ends or idles."""

import asyncio
import concurrent.futures
import json
import re
import time

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from replicagym.accounts.models import AgentToken
from replicagym.accounts.tokens import token_create
from replicagym.gateways.mcp_server import mcp_http_app, mcp_server
from replicagym.gateways.schemas import SCHEMAS

from catalogue.packs import task_current, task_sync
from episodes.models import Episode
from replicas.testbed.models import Note
from replicas.worlds.scoping import bound_world
from tests.episodes.fixtures import sync_test_pack
from tests.gateways.server import asgi_server
from tests.waiting import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def secret(django_user_model):
    sync_test_pack()
    user = django_user_model.objects.create_user(username="mcp-agent", password="pw-123456")
    return token_create(user=user, suites=["smoke"], expires_days=1).secret


@pytest.fixture
def testbed_secret(django_user_model):
    """A token of the testbed pack's own suite: tasks that need signing in and editing a note."""
    task_sync(replica="testbed")
    user = django_user_model.objects.create_user(username="mcp-editor", password="pw-123456")
    return token_create(user=user, suites=["testbed"], expires_days=1).secret


@pytest.fixture
def server():
    app = mcp_server()[0].streamable_http_app()
    with asgi_server(app) as url:
        yield url + "/mcp"


def bid_of(axtree: str, role: str, name: str) -> str:
    found = re.search(rf"\[([a-z]{{0,2}}\d+)\] {role} {re.escape(repr(name))}", axtree)
    assert found, f"no {role} {name!r} in the page:\n{axtree}"
    return found.group(1)


def _client(url: str, secret: str, mode: str = "auto") -> Client:
    """The SDK's client; mode="legacy" speaks the handshake-era protocol, with an MCP session (Mcp-Session-Id)."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=120)
    return Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120, mode=mode)


def _data(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content if result.structured_content is not None else json.loads(result.content[0].text)


def in_own_loop(coroutine):
    """Runs a coroutine on a thread of its own: a browser fixture of the same worker may hold this thread's loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_an_mcp_client_lists_the_tools_and_completes_a_task(server, testbed_secret):
    """Sign in on the testbed (fill, fill, click) and rename a note on its page (fill, click), reading bids from
    observe.
    """
    params = task_current("testbed.rename-note").params

    async def play():
        calls = {}
        async with _client(server, testbed_secret) as client:
            calls["names"] = {tool.name for tool in (await client.list_tools()).tools}
            started = calls["started"] = _data(await client.call_tool("start_episode", {"task": "testbed.rename-note"}))
            episode = started["episode"]
            login = calls["login"] = _data(await client.call_tool("observe", {"episode": episode}))
            axtree = login["observation"]["axtree"]
            calls["email"] = _data(
                await client.call_tool(
                    "fill", {"episode": episode, "bid": bid_of(axtree, "textbox", "Email"), "value": params["email"]}
                )
            )
            calls["password"] = _data(
                await client.call_tool(
                    "fill",
                    {"episode": episode, "bid": bid_of(axtree, "textbox", "Password"), "value": params["password"]},
                )
            )
            signed_in = calls["signed_in"] = _data(
                await client.call_tool("click", {"episode": episode, "bid": bid_of(axtree, "button", "Sign in")})
            )
            title = bid_of(signed_in["observation"]["axtree"], "textbox", "Title")
            calls["title"] = _data(
                await client.call_tool("fill", {"episode": episode, "bid": title, "value": params["new_title"]})
            )
            calls["saved"] = _data(
                await client.call_tool(
                    "click", {"episode": episode, "bid": bid_of(signed_in["observation"]["axtree"], "button", "Save")}
                )
            )
            calls["missing"] = _data(await client.call_tool("click", {"episode": episode, "bid": "a999999"}))
            calls["finished"] = _data(await client.call_tool("finish", {"episode": episode}))
            calls["after"] = await client.call_tool("observe", {"episode": episode})
        return calls

    calls = in_own_loop(play())
    assert {
        "start_episode",
        "observe",
        "send_message",
        "finish",
        "click",
        "fill",
        "goto",
        "scroll",
        "press",
        "select_option",
        "report_infeasible",
        "noop",
    } <= calls["names"]
    assert "send_msg_to_user" not in calls["names"]
    note = params["note"]
    # the start page wants a signed-in member: the world sends the browser to its sign-in page
    assert "/login" in calls["started"]["observation"]["url"] and not calls["started"]["done"]
    assert calls["login"]["state"]["status"] == "running" and calls["login"]["state"]["step_count"] == 0
    for name in ("email", "password", "signed_in", "title", "saved"):
        obs = calls[name]["observation"]
        assert obs["last_action_error"] is False, (name, obs["error"])
        assert calls[name]["done"] is False and calls[name]["reward"] is None
    assert f"value='{params['email']}'" in calls["email"]["observation"]["axtree"]
    assert calls["signed_in"]["observation"]["url"].endswith(f"/notes/{note}")
    assert f"value='{params['title']}'" in calls["signed_in"]["observation"]["axtree"]
    assert f"value='{params['new_title']}'" in calls["title"]["observation"]["axtree"]
    assert calls["saved"]["observation"]["url"].endswith("/notes")  # saved: back on the list
    assert params["new_title"] in calls["saved"]["observation"]["axtree"]
    assert calls["missing"]["observation"]["last_action_error"]  # a failed action is the observation's error
    finished = calls["finished"]
    assert finished["status"] == "succeeded" and finished["verdict"]["passed"] is True and finished["done"] is True
    assert finished["rewards"]["task_completion"] == 1.0
    assert finished["verdict"] == {"passed": True}  # never the assertions
    assert calls["after"].is_error and "no episode" in calls["after"].content[0].text  # finished: gone from the server
    episode = Episode.objects.get(pk=calls["started"]["episode"])
    token = AgentToken.objects.get(user__username="mcp-editor")
    assert episode.owner.username == "mcp-editor" and episode.agent == f"external:token-{token.pk}"  # unnamed token
    assert [a.split("(")[0] for a in episode.steps.order_by("index").values_list("action", flat=True)] == [
        "fill",
        "fill",
        "click",
        "fill",
        "click",
        "click",
    ]
    with bound_world(episode.world):
        assert Note.objects.get(public_id=note).title == params["new_title"]


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


def test_a_start_past_the_token_quota_is_refused_and_changes_nothing(server, django_user_model):
    sync_test_pack()
    user = django_user_model.objects.create_user(username="mcp-quota", password="pw-123456")
    secret = token_create(user=user, suites=["smoke"], expires_days=1, max_concurrent=1).secret

    async def attempts():
        async with _client(server, secret) as client:
            first = _data(await client.call_tool("start_episode", {"task": "testbed.open-note"}))
            second = await client.call_tool("start_episode", {"task": "testbed.open-note", "seed": 9})
            still = _data(await client.call_tool("observe", {"episode": first["episode"]}))
            await client.call_tool("finish", {"episode": first["episode"]})
            third = _data(await client.call_tool("start_episode", {"task": "testbed.open-note"}))
            await client.call_tool("finish", {"episode": third["episode"]})
        return first, second, still, third

    first, second, still, third = in_own_loop(attempts())
    assert second.is_error
    text = second.content[0].text
    assert "1 episodes of this token are queued or running (limit 1)" in text and re.search(r"retry after \d+ s", text)
    assert still["state"]["status"] == "running"  # the refusal ended nothing
    assert Episode.objects.filter(owner=user).count() == 2 and not Episode.objects.filter(world_seed=9).exists()
    assert third["episode"] != first["episode"]  # once the first finished, the slot was free again


def test_every_tool_parameter_is_described_and_every_tool_declares_its_output(server, secret):
    async def listed():
        async with _client(server, secret) as client:
            return (await client.list_tools()).tools

    tools = in_own_loop(listed())
    assert len(tools) > 30
    for tool in tools:
        properties = tool.input_schema["properties"]
        undescribed = [name for name, schema in properties.items() if not schema.get("description")]
        assert not undescribed, (tool.name, undescribed)
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
    by_name = {tool.name: tool for tool in tools}
    # the replies' shapes are the OpenEnv gateway's: one schema for both
    assert by_name["click"].output_schema["properties"]["observation"] == SCHEMAS["observation"]
    assert by_name["observe"].output_schema["properties"]["state"] == SCHEMAS["state"]
    assert by_name["start_episode"].output_schema["required"] == ["observation", "reward", "done", "episode"]
    assert by_name["finish"].output_schema["properties"] == SCHEMAS["state"]["properties"]


def test_the_idle_timeout_is_a_setting_of_120_s_for_episodes_and_mcp_sessions(settings):
    assert mcp_server()[1].table.idle_seconds == 120.0
    settings.MCP_IDLE_SECONDS = 7
    assert mcp_server()[1].table.idle_seconds == 7.0
    assert mcp_server(idle_seconds=2)[1].table.idle_seconds == 2.0
    app = mcp_http_app()
    manager = next(route.app for route in app.routes if route.path == "/mcp").session_manager
    assert manager.session_idle_timeout == 7.0


@pytest.fixture
def one_slot(django_user_model):
    sync_test_pack()
    user = django_user_model.objects.create_user(username="mcp-one-slot", password="pw-123456")
    return token_create(user=user, suites=["smoke"], expires_days=1, max_concurrent=1).secret


def _start(url, secret, mode="auto"):
    async def run():
        async with _client(url, secret, mode=mode) as client:
            return await client.call_tool("start_episode", {"task": "testbed.open-note"})

    return in_own_loop(run())


def _freed_after(url, secret) -> tuple[float, int]:
    """(seconds until a token of one slot could start an episode again, that episode's id)."""
    started = time.monotonic()

    def started_again():
        again = _start(url, secret)
        assert not again.is_error or "(limit 1)" in again.content[0].text, again.content[0].text
        return None if again.is_error else [again]  # in a list: true whatever the result's own truth

    (again,) = wait_until(started_again, 30, "the slot to be free again", interval=0)
    return time.monotonic() - started, _data(again)["episode"]


def test_an_episode_left_unfinished_is_closed_and_its_slot_freed_when_its_mcp_session_ends(one_slot):
    server, tools = mcp_server()
    with asgi_server(server.streamable_http_app()) as url:
        # the client's exit ends its MCP session (DELETE /mcp)
        episode = _data(_start(url + "/mcp", one_slot, mode="legacy"))["episode"]
        seconds, second = _freed_after(url + "/mcp", one_slot)
        ended = Episode.objects.get(pk=episode)
        wait_until(lambda: not tools.table.closing, timeout=30, what="the closings to end")
    assert ended.status == "failed" and "MCP session ended" in ended.error
    assert ended.finished_at is not None and ended.verdict is not None  # verified as it stood, then closed
    assert second != episode and seconds < 30


def test_an_idle_episode_is_closed_after_the_idle_timeout_and_its_slot_freed(one_slot):
    server, tools = mcp_server(idle_seconds=1.5)
    with asgi_server(server.streamable_http_app()) as url:

        async def run():
            async with _client(url + "/mcp", one_slot) as client:
                episode = _data(await client.call_tool("start_episode", {"task": "testbed.open-note"}))["episode"]
                # the session stays open; the episode gets no tool call
                # polled off this loop, so the client's session tasks keep running meanwhile
                await asyncio.to_thread(
                    wait_until, lambda: episode not in tools.sessions, 20, "the idle session to end"
                )
                late = await client.call_tool("observe", {"episode": episode})
                again = await client.call_tool("start_episode", {"task": "testbed.open-note"})
                return episode, late, again

        episode, late, again = in_own_loop(run())
        ended = wait_until(
            lambda: Episode.objects.filter(pk=episode).exclude(status="running").first(),
            timeout=60,
            what="the idle episode to be closed",
        )
    assert late.is_error and "no episode" in late.content[0].text
    assert ended.status == "timed_out" and "closed as idle" in ended.error
    assert not again.is_error, again.content  # the idle episode's slot was free for the next start
