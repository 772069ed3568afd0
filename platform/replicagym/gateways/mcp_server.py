"""An MCP server (streamable HTTP, the official `mcp` SDK) exposing episodes as tools.

`start_episode` starts one in a fresh world and names it; `observe`, one tool per browser
action of the engine's grammar, `send_message` and `finish` take that episode id. Requests
carry `Authorization: Bearer <agent token>`: a token starts episodes of its suites only,
acts on its own episodes only, and sees the agent view of verdicts; starts count against its quotas
(a refusal past them says when to retry).

An episode left unfinished is closed, its browser context freed and the episode ended: failed when the MCP
session that started it ends (the client's DELETE, the SDK's session idle timeout, a server stop), timed out
after `idle_seconds` without a tool call on it. Only handshake-era clients (protocol before 2026-07-28) have a
session; a 2026-07-28 request stands alone, like stateless HTTP, and there the idle timeout closes the episode.
Run: `uvicorn replicagym.gateways.asgi:mcp --app-dir platform` (endpoint /mcp).
"""

import inspect
from contextlib import asynccontextmanager
from dataclasses import MISSING, fields

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from episodes.models import Episode
from verifiers.actions import ACTIONS, signature

from .sessions import GatewayError, GatewaySession, SessionTable, header_token

IDLE_SECONDS = 600.0  # an episode with no tool call for this long is closed (timed out)
SESSION_ENDED = "the MCP session ended before the episode was finished"
# How an action's argument kinds (verifiers.actions) read as tool parameters.
KIND_TYPES = {"number": float, "index": int, "wait_ms": int, "modifiers": list[str], "strs": list[str]}
# Sending the answer is `send_message`; the others are browser actions.
NOT_BROWSER = {"send_msg_to_user"}


class EpisodeTools:
    """The running MCP sessions: one GatewaySession (and engine thread) per started episode, by episode id."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS):
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
        inspect.Parameter("episode", inspect.Parameter.KEYWORD_ONLY, annotation=int),
    ]
    annotations = {"ctx": Context, "episode": int, "return": dict}
    for f in fields(cls):
        kind_type = KIND_TYPES.get(f.metadata.get("kind"), str)
        default = (
            inspect.Parameter.empty
            if f.default is MISSING
            else (list(f.default) if isinstance(f.default, tuple) else f.default)
        )
        params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=kind_type, default=default))
        annotations[f.name] = kind_type

    async def tool(*, ctx: Context, episode: int, **values) -> dict:
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        # the canonical action text: the engine parses and checks it like any agent's
        return await tools.step(ctx, episode, str(cls(**values)))

    tool.__signature__ = inspect.Signature(params)
    tool.__annotations__ = annotations
    tool.__name__ = cls.name
    tool.__doc__ = f"Browser action {signature(cls.name)} on the episode's page; returns the next observation."
    return tool


def mcp_server(*, idle_seconds: float = IDLE_SECONDS) -> tuple[MCPServer, EpisodeTools]:
    """The MCP server and its episodes; an episode with no tool call for `idle_seconds` is closed."""
    tools = EpisodeTools(idle_seconds)
    server = MCPServer(
        name="replicagym",
        lifespan=tools.lifespan,
        instructions=(
            "Start an episode with start_episode(task), read the page with observe(episode) (the accessibility tree "
            "names elements by bid), act with the browser action tools, answer with send_message, then finish."
        ),
    )

    @server.tool()
    async def start_episode(ctx: Context, task: str, seed: int | None = None, variation: int | None = None) -> dict:
        """Start an episode of `task` (a task id of the token's suites) in a fresh world; returns its id and first observation.
        Its world seed and answer key vary per episode unless `seed` (the world's) or `variation` fixes them."""
        return await _guarded(tools.start(ctx, task, seed, variation))

    @server.tool()
    async def observe(ctx: Context, episode: int) -> dict:
        """The episode's current observation and state."""

        async def run():
            session = await tools.session(ctx, episode)
            return await session.call(session.current)

        return await _guarded(run())

    @server.tool()
    async def send_message(ctx: Context, episode: int, text: str) -> dict:
        """Send the user a message (the task's answer): this ends the episode and returns its reward."""
        return await _guarded(tools.step(ctx, episode, str(ACTIONS["send_msg_to_user"](text))))

    @server.tool()
    async def finish(ctx: Context, episode: int) -> dict:
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
