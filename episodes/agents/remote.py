"""Agents that live elsewhere: any HTTP endpoint (here), or an OpenAI-compatible chat model (`chat_model`).

A remote failure (timeout, refused connection, bad reply) never stops the episode by
itself: the step becomes `noop()` and the problem is kept in `agent.errors`. After
`max_failures` failures in a row the agent gives up (act returns None).
"""

import json
from urllib.parse import urlsplit

import httpx

from .base import Agent, AgentError
from .endpoints import remote_endpoint_check

MAX_REPLY_BYTES = 2_000_000


def check_url(url: str, what: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AgentError(f"{what} must be an http(s) URL, not {url!r}")
    return url


def http_client(timeout: float) -> httpx.Client:
    # No proxies from the environment: the agent's address is used as given.
    return httpx.Client(timeout=timeout, trust_env=False)


def _post_json(client: httpx.Client, url: str, payload: dict) -> dict:
    with client.stream("POST", url, json=payload) as response:
        response.raise_for_status()
        raw = b""
        for chunk in response.iter_bytes():
            raw += chunk
            if len(raw) > MAX_REPLY_BYTES:
                raise ValueError(f"reply larger than {MAX_REPLY_BYTES} bytes")
    doc = json.loads(raw)
    if not isinstance(doc, dict):
        raise ValueError("reply is not a JSON object")
    return doc


class RemoteAgent(Agent):
    # What the agent may fail with at a step: the step becomes noop() and the reason is kept.
    FAILURES: tuple[type[BaseException], ...] = (httpx.HTTPError, OSError, ValueError)

    def __init__(self, *, timeout: float, max_failures: int):
        super().__init__()
        if not 0 < timeout <= 600:
            raise AgentError("timeout must be between 0 and 600 seconds")
        self.timeout = timeout
        self.max_failures = max_failures
        self.failures_in_a_row = 0

    def reset(self, task_info=None):
        super().reset(task_info)
        self.failures_in_a_row = 0

    def _failed(self, message: str) -> str | None:
        self.errors.append(message)
        self.failures_in_a_row += 1
        if self.failures_in_a_row >= self.max_failures:
            self.errors.append(f"giving up after {self.failures_in_a_row} failures in a row")
            return None
        return "noop()"

    def act(self, observation) -> str | None:
        try:
            action = self._ask(observation)
        except self.FAILURES as exc:
            return self._failed(self.describe_failure(exc))
        if action is None:
            return None
        self.failures_in_a_row = 0
        return action

    def _ask(self, observation) -> str | None:
        raise NotImplementedError

    def describe_failure(self, exc: BaseException) -> str:
        """A remote failure in a few words (kept in agent.errors and shown with the step)."""
        if isinstance(exc, httpx.HTTPStatusError):
            return f"HTTP {exc.response.status_code} {exc.response.reason_phrase}"
        if isinstance(exc, httpx.TimeoutException):
            return "the agent did not answer in time"
        if isinstance(exc, httpx.TransportError):
            return f"cannot reach the agent: {exc}"
        if isinstance(exc, json.JSONDecodeError):
            return f"reply is not JSON ({exc.msg})"
        if isinstance(exc, ValueError):  # our own checks of the reply
            return str(exc)
        return f"{type(exc).__name__}: {exc}"


class HttpAgent(RemoteAgent):
    """POSTs {"observation": ..., "task": ...} to `url`; expects {"action": "..."} (null: done)."""

    name = "http"

    def __init__(self, url: str, *, timeout: float = 30.0, max_failures: int = 5, fenced: bool = False):
        super().__init__(timeout=timeout, max_failures=max_failures)
        self.url = check_url(url, "the agent URL")
        # named from outside (the UI, the API): only at an allow-listed endpoint on public addresses
        self.fenced = fenced
        if fenced:
            remote_endpoint_check(self.url)
        self.client = http_client(timeout)

    def _ask(self, observation) -> str | None:
        if self.fenced:  # again at each request: the name may resolve elsewhere by now
            remote_endpoint_check(self.url)
        reply = _post_json(self.client, self.url, {"observation": observation.to_dict(), "task": self.task})
        if "action" not in reply:
            raise ValueError('reply has no "action" (expected {"action": "click(\\"a12\\")"})')
        action = reply["action"]
        if action is None:
            return None
        if not isinstance(action, str):
            raise ValueError('"action" must be a string or null')
        return action
