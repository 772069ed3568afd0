"""An OpenAI-compatible vision chat model as an agent, through the official SDK.

Its own module, imported only when an `openai:MODEL` agent is made (`episodes.agents`):
the SDK's types take most of a second to import, which every Django process (the web,
each worker, each command) would otherwise pay at start.
"""

import base64
import json
import re

import openai
from django.conf import settings

from verifiers.actions import ACTIONS, ActionError, parse_action, signature

from .base import AgentError
from .remote import RemoteAgent, check_url, http_client

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


class OpenAIAgent(RemoteAgent):
    """A vision chat model behind an OpenAI-compatible /chat/completions endpoint, through the official SDK."""

    name = "openai"
    FAILURES = (*RemoteAgent.FAILURES, openai.OpenAIError)
    MAX_AXTREE_CHARS = 30_000
    HISTORY = 8

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_failures: int = 5,
        temperature: float = 0.0,
    ):
        super().__init__(timeout=timeout, max_failures=max_failures)
        if not model or not isinstance(model, str):
            raise AgentError("openai agent needs a model name, as in openai:gpt-4o")
        self.model = model
        self.base_url = check_url((base_url or settings.OPENAI_BASE_URL).rstrip("/"), "OPENAI_BASE_URL")
        self.api_key = api_key if api_key is not None else settings.OPENAI_API_KEY
        self.temperature = temperature
        self.history: list[str] = []
        # The SDK insists on a key; a local OpenAI-compatible server without auth ignores it.
        # No retries: a failed step becomes noop() and the episode's own limits decide.
        self.client = openai.OpenAI(
            base_url=self.base_url,
            api_key=self.api_key or "unused",
            timeout=timeout,
            max_retries=0,
            http_client=http_client(timeout),
        )

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
        content = [{"type": "text", "text": text}]
        if observation.screenshot:  # none in an episode observed without screenshots (episodes.engine.observation)
            image = "data:image/png;base64," + base64.b64encode(observation.screenshot).decode("ascii")
            content.append({"type": "image_url", "image_url": {"url": image}})
        return [
            {"role": "system", "content": SYSTEM_PROMPT.format(actions=actions)},
            {"role": "user", "content": content},
        ]

    def _ask(self, observation) -> str | None:
        reply = self.client.chat.completions.create(
            model=self.model, messages=self.messages_for(observation), temperature=self.temperature
        )
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

    def describe_failure(self, exc: BaseException) -> str:
        if isinstance(exc, openai.APIStatusError):
            return f"HTTP {exc.status_code}: {exc.message}"
        if isinstance(exc, openai.APITimeoutError):
            return "the agent did not answer in time"
        if isinstance(exc, openai.APIConnectionError):
            return f"cannot reach the agent: {exc.__cause__ or exc}"
        return super().describe_failure(exc)
