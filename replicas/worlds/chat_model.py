"""One request to an OpenAI-compatible chat model, configured by environment variables: what the simulated people
(replicas.worlds.simulated) and the environment factory's paraphrases (factory/paraphrase.py) both ask of a model.

<prefix>_MODEL_URL and <prefix>_MODEL name the endpoint and the model; <prefix>_MODEL_KEY, when set, goes as a
bearer token. Nothing is asked when they are not set."""

import json
import urllib.request

from replicagym.env import envstr


class ModelUnavailable(RuntimeError):
    """The model is not configured, or its reply could not be had or read; the message says which."""


def chat_completion(*, env_prefix: str, messages: list[dict], timeout: float, seed: int | None = None) -> str:
    """The text of the model's reply to `messages`, asked at temperature 0 (and `seed`, when given) so a run's
    answers are as repeatable as the server allows; ModelUnavailable when it is not configured or fails."""
    url, model = envstr(f"{env_prefix}_MODEL_URL"), envstr(f"{env_prefix}_MODEL")
    if not url or not model:
        raise ModelUnavailable(
            f"set {env_prefix}_MODEL_URL and {env_prefix}_MODEL (and {env_prefix}_MODEL_KEY if the server needs one)"
        )
    prompt = {"model": model, "temperature": 0, "messages": messages}
    if seed is not None:
        prompt["seed"] = seed
    headers = {"Content-Type": "application/json"}
    key = envstr(f"{env_prefix}_MODEL_KEY")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(
        url.rstrip("/") + "/chat/completions", data=json.dumps(prompt).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (configured URL)
            text = json.loads(response.read())["choices"][0]["message"]["content"]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise ModelUnavailable(f"the model at {url} gave no answer: {exc}") from None
    if not isinstance(text, str):
        raise ModelUnavailable(f"the model at {url} answered with no text")
    return text
