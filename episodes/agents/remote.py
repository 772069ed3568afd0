"""Agents that live elsewhere: any HTTP endpoint, or an OpenAI-compatible chat model.

A remote failure (timeout, refused connection, bad reply) never stops the episode by
itself: the step becomes `noop()` and the problem is kept in `agent.errors`. After
`max_failures` failures in a row the agent gives up (act returns None).
"""
import base64
import json
import re
from urllib.parse import urlsplit

import httpx
import openai
from django.conf import settings

from verifiers.actions import ACTIONS, ActionError, parse_action, signature

from .base import Agent, AgentError

MAX_REPLY_BYTES = 2_000_000


def _check_url(url: str, what: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AgentError(f"{what} must be an http(s) URL, not {url!r}")
    return url


def _client(timeout: float) -> httpx.Client:
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


def _describe_failure(exc: BaseException) -> str:
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code} {exc.response.reason_phrase}"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    if isinstance(exc, (httpx.TimeoutException, openai.APITimeoutError)):
        return "the agent did not answer in time"
    if isinstance(exc, httpx.TransportError):
        return f"cannot reach the agent: {exc}"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot reach the agent: {exc.__cause__ or exc}"
    if isinstance(exc, json.JSONDecodeError):
        return f"reply is not JSON ({exc.msg})"
    if isinstance(exc, ValueError):  # our own checks of the reply
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


# What a remote agent may fail with at a step: the step becomes noop() and the reason is kept.
REMOTE_FAILURES = (httpx.HTTPError, openai.OpenAIError, OSError, ValueError)


class _RemoteAgent(Agent):
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
        except REMOTE_FAILURES as exc:
            return self._failed(_describe_failure(exc))
        if action is None:
            return None
        self.failures_in_a_row = 0
        return action

    def _ask(self, observation) -> str | None:
        raise NotImplementedError


class HttpAgent(_RemoteAgent):
    """POSTs {"observation": ..., "task": ...} to `url`; expects {"action": "..."} (null: done)."""

    name = "http"

    def __init__(self, url: str, *, timeout: float = 30.0, max_failures: int = 5):
        super().__init__(timeout=timeout, max_failures=max_failures)
        self.url = _check_url(url, "the agent URL")
        self.client = _client(timeout)

    def _ask(self, observation) -> str | None:
        reply = _post_json(self.client, self.url, {"observation": observation.to_dict(), "task": self.task})
        if "action" not in reply:
            raise ValueError('reply has no "action" (expected {"action": "click(\\"a12\\")"})')
        action = reply["action"]
        if action is None:
            return None
        if not isinstance(action, str):
            raise ValueError('"action" must be a string or null')
        return action


SYSTEM_PROMPT = """You operate a web browser to complete the user's task. Each turn you get the \
page's URL, its accessibility tree (elements carry ids in brackets, e.g. [12] button 'Save'), a \
screenshot, and the result of your last action. Answer with exactly one action, one Python-style \
call, on the last line of your reply. Elements are addressed by their bracketed id as a string.

Actions:
{actions}

When the task is complete, or if it asks for information, answer the user with \
send_msg_to_user("..."). If the task cannot be done, use report_infeasible("reason")."""

_ACTION_LINE = re.compile(r"^\s*`*\s*([a-z_]+\(.*\))\s*`*\s*$")


def extract_action(reply: str) -> str | None:
    """The last line of a model reply that parses as an action (code fences allowed)."""
    candidates = []
    for line in reply.splitlines():
        m = _ACTION_LINE.match(line)
        if m:
            candidates.append(m.group(1))
    for text in reversed(candidates):
        try:
            parse_action(text)
        except ActionError:
            continue
        return text
    return None


class OpenAIAgent(_RemoteAgent):
    """A vision chat model behind an OpenAI-compatible /chat/completions endpoint, through the official SDK."""

    name = "openai"
    MAX_AXTREE_CHARS = 30_000
    HISTORY = 8

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, max_failures: int = 5, temperature: float = 0.0):
        super().__init__(timeout=timeout, max_failures=max_failures)
        if not model or not isinstance(model, str):
            raise AgentError("openai agent needs a model name, as in openai:gpt-4o")
        self.model = model
        self.base_url = _check_url((base_url or settings.OPENAI_BASE_URL).rstrip("/"), "OPENAI_BASE_URL")
        self.api_key = api_key if api_key is not None else settings.OPENAI_API_KEY
        self.temperature = temperature
        self.history: list[str] = []
        # The SDK insists on a key; a local OpenAI-compatible server without auth ignores it.
        # No retries: a failed step becomes noop() and the episode's own limits decide.
        self.client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key or "unused", timeout=timeout,
                                    max_retries=0, http_client=_client(timeout))

    def reset(self, task_info=None):
        super().reset(task_info)
        self.history = []

    def messages_for(self, observation) -> list[dict]:
        actions = "\n".join(signature(name) for name in sorted(ACTIONS))
        axtree = observation.axtree
        if len(axtree) > self.MAX_AXTREE_CHARS:
            axtree = axtree[: self.MAX_AXTREE_CHARS] + "\n... (truncated)"
        chat = "\n".join(f"{m['role']}: {m['message']}" for m in observation.chat)
        recent = "\n".join(self.history[-self.HISTORY :]) or "(none yet)"
        text = (
            f"Task: {observation.instruction}\n\nChat so far:\n{chat}\n\n"
            f"Your previous actions:\n{recent}\n"
            f"Last action error: {observation.last_action_error or 'none'}\n\n"
            f"Open tabs: {json.dumps(observation.tabs)}\nURL: {observation.url}\nTitle: {observation.title}\n\n"
            f"Accessibility tree:\n{axtree}\n\nYour next action:"
        )
        image = "data:image/png;base64," + base64.b64encode(observation.screenshot).decode("ascii")
        return [
            {"role": "system", "content": SYSTEM_PROMPT.format(actions=actions)},
            {"role": "user", "content": [
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": image}},
            ]},
        ]

    def _ask(self, observation) -> str | None:
        reply = self.client.chat.completions.create(
            model=self.model, messages=self.messages_for(observation), temperature=self.temperature)
        if not reply.choices or reply.choices[0].message is None:
            raise ValueError("reply has no choices[0].message")
        content = reply.choices[0].message.content
        if isinstance(content, list):  # some servers answer in content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        action = extract_action(content or "")
        if action is None:
            raise ValueError(f"no action found in the model's reply: {str(content)[:200]!r}")
        self.history.append(action)
        return action
