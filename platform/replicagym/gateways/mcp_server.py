"""An MCP server (streamable HTTP, the official `mcp` SDK) exposing episodes as tools.

`start_episode` starts one in a fresh world and names it; `observe`, one tool per browser
action of the engine's grammar, `send_message` and `finish` take that episode id. Requests
carry `Authorization: Bearer <agent token>`: a token starts episodes of its suites only,
acts on its own episodes only, and sees the agent view of verdicts; starts count against its quotas
(a refusal past them says when to retry).

An episode left unfinished is closed, its browser context freed and the episode ended (its slot of the token's
concurrent episodes with it): failed when the MCP session that started it ends (the client's DELETE, the session
idle timeout, a server stop), timed out after the idle timeout without a tool call on it. The idle timeout is the
setting MCP_IDLE_SECONDS (REPLICAGYM_MCP_IDLE_SECONDS, default 120 s), for the episode and the MCP session alike.
Only handshake-era clients (protocol before 2026-07-28) have a session; a 2026-07-28 request stands alone, like
stateless HTTP, and there the idle timeout closes the episode.
Every tool parameter is described, and every tool declares its output schema (the OpenEnv gateway's observation
and state schemas).
Run: `uvicorn replicagym.gateways.asgi:mcp --app-dir platform` (endpoint /mcp).
"""

import inspect
from contextlib import asynccontextmanager
from dataclasses import MISSING, fields
from typing import Annotated, Any

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ConfigDict, Field, RootModel

from episodes.models import Episode
from verifiers.actions import ACTIONS, signature

from .schemas import STATE_SCHEMA, STEP_REPLY_SCHEMA
from .sessions import MAX_SEED, GatewayError, GatewaySession, SessionTable, header_token

SESSION_ENDED = "the MCP session ended before the episode was finished"
# How an action's argument kinds (verifiers.actions) read as tool parameters.
KIND_TYPES = {"number": float, "index": int, "wait_ms": int, "modifiers": list[str], "strs": list[str]}
# Sending the answer is `send_message`; the others are browser actions.
NOT_BROWSER = {"send_msg_to_user"}
# What each argument of a browser action is, by its name (verifiers.actions); a new one must be described here.
PARAMETERS = {
    "bid": "The element's bid: the [id] before it in the observation's axtree.",
    "from_bid": "The bid of the element to drag.",
    "to_bid": "The bid of the element to drop it on.",
    "button": "The mouse button: left, middle or right.",
    "modifiers": "Keys held down meanwhile: Alt, Control, Meta, Shift.",
    "value": "The text the field is to hold (what it held is replaced).",
    "text": "The text to type.",
    "reason": "Why the task cannot be done: this ends the episode.",
    "options": "The options to select, by label or value.",
    "file": "The paths of the files to upload.",
    "key": "A key, as Playwright names it: Enter, Tab, ArrowDown, a.",
    "key_comb": "A key or a combination, as Playwright names them: Enter, Control+a.",
    "x": "Pixels from the viewport's left edge.",
    "y": "Pixels from the viewport's top edge.",
    "from_x": "Pixels from the viewport's left edge where the drag starts.",
    "from_y": "Pixels from the viewport's top edge where the drag starts.",
    "to_x": "Pixels from the viewport's left edge where the drag ends.",
    "to_y": "Pixels from the viewport's top edge where the drag ends.",
    "delta_x": "Pixels to scroll right (negative: left).",
    "delta_y": "Pixels to scroll down (negative: up).",
    "url": "The page to open: a URL of the world, as observations show it (http://world.test/...).",
    "index": "The tab's position in the observation's tabs, from 0.",
    "wait_ms": "Milliseconds to wait before observing the page.",
}
Episode_ = Annotated[int, Field(description="The episode's id, as start_episode returned it.")]


def _output(name: str, schema: dict, **extra_properties) -> type[RootModel]:
    """A tool's return type whose output schema is `schema` (the OpenEnv gateway's, so both describe one shape),
    with `extra_properties` added."""
    if extra_properties:
        properties = schema["properties"] | extra_properties
        schema = schema | {"properties": properties, "required": [*schema["required"], *extra_properties]}
    return type(name, (RootModel[dict[str, Any]],), {"model_config": ConfigDict(json_schema_extra=schema)})


StepReply = _output("StepReply", STEP_REPLY_SCHEMA)
StartReply = _output(
    "StartReply", STEP_REPLY_SCHEMA, episode={"type": "integer", "description": "The episode's id: tools take it."}
)
ObserveReply = _output("ObserveReply", STEP_REPLY_SCHEMA, state=STATE_SCHEMA)
StateReply = _output("StateReply", STATE_SCHEMA)


class EpisodeTools:
    """The running MCP sessions: one GatewaySession (and engine thread) per started episode, by episode id."""

    def __init__(self, idle_seconds: float):
        self.table = SessionTable(
            idle_seconds=idle_seconds,
            idle_why="no tool call",
            stopped_why="the MCP server stopped before the episode was finished",
        )

    @property
    def sessions(self) -> dict[int, GatewaySession]:
        return self.table.sessions

    async def token(self, ctx: Context):
        headers = ctx.headers or {}
        return await sync_to_async(header_token, thread_sensitive=False)(headers.get("authorization"))

    async def session(self, ctx: Context, episode: int) -> GatewaySession:
        token = await self.token(ctx)
        session = self.sessions.get(episode) if isinstance(episode, int) else None
        if session is None or session.token.pk != token.pk:  # another token's episode is as good as none
            raise GatewayError(f"no episode {episode!r} of this token here: call start_episode first", 404)
        return session

    async def start(self, ctx: Context, task: str, seed: int | None, variation: int | None = None) -> dict:
        session = GatewaySession(await self.token(ctx))
        await self.table.closed_for(session.token.pk)
        try:
            result = await session.call(session.reset, {"task": task, "seed": seed, "variation": variation})
        except BaseException:
            await session.aclose()
            raise
        self.sessions[session.episode.pk] = session  # the loop's one thread: no await between these, no lock
        self._close_with_connection(ctx, session.episode.pk)
        return {"episode": session.episode.pk, **result}

    async def step(self, ctx: Context, episode: int, action: str) -> dict:
        session = await self.session(ctx, episode)
        return await session.call(session.step, {"action": action})

    async def finish(self, ctx: Context, episode: int) -> dict:
        """End the episode (verified as it stands, if still running) and free its browser."""
        session = await self.session(ctx, episode)
        if self.sessions.pop(episode, None) is None:  # closed meanwhile (its MCP session ended, idle)
            raise GatewayError(f"episode {episode} was closed: it is no longer running", 409)
        try:
            return await session.call(session.finish)
        finally:
            await session.aclose()

    def _close_with_connection(self, ctx: Context, episode: int) -> None:
        """Close the episode when the MCP session that started it ends, however it ends.

        The SDK unwinds a connection's exit stack when its session ends (DELETE, its idle timeout, a crash,
        shutdown); that stack is reached through the request's ServerSession. A request of protocol 2026-07-28
        or over stateless HTTP has no session (its connection lasts one request): there the idle timeout
        closes the episode.
        """
        connection = getattr(ctx.session, "_connection", None)
        if connection is None or getattr(connection, "session_id", None) is None:
            return

        async def on_session_end():  # the SDK gives exit-stack callbacks seconds: the closing runs on after
            self.table.close_soon(episode, SESSION_ENDED, Episode.Status.FAILED)

        connection.exit_stack.push_async_callback(on_session_end)

    @asynccontextmanager
    async def lifespan(self, server):
        """The server's lifespan: idle episodes are closed while it runs, what is still open when it stops."""
        async with self.table.running():
            yield {}


def _action_tool(tools: EpisodeTools, cls):
    """A tool for one action: its parameters are the action's, plus the episode id."""
    params = [
        inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context),
        inspect.Parameter("episode", inspect.Parameter.KEYWORD_ONLY, annotation=Episode_),
    ]
    annotations = {"ctx": Context, "episode": Episode_, "return": StepReply}
    for f in fields(cls):
        kind_type = Annotated[KIND_TYPES.get(f.metadata.get("kind"), str), Field(description=PARAMETERS[f.name])]
        default = (
            inspect.Parameter.empty
            if f.default is MISSING
            else (list(f.default) if isinstance(f.default, tuple) else f.default)
        )
        params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=kind_type, default=default))
        annotations[f.name] = kind_type

    async def tool(*, ctx: Context, episode: int, **values) -> StepReply:
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        # the canonical action text: the engine parses and checks it like any agent's
        return await tools.step(ctx, episode, str(cls(**values)))

    tool.__signature__ = inspect.Signature(params, return_annotation=StepReply)
    tool.__annotations__ = annotations
    tool.__name__ = cls.name
    tool.__doc__ = f"Browser action {signature(cls.name)} on the episode's page; returns the next observation."
    return tool


def mcp_server(*, idle_seconds: float | None = None) -> tuple[MCPServer, EpisodeTools]:
    """The MCP server and its episodes; an episode with no tool call for `idle_seconds` (default: the setting
    MCP_IDLE_SECONDS) is closed."""
    tools = EpisodeTools(settings.MCP_IDLE_SECONDS if idle_seconds is None else idle_seconds)
    server = MCPServer(
        name="replicagym",
        lifespan=tools.lifespan,
        instructions=(
            "Start an episode with start_episode(task), read the page with observe(episode) (the accessibility tree "
            "names elements by bid), act with the browser action tools, answer with send_message, then finish."
        ),
    )

    @server.tool()
    async def start_episode(
        ctx: Context,
        task: Annotated[str, Field(description="A task id of the token's suites, <replica>.<slug>.")],
        seed: Annotated[
            int | None, Field(ge=0, le=MAX_SEED, description="The world's seed (default: drawn per episode).")
        ] = None,
        variation: Annotated[
            int | None,
            Field(ge=0, le=MAX_SEED, description="The episode's variation: the same one, the same world and answer."),
        ] = None,
    ) -> StartReply:
        """Start an episode of `task` in a fresh world; returns its id and first observation."""
        return await _guarded(tools.start(ctx, task, seed, variation))

    @server.tool()
    async def observe(ctx: Context, episode: Episode_) -> ObserveReply:
        """The episode's current observation and state."""

        async def run():
            session = await tools.session(ctx, episode)
            return await session.call(session.current)

        return await _guarded(run())

    @server.tool()
    async def send_message(
        ctx: Context,
        episode: Episode_,
        text: Annotated[str, Field(description="The message: the task's answer, if it asks for one.")],
    ) -> StepReply:
        """Send the user a message (the task's answer): this ends the episode and returns its reward."""
        return await _guarded(tools.step(ctx, episode, str(ACTIONS["send_msg_to_user"](text))))

    @server.tool()
    async def finish(ctx: Context, episode: Episode_) -> StateReply:
        """End the episode and return its state: status, whether it passed, and its rewards."""
        return await _guarded(tools.finish(ctx, episode))

    for name, cls in ACTIONS.items():
        if name not in NOT_BROWSER:
            tool = _action_tool(tools, cls)
            server.add_tool(_guarded_tool(tool), name=name, description=tool.__doc__)
    return server, tools


async def _guarded(awaitable) -> dict:
    """A refused request is the tool's error, with the reason (the MCP client sees isError and the text)."""
    try:
        return await awaitable
    except GatewayError as exc:
        raise ToolError(str(exc)) from None


def _guarded_tool(tool):
    async def guarded(**kwargs):
        return await _guarded(tool(**kwargs))

    guarded.__signature__, guarded.__annotations__ = tool.__signature__, tool.__annotations__
    guarded.__name__, guarded.__doc__ = tool.__name__, tool.__doc__
    return guarded


def mcp_http_app(*, idle_seconds: float | None = None):
    """The MCP gateway as a streamable-HTTP ASGI app (endpoint /mcp): an MCP session idle for `idle_seconds`
    (default: the setting MCP_IDLE_SECONDS) ends, and its episodes with it, as an episode idle that long does."""
    server, tools = mcp_server(idle_seconds=idle_seconds)
    return server.streamable_http_app(session_idle_timeout=tools.table.idle_seconds)
