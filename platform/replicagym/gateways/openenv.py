"""An OpenEnv-compatible server for episodes (ASGI): the WebSocket path and the HTTP endpoints.

WebSocket `/ws`: one session (and at most one running episode) per connection. Messages are
{"type": "reset"|"step"|"state"|"finish"|"close", "data": {...}} (a step's data is the action object,
{"action": "click('a51')"} or BrowserGym's {"action_str": ...}); answers {"type": "observation"|"state"|"error",
"data": {...}}, an error's data {"message", "code"} with OpenEnv's codes.
HTTP: POST /reset, /step (OpenEnv's StepRequest: {"action": {"action": "click('a51')"}}) and /finish, GET /state,
/health, /metadata, /schema, /openapi.json. An HTTP session is named by the id /reset gives (the X-Session-Id
header and a cookie of that name, and observation.metadata.session_id); /step, /state and /finish send it back
(the header, the cookie or ?session_id=), so clients sharing a token never touch each other's episodes. A session
is closed (its episode timed out) after `idle_seconds` without a request. Errors are {"detail": "..."}, with 422
for invalid input and 429 with Retry-After past the token's quotas.
Every path but /health, /schema and /openapi.json wants the agent token: `Authorization: Bearer rg_...`, or in the
URL as http://token:rg_...@host:port (HTTP Basic; the only way OpenEnv's stock client, given just a base URL, can
send it). A token starts episodes of its suites only, and sees the agent view of a verdict, never its detail.
Run: `uvicorn replicagym.gateways.asgi:openenv --app-dir platform` (Django is set up by the asgi module).
"""

import secrets
from contextlib import AsyncExitStack, asynccontextmanager

from asgiref.sync import sync_to_async
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from replicagym.accounts.tokens import token_tasks
from replicagym.jsonintake import JsonIntakeError, json_intake

from .schemas import SCHEMAS, openapi_document
from .sessions import GatewayError, GatewaySession, SessionTable, header_token, step_request_argument

MAX_MESSAGE = 256 * 1024
IDLE_SECONDS = 600.0  # an HTTP client's episode with no request for this long is closed (timed out)
SESSION_HEADER = "X-Session-Id"
SESSION_COOKIE = "replicagym_session"
MAX_SESSION_ID = 128
# OpenEnv's WSErrorCode for what a refusal's HTTP status says; anything else is invalid input
WS_CODES = {401: "SESSION_ERROR", 409: "SESSION_ERROR", 429: "CAPACITY_REACHED", 500: "EXECUTION_ERROR"}
WS_UNAUTHORIZED = 4401  # the close code of a connection whose token is (no longer) valid
WS_TYPES = "reset, step, state, finish, close"
NO_SESSION_STATE = {"episode_id": None, "episode": None, "task": None, "step_count": 0, "status": None, "done": False}


def _error(exc: GatewayError) -> JSONResponse:
    """FastAPI's error shape, as OpenEnv's server answers: {"detail": "..."}."""
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return JSONResponse({"detail": str(exc)}, status_code=exc.status, headers=headers)


def _ws_error(message: str, code: str, **extra) -> dict:
    return {"type": "error", "data": {"message": message, "code": code, **extra}}


async def _token(headers):
    return await sync_to_async(header_token, thread_sensitive=False)(headers.get("authorization"))


async def _body(request: Request) -> dict:
    raw = await request.body()
    if len(raw) > MAX_MESSAGE:
        raise GatewayError(f"the request body is over {MAX_MESSAGE} bytes", 413)
    try:
        data = json_intake(raw or b"{}", max_bytes=MAX_MESSAGE)
    except JsonIntakeError as exc:
        raise GatewayError(f"the request body: {exc}") from None
    if not isinstance(data, dict):
        raise GatewayError("the request body must be a JSON object")
    return data


def _session_id(request: Request) -> str | None:
    """The HTTP session id a request names (header, then query, then cookie), or None; GatewayError if malformed."""
    given = (
        request.headers.get(SESSION_HEADER)
        or request.query_params.get("session_id")
        or request.cookies.get(SESSION_COOKIE)
    )
    if given is not None and (not 1 <= len(given) <= MAX_SESSION_ID or not given.isprintable()):
        raise GatewayError(f"a session id is a printable string of 1 to {MAX_SESSION_ID} characters")
    return given


class OpenEnvServer:
    def __init__(self, idle_seconds: float = IDLE_SECONDS):
        # HTTP sessions by (agent token id, session id): closed after idle_seconds without a request.
        # Keyed by the token too, so a session id names nothing of another token's.
        self.http = SessionTable(
            idle_seconds=idle_seconds,
            idle_why="no request",
            stopped_why="the OpenEnv server stopped before the episode was finished",
        )

    async def _http_session(self, request: Request, *, create: bool, token=None) -> tuple[str, GatewaySession | None]:
        """(the session id, its session): with `create`, a new session when the request names none or an unknown one.

        `token`: the request's agent token, if it was read already.
        """
        token = token or await _token(request.headers)
        session_id = _session_id(request)
        if session_id is None:
            if not create:
                raise GatewayError(
                    f"no session: send the {SESSION_HEADER} header (or the cookie, or ?session_id=) that POST /reset "
                    "gave",
                    409,
                )
            session_id = secrets.token_urlsafe(18)
        # no await between the look-up and the insert: two requests of one session cannot both create it
        session = self.http.sessions.get((token.pk, session_id))
        if session is None and create:
            session = self.http.sessions[(token.pk, session_id)] = GatewaySession(token)
        return session_id, session

    @staticmethod
    def _reply(result: dict, session_id: str) -> JSONResponse:
        """An OpenEnv reply naming its session: in the header, a cookie and the observation's metadata (the only
        place OpenEnv's ResetResponse and StepResponse leave open)."""
        if result.get("observation") is not None:
            observation = result["observation"]
            result = {
                **result,
                "observation": {**observation, "metadata": {**observation["metadata"], "session_id": session_id}},
            }
        response = JSONResponse(result, headers={SESSION_HEADER: session_id})
        response.set_cookie(SESSION_COOKIE, session_id, httponly=True, samesite="strict")
        return response

    async def reset(self, request: Request):
        try:
            data = await _body(request)
            token = await _token(request.headers)
            # before the session is made: one waiting would be idle to the reaper
            await self.http.closed_for(token.pk)
            session_id, session = await self._http_session(request, create=True, token=token)
            return self._reply(await session.call(session.reset, data), session_id)
        except GatewayError as exc:
            return _error(exc)

    async def _running(self, request: Request) -> tuple[str, GatewaySession]:
        session_id, session = await self._http_session(request, create=False)
        if session is None:
            raise GatewayError(f"no session {session_id!r} of this token (closed, or never reset): POST /reset", 409)
        return session_id, session

    async def step(self, request: Request):
        try:
            action = step_request_argument(await _body(request))
            session_id, session = await self._running(request)
            return self._reply(await session.call(session.step, action), session_id)
        except GatewayError as exc:
            return _error(exc)

    async def finish(self, request: Request):
        try:
            session_id, session = await self._running(request)
            return self._reply(await session.call(session.finish_step), session_id)
        except GatewayError as exc:
            return _error(exc)

    async def state(self, request: Request):
        try:
            session_id, session = await self._http_session(request, create=False)
            if session is None:
                return JSONResponse(NO_SESSION_STATE)
            return JSONResponse(await session.call(session.state), headers={SESSION_HEADER: session_id})
        except GatewayError as exc:
            return _error(exc)

    async def health(self, request: Request):
        return JSONResponse({"status": "healthy"})

    async def metadata(self, request: Request):
        """OpenEnv's EnvironmentMetadata (it allows no other field): the token's tasks are in readme_content."""
        try:
            token = await _token(request.headers)
        except GatewayError as exc:
            return _error(exc)
        tasks = await sync_to_async(
            lambda: sorted(token_tasks(token).values_list("task_id", flat=True)), thread_sensitive=False
        )()
        return JSONResponse(
            {
                "name": "replicagym",
                "description": "Tasks on replicas of web products, driven in a real Chromium.",
                "version": "1",
                "readme_content": "Tasks of this agent token (reset's task; an empty reset runs one of them):\n"
                + "\n".join(f"- {task}" for task in tasks),
            }
        )

    async def schema(self, request: Request):
        return JSONResponse(SCHEMAS)

    async def openapi(self, request: Request):
        return JSONResponse(openapi_document())

    async def websocket(self, ws: WebSocket):
        try:
            token = await _token(ws.headers)
        except GatewayError as exc:
            await ws.close(code=WS_UNAUTHORIZED, reason=str(exc)[:120])
            return
        await ws.accept()
        session = GatewaySession(token, recheck_token=True)  # this connection's own, whoever else holds the token
        close_code = None
        try:
            while True:
                reply, close_code = await self._ws_message(session, await ws.receive_text())
                if reply is not None:
                    await ws.send_json(reply)
                if close_code is not None:
                    break
        except WebSocketDisconnect:
            pass
        finally:
            await session.aclose()  # the episode ends with its connection
        if ws.client_state.name == "CONNECTED":
            await ws.close(code=close_code or 1000)

    async def _ws_message(self, session: GatewaySession, text: str) -> tuple[dict | None, int | None]:
        """(the reply, if any; the close code, if the connection ends with it)."""
        if len(text) > MAX_MESSAGE:
            return _ws_error(f"a message is at most {MAX_MESSAGE} bytes", "VALIDATION_ERROR"), None
        try:
            message = json_intake(text, max_bytes=MAX_MESSAGE)
        except JsonIntakeError as exc:
            return _ws_error(f"Invalid JSON: {exc}", "INVALID_JSON"), None
        if not isinstance(message, dict):
            return _ws_error('a message is a JSON object: {"type": "reset", "data": {...}}', "INVALID_JSON"), None
        kind, data = message.get("type"), message.get("data", {})
        try:
            if kind == "close":
                return None, 1000
            if kind == "reset":
                return {"type": "observation", "data": await session.call(session.reset, data)}, None
            if kind == "step":  # the data is the action object, as OpenEnv's client sends it
                return {"type": "observation", "data": await session.call(session.step, data)}, None
            if kind == "finish":
                return {"type": "observation", "data": await session.call(session.finish_step)}, None
            if kind == "state":
                return {"type": "state", "data": await session.call(session.state)}, None
        except GatewayError as exc:
            extra = {"retry_after": exc.retry_after} if exc.retry_after is not None else {}
            # a token revoked or expired meanwhile ends the connection, as it would have refused it
            return (
                _ws_error(str(exc), WS_CODES.get(exc.status, "VALIDATION_ERROR"), **extra),
                WS_UNAUTHORIZED if exc.status == 401 else None,
            )
        return _ws_error(f"unknown message type {kind!r} (types: {WS_TYPES})", "UNKNOWN_TYPE"), None


def mcp_at(mcp_app):
    """The MCP gateway's app as the OpenEnv server's /mcp: a body that is no JSON-RPC message at all (OpenEnv's
    probe, `openenv validate`, posts {}) is answered as JSON-RPC over HTTP answers it, 200 with an Invalid Request
    error; every message goes to the MCP server as it came."""

    async def app(scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            return await mcp_app(scope, receive, send)
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            parsed = json_intake(body, max_bytes=MAX_MESSAGE)
        except JsonIntakeError:
            parsed = None
        if isinstance(parsed, dict) and "jsonrpc" not in parsed:
            error = {"code": -32600, "message": "Invalid Request: not a JSON-RPC 2.0 message (no jsonrpc member)"}
            return await JSONResponse({"jsonrpc": "2.0", "id": None, "error": error})(scope, receive, send)
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await mcp_app(scope, replay, send)

    return app


def openenv_app(*, idle_seconds: float = IDLE_SECONDS, mcp=None) -> Starlette:
    """The OpenEnv server; an HTTP client's episode with no request for `idle_seconds` is closed (timed out).

    `mcp`: the MCP gateway's ASGI app (mcp_server's streamable_http_app), served at /mcp as OpenEnv serves its own.
    """
    server = OpenEnvServer(idle_seconds)
    routes = [
        Route("/reset", server.reset, methods=["POST"]),
        Route("/step", server.step, methods=["POST"]),
        Route("/finish", server.finish, methods=["POST"]),
        Route("/state", server.state, methods=["GET"]),
        Route("/health", server.health, methods=["GET"]),
        Route("/metadata", server.metadata, methods=["GET"]),
        Route("/schema", server.schema, methods=["GET"]),
        Route("/openapi.json", server.openapi, methods=["GET"]),
        WebSocketRoute("/ws", server.websocket),
    ]
    if mcp is not None:  # its own route is /mcp, so it is mounted at the root, after ours
        routes.append(Mount("/", app=mcp_at(mcp)))

    @asynccontextmanager
    async def lifespan(app):
        async with AsyncExitStack() as stack:
            if mcp is not None:  # a mounted app's lifespan is not run by Starlette: its session manager starts here
                await stack.enter_async_context(mcp.router.lifespan_context(mcp))
            # idle HTTP sessions close; what is open ends with the server
            await stack.enter_async_context(server.http.running())
            yield

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app
