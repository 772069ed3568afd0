"""Sync and async clients of a ReplicaGym OpenEnv server over its WebSocket, `/ws`.

One connection is one session: a `reset` starts an episode (ending the connection's previous one),
`step` sends one action string, `finish` ends the episode as it stands and gives its reward,
`state` reads the session. Messages are OpenEnv's: {"type": "reset"|"step"|"state"|"finish"|"close",
"data": {...}} out; {"type": "observation"|"state"|"error", "data": {...}} back. The agent token
travels as `Authorization: Bearer rg_...`, which the server takes on the WebSocket's opening request.

Only the standard library and `websockets` are used, so a trainer's process needs no Django.
"""

import asyncio
import json
import os
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as sync_connect

URL_VARIABLE = "REPLICAGYM_URL"
TOKEN_VARIABLE = "REPLICAGYM_TOKEN"
OPEN_TIMEOUT = 30.0
# A reset builds a world and opens a browser page; a step waits for the page to settle: both can take
# tens of seconds on a loaded machine, so the default waits long before calling the server lost.
REPLY_TIMEOUT = 300.0
MAX_MESSAGE = 64 * 1024 * 1024  # a full-mode observation with a screenshot is a few MB
# The reset fields the server takes (OpenEnv's ResetRequest and ReplicaGym's own), so a caller's typo
# is refused here with the list instead of in a round trip.
RESET_FIELDS = ("task", "seed", "variation", "episode_id", "mode", "screenshots", "full_every")


class ReplicaGymError(Exception):
    """The server refused a message (its `code` is OpenEnv's, e.g. VALIDATION_ERROR) or the connection failed."""

    def __init__(self, message: str, code: str = "CONNECTION_ERROR"):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class StepResult:
    """One reply of reset, step or finish: the observation, the reward (None until the episode ends), done."""

    observation: dict
    reward: float | None
    done: bool

    @property
    def text(self) -> str:
        """The observation as an agent of the episode's mode reads it (URL, title, tree, errors)."""
        return self.observation.get("text") or ""

    @property
    def goal(self) -> str:
        return self.observation.get("goal") or ""

    def message(self, *, with_goal: bool = False) -> str:
        """What a policy is shown: the goal (on the first observation), the page, and once done the reward."""
        parts = [f"Goal: {self.goal}"] if with_goal else []
        parts.append(self.text)
        if self.done:
            parts.append(f"The episode has ended. Reward: {self.reward if self.reward is not None else 0.0:.2f}")
        return "\n\n".join(parts)


def server_settings(url: str | None = None, token: str | None = None) -> tuple[str, str]:
    """(the WebSocket URL, the token) from the arguments or else REPLICAGYM_URL and REPLICAGYM_TOKEN.

    The URL is the server's base, http(s)://host:port (or ws(s)://); ValueError, naming the variable, on a
    missing or malformed value.
    """
    url = url if url is not None else os.environ.get(URL_VARIABLE, "")
    token = token if token is not None else os.environ.get(TOKEN_VARIABLE, "")
    if not url:
        raise ValueError(f"no server URL: pass url= or set {URL_VARIABLE} (e.g. http://127.0.0.1:8000)")
    parts = urlsplit(url)
    schemes = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
    if parts.scheme not in schemes or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"{URL_VARIABLE} must be the server's base URL, http(s)://host:port, not {url!r}")
    if not token or not token.isprintable() or any(c.isspace() for c in token):
        raise ValueError(f"no agent token: pass token= or set {TOKEN_VARIABLE} (rg_..., from `manage.py token create`)")
    path = parts.path.rstrip("/") + "/ws"
    return urlunsplit((schemes[parts.scheme], parts.netloc, path, "", "")), token


def reset_data(fields: dict) -> dict:
    """The data of a reset message: `fields` without None values; ValueError on a field the server does not take."""
    unknown = sorted(set(fields) - set(RESET_FIELDS))
    if unknown:
        raise ValueError(f"unknown reset fields: {', '.join(unknown)} (fields: {', '.join(RESET_FIELDS)})")
    return {key: value for key, value in fields.items() if value is not None}


def _message(kind: str, data: dict | None = None) -> str:
    return json.dumps({"type": kind} if data is None else {"type": kind, "data": data})


def _answer(raw: str | bytes, wanted: str) -> dict:
    """The data of a reply of type `wanted`; ReplicaGymError for an error reply or anything else."""
    try:
        reply = json.loads(raw)
    except ValueError:
        raise ReplicaGymError(f"the server answered something that is not JSON: {str(raw)[:200]!r}") from None
    if not isinstance(reply, dict) or not isinstance(reply.get("data"), dict):
        raise ReplicaGymError(f"the server answered an unexpected message: {str(raw)[:200]!r}")
    if reply.get("type") == "error":
        data = reply["data"]
        raise ReplicaGymError(str(data.get("message", "error")), str(data.get("code", "ERROR")))
    if reply.get("type") != wanted:
        raise ReplicaGymError(f"the server answered {reply.get('type')!r} where {wanted!r} was due")
    return reply["data"]


def _result(data: dict) -> StepResult:
    reward = data.get("reward")
    return StepResult(
        observation=data.get("observation") or {},
        reward=None if reward is None else float(reward),
        done=bool(data.get("done")),
    )


def _action_data(action: str) -> dict:
    if not isinstance(action, str) or not action.strip():
        raise ValueError(f'an action is a non-empty action string such as click("a51"), not {action!r}')
    return {"action": action}


def _refusal(exc: Exception) -> ReplicaGymError:
    """The error of a connection the server refused or closed, naming why."""
    if isinstance(exc, InvalidStatus):
        status = exc.response.status_code
        return ReplicaGymError(f"the server refused the connection ({status}): check the URL and the token", "REFUSED")
    if isinstance(exc, ConnectionClosed):
        reason = exc.rcvd.reason if exc.rcvd is not None else ""
        code = exc.rcvd.code if exc.rcvd is not None else None
        return ReplicaGymError(f"the server closed the connection ({code}{': ' + reason if reason else ''})")
    return ReplicaGymError(f"cannot reach the server: {exc}")


class ReplicaGymClient:
    """A blocking client: `with ReplicaGymClient() as env: first = env.reset(task=...); env.step('click("a5")')`.

    `url` and `token` default to REPLICAGYM_URL and REPLICAGYM_TOKEN; the connection opens on first use.
    """

    def __init__(self, url: str | None = None, token: str | None = None, *, reply_timeout: float = REPLY_TIMEOUT):
        self.ws_url, self._token = server_settings(url, token)
        self.reply_timeout = reply_timeout
        self._ws = None

    def _call(self, kind: str, data: dict | None, wanted: str) -> dict:
        try:
            if self._ws is None:
                # legacy=True: a connection held across calls (websockets' direct form), closed by close()
                self._ws = sync_connect(
                    self.ws_url,
                    additional_headers={"Authorization": f"Bearer {self._token}"},
                    open_timeout=OPEN_TIMEOUT,
                    max_size=MAX_MESSAGE,
                    legacy=True,
                )
            self._ws.send(_message(kind, data))
            raw = self._ws.recv(timeout=self.reply_timeout)
        except (OSError, TimeoutError, InvalidStatus, ConnectionClosed) as exc:
            self._ws = None  # a later call reconnects: a new session
            raise _refusal(exc) from exc
        return _answer(raw, wanted)

    def reset(self, **fields) -> StepResult:
        """A new episode: task (default: one of the token's), seed, variation, episode_id, mode, screenshots,
        full_every.
        """
        return _result(self._call("reset", reset_data(fields), "observation"))

    def step(self, action: str) -> StepResult:
        return _result(self._call("step", _action_data(action), "observation"))

    def finish(self) -> StepResult:
        """End the episode as it stands: it is verified and rewarded (the reply's reward)."""
        return _result(self._call("finish", {}, "observation"))

    def state(self) -> dict:
        return self._call("state", None, "state")

    def close(self) -> None:
        """Close the connection; the server ends its episode if one is running."""
        if self._ws is not None:
            ws, self._ws = self._ws, None
            try:
                ws.send(_message("close"))
            except ConnectionClosed:
                pass
            ws.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class AsyncReplicaGymClient:
    """The asyncio client: `async with AsyncReplicaGymClient() as env: first = await env.reset(task=...)`."""

    def __init__(self, url: str | None = None, token: str | None = None, *, reply_timeout: float = REPLY_TIMEOUT):
        self.ws_url, self._token = server_settings(url, token)
        self.reply_timeout = reply_timeout
        self._ws = None

    async def _call(self, kind: str, data: dict | None, wanted: str) -> dict:
        try:
            if self._ws is None:
                self._ws = await async_connect(
                    self.ws_url,
                    additional_headers={"Authorization": f"Bearer {self._token}"},
                    open_timeout=OPEN_TIMEOUT,
                    max_size=MAX_MESSAGE,
                )
            await self._ws.send(_message(kind, data))
            raw = await asyncio.wait_for(self._ws.recv(), self.reply_timeout)
        except (OSError, TimeoutError, InvalidStatus, ConnectionClosed) as exc:
            self._ws = None
            raise _refusal(exc) from exc
        return _answer(raw, wanted)

    async def reset(self, **fields) -> StepResult:
        """A new episode: task (default: one of the token's), seed, variation, episode_id, mode, screenshots,
        full_every.
        """
        return _result(await self._call("reset", reset_data(fields), "observation"))

    async def step(self, action: str) -> StepResult:
        return _result(await self._call("step", _action_data(action), "observation"))

    async def finish(self) -> StepResult:
        """End the episode as it stands: it is verified and rewarded (the reply's reward)."""
        return _result(await self._call("finish", {}, "observation"))

    async def state(self) -> dict:
        return await self._call("state", None, "state")

    async def close(self) -> None:
        if self._ws is not None:
            ws, self._ws = self._ws, None
            try:
                await ws.send(_message("close"))
            except ConnectionClosed:
                pass
            await ws.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()
