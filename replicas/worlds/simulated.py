"""Simulated people's common parts: reading what an agent's message asks, and having a model word the answer.

A replica's simulated people (the support desk's customers, the board's colleagues) answer inside
their app at the world clock's next move (its `on_clock_advance` hook), by a deterministic script
keyed on what was asked: the replica knows who answers and which true values it tells; this module
knows how a message asks (`asked`, against the replica's patterns) and how an OpenAI-compatible model
may word the script's facts (`model_wording`, off unless configured, its text used only when it
states every fact it was given).
"""

import re
from dataclasses import dataclass

from .chat_model import ModelUnavailable, chat_completion

UNKNOWN = "unknown"
# A message asks something when it has a question mark; requests without one ("please reply with
# the last 4 digits") count only when they name something the script knows.
QUESTION = re.compile(r"\?")
# Courtesy questions that close a message ("Is there anything else I can help with?"): nobody
# answers them, so they neither ask nor count as a question.
CLOSING = re.compile(
    r"\banything else\b|\bany (other|more) questions\b|\b(does|did) (this|that) help\b|\blet (me|us) know if\b",
    re.I,
)
SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
MODEL_TIMEOUT_SECONDS = 20


@dataclass(frozen=True)
class Fact:
    """One thing a simulated person tells: what was asked, the sentence, and the value it must carry."""

    name: str
    sentence: str
    value: str


def asked(text: str, asks: list[tuple[str, re.Pattern]], alternatives: frozenset = frozenset()) -> list[str]:
    """The names of `asks` that `text` asks for, in `asks` order; [UNKNOWN] for a question none matches.

    Two of `alternatives` offered with an "or" between them ("the last 4 digits ... or the number of
    one of your orders") count as the first: a person gives one, not both.
    """
    text = " ".join(part for part in SENTENCE_END.split(text) if not CLOSING.search(part))
    found = {}
    for name, pattern in asks:
        match = pattern.search(text)
        if match:
            found[name] = match.start()
    offered = sorted((found[n], n) for n in alternatives if n in found)
    if len(offered) == 2 and re.search(r"\bor\b", text[offered[0][0] : offered[1][0]], re.I):
        del found[offered[1][1]]
    if found:
        return [name for name, _ in asks if name in found]
    return [UNKNOWN] if QUESTION.search(text) else []


def model_wording(*, env_prefix: str, persona: str, told: list[Fact], asked_text: str, seed: int) -> str | None:
    """A model's wording of `told` as `persona` answering `asked_text`, or None (not configured, failed,
    or it dropped a fact). The endpoint and model are read from <env_prefix>_MODEL_URL and _MODEL (a key
    from _MODEL_KEY); temperature 0 and `seed` keep a run's answers as repeatable as the server allows."""
    lines = "\n".join(f"- {f.sentence}" for f in told)
    messages = [
        {
            "role": "system",
            "content": f"{persona} Answer in two or three short sentences, in plain text, and say only "
            f"what these lines say, keeping every number and file name exactly:\n{lines}",
        },
        {"role": "user", "content": asked_text},
    ]
    try:
        text = chat_completion(env_prefix=env_prefix, messages=messages, timeout=MODEL_TIMEOUT_SECONDS, seed=seed)
    except ModelUnavailable:
        return None
    if not text.strip() or any(f.value not in text for f in told):
        return None
    return text.strip()[:2000]
