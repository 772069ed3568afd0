"""An OpenEnv-compatible server for episodes (ASGI): the WebSocket path and the HTTP endpoints.

WebSocket `/ws`: one episode per connection. Messages are {"type": "reset"|"step"|"state"|"close",
"data": {...}} (a step's data is the action object, {"action": "click('a51')"}); answers
{"type": "observation"|"state"|"error", "data": {...}}, an error's data {"message", "code"} with OpenEnv's
codes. HTTP: POST /reset and /step (OpenEnv's StepRequest: {"action": {"action": "click('a51')"}}), GET /state,
/health, /metadata, /schema; an HTTP client has one session per agent token, closed (its episode timed out)
after `idle_seconds` without a request; errors are {"detail": "..."}
with 422 for invalid input and 429 with Retry-After past the token's quotas.
Every path but /health wants `Authorization: Bearer <agent token>`: a token starts episodes of its
suites only, and sees the agent view of a verdict, never its detail.
Run: `uvicorn replicagym.gateways.asgi:openenv --app-dir platform` (Django is set up by the asgi module).
"""

from contextlib import asynccontextmanager

from asgiref.sync import sync_to_async
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from replicagym.accounts.tokens import token_tasks
from replicagym.jsonintake import JsonIntakeError, json_intake

from .schemas import SCHEMAS
from .sessions import GatewayError, GatewaySession, SessionTable, bearer_token, step_request_argument

MAX_MESSAGE = 256 * 1024
IDLE_SECONDS = 600.0  # an HTTP client's episode with no request for this long is closed (timed out)
# OpenEnv's WSErrorCode for what a refusal's HTTP status says; anything else is invalid input
WS_CODES = {401: "SESSION_ERROR", 409: "SESSION_ERROR", 429: "CAPACITY_REACHED", 500: "EXECUTION_ERROR"}
WS_UNAUTHORIZED = 4401  # the close code of a connection whose token is (no longer) valid


def _error(exc: GatewayError) -> JSONResponse:
    """FastAPI's error shape, as OpenEnv's server answers: {"detail": "..."}."""
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return JSONResponse({"detail": str(exc)}, status_code=exc.status, headers=headers)


def _ws_error(message: str, code: str, **extra) -> dict:
    return {"type": "error", "data": {"message": message, "code": code, **extra}}


async def _token(headers):
    return await sync_to_async(bearer_token, thread_sensitive=False)(headers.get("authorization"))


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


class OpenEnvServer:
    def __init__(self, idle_seconds: float = IDLE_SECONDS):
        # an HTTP client's session, by its agent token's id: closed after idle_seconds without a request
        self.http = SessionTable(
            idle_seconds=idle_seconds,
            idle_why="no request",
            stopped_why="the OpenEnv server stopped before the episode was finished",
        )

    async def _http_session(self, request: Request, *, create: bool) -> GatewaySession | None:
        token = await _token(request.headers)
        # no await between the look-up and the insert: two requests of one token cannot both create one
        session = self.http.sessions.get(token.pk)
        if session is None and create:
            session = self.http.sessions[token.pk] = GatewaySession(token)
        return session

    async def reset(self, request: Request):
        try:
            data = await _body(request)
            session = await self._http_session(request, create=True)
            return JSONResponse(await session.call(session.reset, data))
        except GatewayError as exc:
            return _error(exc)

    async def step(self, request: Request):
        try:
            session = await self._http_session(request, create=False)
            action = step_request_argument(await _body(request))
            if session is None:
                raise GatewayError("no running episode: POST /reset first", 409)
            return JSONResponse(await session.call(session.step, action))
        except GatewayError as exc:
            return _error(exc)

    async def state(self, request: Request):
        try:
            session = await self._http_session(request, create=False)
            if session is None:
                return JSONResponse(
                    {"episode_id": None, "episode": None, "task": None, "step_count": 0, "status": None, "done": False}
                )
            return JSONResponse(await session.call(session.state))
        except GatewayError as exc:
            return _error(exc)

    async def health(self, request: Request):
        return JSONResponse({"status": "healthy"})

    async def metadata(self, request: Request):
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
                "action": 'an action object, {"action": "<action string>"} (see /schema)',
                "tasks": tasks,
            }
        )

    async def schema(self, request: Request):
        try:
            await _token(request.headers)
        except GatewayError as exc:
            return _error(exc)
        return JSONResponse(SCHEMAS)

    async def websocket(self, ws: WebSocket):
        try:
            token = await _token(ws.headers)
        except GatewayError as exc:
            await ws.close(code=WS_UNAUTHORIZED, reason=str(exc)[:120])
            return
        await ws.accept()
        session = GatewaySession(token, recheck_token=True)
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
            if kind == "state":
                return {"type": "state", "data": await session.call(session.state)}, None
        except GatewayError as exc:
            extra = {"retry_after": exc.retry_after} if exc.retry_after is not None else {}
            # a token revoked or expired meanwhile ends the connection, as it would have refused it
            return (
                _ws_error(str(exc), WS_CODES.get(exc.status, "VALIDATION_ERROR"), **extra),
                WS_UNAUTHORIZED if exc.status == 401 else None,
            )
        return _ws_error(f"unknown message type {kind!r} (types: reset, step, state, close)", "UNKNOWN_TYPE"), None


def openenv_app(*, idle_seconds: float = IDLE_SECONDS) -> Starlette:
    """The OpenEnv server; an HTTP client's episode with no request for `idle_seconds` is closed (timed out)."""
    server = OpenEnvServer(idle_seconds)
    routes = [
        Route("/reset", server.reset, methods=["POST"]),
        Route("/step", server.step, methods=["POST"]),
        Route("/state", server.state, methods=["GET"]),
        Route("/health", server.health, methods=["GET"]),
        Route("/metadata", server.metadata, methods=["GET"]),
        Route("/schema", server.schema, methods=["GET"]),
        WebSocketRoute("/ws", server.websocket),
    ]

    @asynccontextmanager
    async def lifespan(app):
        async with server.http.running():  # idle HTTP sessions close; what is open ends with the server
            yield

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app
