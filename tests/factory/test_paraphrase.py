"""Instruction wordings from an OpenAI-compatible model (factory/paraphrase.py): off unless configured; the model's
wordings that drop a fact are discarded; the anchor's cache is all a build reads, so it writes the same bytes with
no model."""

import json
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from factory import paraphrase
from factory.paraphrase import PARAPHRASES, cache_fill, faithful, key, paraphrases_write
from tests.chat_model_stub import chat_model_stub

TEXT = 'Sign in as {user_email} (password {user_password}). Open time-off request TO-1001 ("Wedding") and approve it.'
GOOD = [
    'Log in as {user_email} with password {user_password}, then approve TO-1001 ("Wedding").',
    'Using {user_email} / {user_password}, find TO-1001 ("Wedding") and approve the request.',
]
DROPS_CODE = 'Log in as {user_email} with password {user_password} and approve the "Wedding" request.'


def test_a_wording_must_keep_every_placeholder_quote_and_code_and_add_none():
    assert all(faithful(TEXT, w) for w in GOOD)
    assert not faithful(TEXT, DROPS_CODE)
    assert not faithful(TEXT, TEXT.replace("{user_password}", "the password"))
    assert not faithful(TEXT, TEXT) and not faithful(TEXT, "  ")
    # a fact of its own could hand the agent an answer key or send it to another record
    assert not faithful(TEXT, GOOD[0] + " It is {days} days long.")
    assert not faithful(TEXT, GOOD[0].replace("TO-1001", "TO-1002"))
    assert not faithful(TEXT, GOOD[0] + " Approve it within 3 days.")


@pytest.fixture
def model(monkeypatch):
    with chat_model_stub("\n".join([f"1. {GOOD[0]}", DROPS_CODE, f"- {GOOD[1]}"])) as stub:
        monkeypatch.setenv("FACTORY_PARAPHRASE_MODEL_URL", stub.url)
        monkeypatch.setenv("FACTORY_PARAPHRASE_MODEL", "tiny")
        monkeypatch.setenv("FACTORY_PARAPHRASE_MODEL_KEY", "k")
        yield stub.seen


def test_the_model_is_asked_once_per_instruction_and_its_faithful_wordings_cached(tmp_path, model):
    assert cache_fill(tmp_path, [TEXT, TEXT]) == (1, 2)
    path, headers, body = model[0]
    assert (path, headers["Authorization"], body["model"], body["messages"][1]["content"]) == (
        "/v1/chat/completions",
        "Bearer k",
        "tiny",
        TEXT,
    )
    assert json.loads((tmp_path / PARAPHRASES).read_text()) == {key(TEXT): GOOD}
    assert cache_fill(tmp_path, [TEXT]) == (0, 0) and len(model) == 1  # cached: not asked again


def _replica(tmp_path, instructions: dict) -> Path:
    folder = tmp_path / "replica"
    (folder / "tasks").mkdir(parents=True)
    for slug, text in instructions.items():
        (folder / "tasks" / f"{slug}.json").write_text(json.dumps({"slug": slug, "instruction": text}))
    return folder


def test_a_build_writes_its_tasks_wordings_from_the_cache_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(paraphrase, "_complete", lambda text: pytest.fail("a build never asks the model"))
    anchor, folder = tmp_path / "anchor", _replica(tmp_path, {"approve-1001": TEXT, "other": "Do something else."})
    anchor.mkdir()
    paraphrases_write(folder, anchor)
    assert not (folder / PARAPHRASES).exists()  # no cache, no file: an anchor without wordings builds as before
    # a hand-edited cache: the wording that drops the record's code is left out
    (anchor / PARAPHRASES).write_text(json.dumps({key(TEXT): [GOOD[0], DROPS_CODE]}))
    paraphrases_write(folder, anchor)
    first = (folder / PARAPHRASES).read_bytes()
    assert json.loads(first) == {"approve-1001": [GOOD[0]]}
    paraphrases_write(folder, anchor)
    assert (folder / PARAPHRASES).read_bytes() == first


def test_the_command_refuses_without_a_configured_model(tmp_path, monkeypatch):
    for name in ("FACTORY_PARAPHRASE_MODEL_URL", "FACTORY_PARAPHRASE_MODEL", "FACTORY_PARAPHRASE_MODEL_KEY"):
        monkeypatch.delenv(name, raising=False)
    anchor = tmp_path / "timeoff"
    shutil.copytree(Path(settings.BASE_DIR) / "anchors" / "timeoff", anchor)
    with pytest.raises(CommandError, match="set FACTORY_PARAPHRASE_MODEL_URL"):
        call_command("factory", "paraphrase", str(anchor))
    assert not (anchor / PARAPHRASES).exists()
