"""Other wordings of the synthesised tasks' instructions from an OpenAI-compatible model (issue 33), off unless
FACTORY_PARAPHRASE_MODEL_URL and FACTORY_PARAPHRASE_MODEL are set (a key in FACTORY_PARAPHRASE_MODEL_KEY).
`manage.py factory paraphrase ANCHOR_DIR` asks the model for the instructions of the built replica's tasks it has
no wording of yet and records them in the anchor's cache, PARAPHRASES (the sha256 of an instruction -> its
wordings); a build reads only that cache and writes the wordings of its tasks to the replica's PARAPHRASES (slug
-> wordings), so the same anchor and cache give the same bytes with no model. A wording is kept only if it keeps
every fact a verifier or a picker depends on, word for word, and adds none (episodes.variation.faithful, which an
episode applies again when it draws a wording): each {placeholder}, "quoted text", record code, email and number."""

import hashlib
import json
from pathlib import Path

from episodes.variation import PARAPHRASES, faithful
from replicas.worlds.chat_model import ModelUnavailable, chat_completion

ENV = "FACTORY_PARAPHRASE"
PER_INSTRUCTION = 2
TIMEOUT_SECONDS = 60


class ParaphraseError(RuntimeError):
    pass


def key(instruction: str) -> str:
    return hashlib.sha256(instruction.encode()).hexdigest()


def cache_read(anchor_dir: Path) -> dict[str, list[str]]:
    path = Path(anchor_dir) / PARAPHRASES
    if not path.is_file():
        return {}
    doc = json.loads(path.read_text())
    if not isinstance(doc, dict) or not all(
        isinstance(v, list) and all(isinstance(s, str) for s in v) for v in doc.values()
    ):
        raise ParaphraseError(f"{path} must map instruction hashes to lists of wordings")
    return doc


def _complete(instruction: str) -> list[str]:
    """The model's wordings of one instruction (one a line), or ParaphraseError when it is not configured or fails."""
    messages = [
        {
            "role": "system",
            "content": f"Reword the user's task instruction {PER_INSTRUCTION} different ways, one a line, "
            "nothing else. Keep every {placeholder}, quoted text, record code, email address and number "
            "exactly, and add none.",
        },
        {"role": "user", "content": instruction},
    ]
    try:
        text = chat_completion(env_prefix=ENV, messages=messages, timeout=TIMEOUT_SECONDS)
    except ModelUnavailable as exc:
        raise ParaphraseError(str(exc)) from None
    return [line.strip().lstrip("-*0123456789.) ").strip() for line in str(text).splitlines() if line.strip()]


def cache_fill(anchor_dir: Path, instructions: list[str]) -> tuple[int, int]:
    """Ask the model for the instructions the cache has no wording of; (asked, wordings kept). The cache is written
    sorted after each answer, so an interrupted run keeps what it got."""
    cache = cache_read(anchor_dir)
    asked = kept = 0
    for instruction in sorted(set(instructions)):
        if key(instruction) in cache:
            continue
        wordings = [w for w in _complete(instruction) if faithful(instruction, w)][:PER_INSTRUCTION]
        asked, kept = asked + 1, kept + len(wordings)
        cache[key(instruction)] = wordings
        (Path(anchor_dir) / PARAPHRASES).write_text(json.dumps(dict(sorted(cache.items())), indent=2) + "\n")
    return asked, kept


def paraphrases_write(folder: Path, anchor_dir: Path) -> None:
    """The replica's PARAPHRASES, its tasks' wordings from the anchor's cache (none written without a cache)."""
    cache = cache_read(anchor_dir)
    if not cache:
        return
    found = {}
    for path in sorted((folder / "tasks").glob("*.json")):
        instruction = json.loads(path.read_text())["instruction"]
        # checked again: the cache is a file in the anchor's folder, which anyone may edit
        wordings = [w for w in cache.get(key(instruction), []) if faithful(instruction, w)]
        if wordings:
            found[path.stem] = wordings
    (folder / PARAPHRASES).write_text(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
