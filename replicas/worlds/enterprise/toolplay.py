"""An episode of a compiled replica played by tool calls instead of clicks.

The agent's action `tool("NAME", arg=value, ...)` calls the replica's operation NAME (a tool of graph.json, as the MCP
server of mcp.py serves it, arguments checked against the same types) on the episode's world, acting as the person it
signed in as with `tool("sign_in", email="...", password="...")`. A call is the REST endpoint's request on the world's
server, as the browser's requests are: the world logs it, so the step records it with the rows it wrote; the endpoint
applies the roles and policies; and the task's verifier judges the world as after clicks. Every other action still
goes to the browser. The episode engine asks every replica for the session an episode acts through
(`ReplicaConfig.episode_session`); a compiled replica's is a ToolSession around the browser's.

A tool's answer is the step's observation's `extra["tool_result"]`; a refused or malformed call is the observation's
last action error, and the episode goes on, as with a browser action that failed."""

import ast
import asyncio
import concurrent.futures
import json
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx2
from django.core.exceptions import ValidationError

from replicas.worlds.routing import world_origin
from replicas.worlds.scoping import bound_world

CALL = "tool"
SIGN_IN = "sign_in"
SHAPE = 'write tool("NAME", name=value, ...): the tool\'s name, then its arguments by name'


class ToolCallError(ValueError):
    pass


def tool_call_parse(text: str) -> tuple[str, dict] | None:
    """(tool name, arguments) of a tool call; None for any other action; ToolCallError for a malformed call."""
    text = text.strip()
    if not text.startswith(f"{CALL}("):
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise ToolCallError(f"{SHAPE} ({exc.msg})") from None
    named = isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
    if not named or not isinstance(node.args[0].value, str) or any(k.arg is None for k in node.keywords):
        raise ToolCallError(SHAPE)
    try:
        return node.args[0].value, {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except ValueError:
        raise ToolCallError(f"{SHAPE}: each value a literal (text, a number, True, False, None)") from None


def _literal(value) -> str:
    # text in double quotes, as the browser actions write it (a JSON string is a Python literal too)
    return json.dumps(value) if isinstance(value, str) else repr(value)


def tool_call(name: str, arguments: dict) -> str:
    """The action text of a tool call (the inverse of tool_call_parse): how a reference solution writes one."""
    parts = [_literal(name), *(f"{key}={_literal(value)}" for key, value in arguments.items())]
    return f"{CALL}({', '.join(parts)})"


@dataclass
class ToolStep:
    """What a browser session's step returns, for a tool call (the driver reads these fields)."""

    observation: object
    error: str
    timings: dict = field(default_factory=dict)
    target_box: dict | None = None
    target_bid: str | None = None


def _in_own_loop(coroutine):
    # the browser's sync API keeps an event loop in this thread: the call runs its own in another
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class ToolSession:
    """A browser session of an episode that also takes tool calls; it is the browser session for everything else."""

    def __init__(self, browser, *, world, runtime, server):
        self._browser = browser
        self._world = world
        self._runtime = runtime
        self._server = server
        self._person: tuple[str, str] | None = None  # (email, password) of the last sign_in that succeeded

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def step(self, action_text: str):
        try:
            call = tool_call_parse(action_text)
        except ToolCallError as exc:
            call, error = None, str(exc)
        else:
            if call is None:
                return self._browser.step(action_text)
        started = time.perf_counter()
        answer = None
        if call is not None:
            try:
                answer, error = self._call(*call), ""
            except ToolCallError as exc:
                error = str(exc)
        acted = time.perf_counter()
        # the observation as after a browser action: its step number, this action and its error
        browser = self._browser
        browser.step_index += 1
        browser.last_action, browser.last_error = action_text, error
        observation = browser.observe()
        observation.extra["tool_result"] = answer
        timings = {
            "action_ms": round((acted - started) * 1000, 2),
            "observe_ms": round((time.perf_counter() - acted) * 1000, 2),
        }
        return ToolStep(observation=observation, error=error, timings=timings)

    def _call(self, name: str, arguments: dict):
        if name == SIGN_IN:
            return self._sign_in(**arguments)
        if self._person is None:
            raise ToolCallError(f'sign in first: tool("{SIGN_IN}", email="...", password="...")')
        host, port = self._server()
        origin = world_origin(self._world, port)
        http = httpx2.AsyncClient(
            base_url=f"http://{host}:{port}", headers={"Host": urlsplit(origin).netloc}, auth=self._person, timeout=60
        )
        server = self._runtime.mcp_server(url=origin, email=self._person[0], password=self._person[1], http=http)
        # the SDK's errors: an unknown tool, arguments of the wrong type, the endpoint's refusal (its status, why)
        from mcp.server.mcpserver.exceptions import ToolError  # noqa: PLC0415 - the SDK loads with the first call

        async def run():
            async with http:
                return await server.call_tool(name, arguments)

        try:
            result = _in_own_loop(run())
        except ToolError as exc:
            raise ToolCallError(str(exc)) from None
        return result.structured_content

    def _sign_in(self, email=None, password=None, **unknown):
        if unknown or not isinstance(email, str) or not isinstance(password, str):
            raise ToolCallError(f'{SIGN_IN} takes email="..." and password="..." only')
        with bound_world(self._world):
            try:
                person = self._runtime.services.person_authenticate(
                    email=email, password=password, seed=self._world.seed
                )
            except ValidationError as exc:
                self._person = None
                raise ToolCallError(exc.messages[0]) from None
        self._person = (email, password)
        return {"signed_in": person.email, "name": person.name, "role": person.role}
