"""A compiled replica's operations as MCP tools, through the official `mcp` SDK's client over streamable HTTP: the
tools are graph.json's, typed from the spec, and a call changes the world as its REST endpoint does (roles and
policies included). The tools' HTTP calls reach the world's REST endpoints through Django's ASGI app in-process."""

import asyncio
import concurrent.futures
import json

import httpx2
import pytest
from django.core.asgi import get_asgi_application
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from replicas.worlds.registry import get_replica, replicas
from replicas.worlds.scoping import bound_world
from tests.gateways.server import asgi_server

pytestmark = [
    pytest.mark.skipif("timeoff" not in replicas(), reason="the timeoff replica is not built"),
    pytest.mark.django_db(transaction=True),  # the servers' threads read the world the test made
]


def in_own_loop(coroutine):
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _data(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content if result.structured_content is not None else json.loads(result.content[0].text)


def test_the_official_client_lists_a_compiled_replicas_tools_and_approves_a_request(make_world):
    world = make_world(replica="timeoff", seed=7, variant="small")
    runtime = get_replica("timeoff").runtime()
    domain = runtime.domain
    with bound_world(world):
        # a pending request whose assigned manager is at work (no delegate in the way)
        request = next(
            r
            for r in domain.model("time_off_request").objects.filter(status="requested").order_by("number")
            if not r.approver.out_of_office
        )
        manager, requester = request.approver, request.requested_by
        # one assigned to another manager, who has not delegated to this one: the delegated-approver policy refuses
        foreign = next(
            r
            for r in domain.model("time_off_request").objects.filter(status="requested").order_by("number")
            if r.approver_id != manager.pk and r.approver.delegate_id != manager.pk
        )
    password = runtime.services.person_password(seed=world.seed, number=manager.number)
    origin = f"http://w-{world.token}.localhost:8000"
    http = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=get_asgi_application()), base_url=origin, auth=(manager.email, password)
    )
    server = runtime.mcp_server(url=origin, email=manager.email, password=password, http=http)
    graph = json.loads(runtime.graph_path.read_text())

    async def play(url):
        async with Client(streamable_http_client(url), read_timeout_seconds=60) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            before = _data(await client.call_tool("get_time_off_request", {"number": request.number}))
            approved = _data(await client.call_tool("approve_time_off_request", {"number": request.number}))
            again = await client.call_tool("approve_time_off_request", {"number": request.number})
            listing = _data(await client.call_tool("list_time_off_request", {"status": "approved"}))
            refused = await client.call_tool("approve_time_off_request", {"number": foreign.number})
            return listed, before, approved, again, listing, refused

    with asgi_server(server.streamable_http_app()) as url:
        listed, before, approved, again, listing, refused = in_own_loop(play(url + "/mcp"))

    assert set(listed) == {tool["name"] for tool in graph["tools"]}
    approve = listed["approve_time_off_request"]
    assert approve.input_schema["required"] == ["number"] and "manager" in approve.description
    create = listed["create_time_off_request"].input_schema
    assert create["properties"]["request_type"]["enum"][0] == "vacation" and "amount" in create["required"]
    assert before["status"] == "requested" and before["code"] == f"TO-{request.number}"
    assert approved["status"] == "approved" and approved["decided_by"] == manager.number
    # the endpoint's refusal comes back as the tool's error, with its reason
    assert again.is_error and "403" in again.content[0].text and "approved" in again.content[0].text
    assert request.number in {row["number"] for row in listing["results"]}
    assert refused.is_error and "Only the assigned manager" in refused.content[0].text
    with bound_world(world):
        request.refresh_from_db()
        assert (request.status, request.decided_by_id) == ("approved", manager.pk)
        entry = domain.audit_model().objects.get(record=f"TO-{request.number}", action="approve")
        assert entry.actor_id == manager.pk and requester.pk != manager.pk
        foreign.refresh_from_db()
        assert foreign.status == "requested"
