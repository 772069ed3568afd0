"""SFT and DPO rows in the columns TRL's trainers read (prompt/completion, prompt/chosen/rejected), with every
action in bid syntax as a model that sees the observation writes it, and distill's count of pairs that differ
only in syntax. The episodes are rows written here with their observations kept, so no browser runs: what is
checked is how the export reads them."""

import json

import datasets
import pytest
from replicagym.annotation.exports import (
    ExportError,
    bid_action,
    dataset_export,
    syntax_only,
    syntax_only_pairs,
)
from replicagym.annotation.models import StepObservation

from episodes.creation import episode_create
from episodes.engine.observation import DISPLAY_ORIGIN, render_observation
from episodes.models import Episode, Run, Step
from tests.episodes.fixtures import sync_test_pack

pytestmark = pytest.mark.django_db
TASK = "testbed.open-note"
SIDEBAR = "".join(f"\n\t[a{n}] link 'Note {n - 2}'" for n in range(5, 9))
LIST = "RootWebArea 'Notes'" + SIDEBAR
NOTE = LIST + "\n\t[a9] heading 'Note 3'\n\tStaticText 'open'"  # the list stays beside the open note
BANNER = NOTE + "\n\t[a10] alert 'Saved elsewhere meanwhile'"
SELECTOR_CLICK = "click(\"role=link[name='Note 3']\")"


def played(agent: str, steps: list[tuple[str, str]], pages: list[tuple[str, str]], *, status, run=None) -> Episode:
    """An ended episode of TASK on its own seed: (action, the bid the engine read for it) per step, and the
    (path, tree) of each page it saw (before each step, and after the last)."""
    episode = episode_create(task=TASK, agent=agent, run=run, status=Episode.Status.RUNNING)
    origin = f"http://w-{episode.world.token}.localhost:8123"
    for index, (action, bid) in enumerate(steps):
        Step.objects.create(episode=episode, index=index, action=action, target_bid=bid, url=origin + pages[index][0])
    for index, (path, tree) in enumerate(pages):
        StepObservation.objects.create(episode=episode, index=index, url=origin + path, title="Notes", axtree=tree)
    Episode.objects.filter(pk=episode.pk).update(status=status, rewards={"episode_reward": 1.0})
    episode.refresh_from_db()
    return episode


@pytest.fixture
def episodes(db):
    sync_test_pack()
    run = Run.objects.create(task_filter=TASK, agent="random:1")
    good = played(
        "oracle",
        [(SELECTOR_CLICK, "a5"), ("send_message_to_user('Note #3 is open.')", "")],
        [("/notes", LIST), ("/notes/3", NOTE), ("/notes/3", NOTE)],
        status=Episode.Status.SUCCEEDED,
    )
    # the same first step written with the bid; then it tells the user the wrong status
    wrong = played(
        "random:1",
        [("click('a5')", "a5"), ('send_msg_to_user("Note #3 is closed.")', "")],
        [("/notes", LIST), ("/notes/3", NOTE)],
        status=Episode.Status.FAILED,
        run=run,
    )
    # the same first step, by bid, but the next page differs (a banner of a fault): were the selector not
    # read as its bid, "click the link by selector" against "click it by bid" would be exported as a pair
    parted = played(
        "random:1",
        [("click('a5')", "a5")],
        [("/notes", LIST), ("/notes/3", BANNER)],
        status=Episode.Status.FAILED,
        run=run,
    )
    return {"good": good, "wrong": wrong, "parted": parted}


def rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def shown(episode: Episode, index: int, mode: str, previous: str | None = None) -> str:
    obs = StepObservation.objects.get(episode=episode, index=index)
    origin = obs.url.split("/notes")[0]
    page = {"url": obs.url, "title": obs.title, "axtree": obs.axtree, "origin": origin}
    return render_observation(page, mode, previous, step=index)


def test_sft_rows_prompt_with_the_observation_in_the_chosen_mode_and_complete_with_the_bid_action(episodes, tmp_path):
    good = episodes["good"]
    out = tmp_path / "sft"
    result = dataset_export(fmt="sft", suite="smoke", sources="oracle", out=out, observation="text")
    steps = rows(out / "sft.jsonl")
    assert [r["completion"] for r in steps] == ['click("a5")', 'send_msg_to_user("Note #3 is open.")']
    assert [r["recorded_action"] for r in steps] == [SELECTOR_CLICK, "send_message_to_user('Note #3 is open.')"]
    system, instruction = result.card["system_prompt"], good.instance.instruction
    for row in steps:
        page = shown(good, row["step"], "text")
        assert row["prompt"].startswith(system + f"\n\nTask: {instruction}\n\n")
        assert row["prompt"].endswith(f"\n\n{page}\n\nYour next action:")
        # the world's origin is random per world: prompts show the display origin, as the engine does
        assert f"URL: {DISPLAY_ORIGIN}/notes" in row["prompt"] and "localhost" not in row["prompt"]
    assert "[a5] link 'Note 3'" in steps[0]["prompt"] and "(none yet)" in steps[0]["prompt"]
    assert 'Your previous actions:\nclick("a5")\n' in steps[1]["prompt"]
    assert result.card["observation"] == {"mode": "text", "full_every": 5} and "pruned" not in system
    # per episode: the chat the model plays, the observation between its actions
    (whole,) = rows(out / "sft_episodes.jsonl")
    assert [m["role"] for m in whole["prompt"]] == ["system", "user"]
    assert whole["prompt"][1]["content"] == f"Task: {instruction}\n\n{shown(good, 0, 'text')}"
    assert whole["completion"] == [
        {"role": "assistant", "content": 'click("a5")'},
        {"role": "user", "content": shown(good, 1, "text")},
        {"role": "assistant", "content": 'send_msg_to_user("Note #3 is open.")'},
    ]


def test_diff_mode_prompts_show_what_changed_since_the_step_before(episodes, tmp_path):
    out = tmp_path / "sft"
    dataset_export(fmt="sft", suite="smoke", sources="oracle", out=out, observation="diff", full_every=5)
    second = rows(out / "sft.jsonl")[1]
    assert shown(episodes["good"], 1, "diff", previous=LIST) in second["prompt"]
    assert "Page changes since the last step" in second["prompt"]


def test_dpo_pairs_the_real_mistake_in_bid_syntax_and_no_pair_differs_only_in_syntax(episodes, tmp_path):
    good, wrong = episodes["good"], episodes["wrong"]
    out = tmp_path / "dpo"
    dataset_export(fmt="dpo", suite="smoke", sources="oracle,runs", out=out)
    pairs = rows(out / "dpo.jsonl")
    # the parted episode's only difference from the success is how its first click was written: no pair
    assert [(p["chosen_episode"], p["rejected_episode"], p["step"]) for p in pairs] == [(good.pk, wrong.pk, 1)]
    (pair,) = pairs
    assert pair["chosen"] == 'send_msg_to_user("Note #3 is open.")'
    assert pair["rejected"] == 'send_msg_to_user("Note #3 is closed.")'
    assert pair["history"] == ['click("a5")'] and 'Your previous actions:\nclick("a5")\n' in pair["prompt"]
    assert pair["prompt"].endswith(f"\n\n{shown(good, 1, 'full')}\n\nYour next action:")
    assert syntax_only_pairs(pairs) == 0


def test_distills_count_catches_a_pair_written_two_ways_as_an_export_without_bids_would_make(episodes):
    good, parted = episodes["good"], episodes["parted"]
    unconverted = {"chosen_episode": good.pk, "rejected_episode": parted.pk, "step": 0}
    assert syntax_only_pairs([{**unconverted, "chosen": SELECTOR_CLICK, "rejected": "click('a5')"}]) == 1
    assert syntax_only_pairs([{**unconverted, "chosen": SELECTOR_CLICK, "rejected": "click('a6')"}]) == 0
    assert syntax_only("send_message_to_user('Done.')", 'send_msg_to_user("Done.")')
    assert not syntax_only('send_msg_to_user("Done.")', 'send_msg_to_user("Not done.")')
    assert not syntax_only(SELECTOR_CLICK, "click('a5')")  # without the bid the engine read, nothing says so


@pytest.mark.parametrize(
    ("text", "bid", "written"),
    [
        (SELECTOR_CLICK, "a5", 'click("a5")'),
        ("fill('#id_title', 'Groceries')", "a12", 'fill("a12", "Groceries")'),
        ("send_message_to_user('hi')", "", 'send_msg_to_user("hi")'),
        ("click('a5', button='left')", "a5", 'click("a5")'),
        ("scroll(0, 200)", "", "scroll(0, 200)"),
    ],
)
def test_an_action_is_written_in_bid_syntax_with_canonical_name_and_quoting(text, bid, written):
    assert bid_action(text, bid) == written


@pytest.mark.parametrize(
    ("text", "bid", "message"),
    [
        (SELECTOR_CLICK, "", "found no bid"),
        ("fill('#id_title', 'x')", "#id_title", "found no bid"),
        ('drag_and_drop("a5", "#lane-done")', "a5", "drops on a selector"),
        ("GET /notes/3", "", "no action of the grammar"),
    ],
)
def test_an_action_that_cannot_be_written_in_bids_says_why(text, bid, message):
    with pytest.raises(ExportError, match=message):
        bid_action(text, bid)


def test_an_episode_with_a_selector_the_engine_found_no_bid_for_is_left_out_and_named(episodes, tmp_path):
    good = episodes["good"]
    Step.objects.filter(episode=good, index=0).update(target_bid="")
    result = dataset_export(fmt="sft", suite="smoke", sources="oracle", out=tmp_path / "sft")
    assert result.card["counts"]["steps"] == 0
    assert result.card["skipped"] == [
        {
            "episode": good.pk,
            "reason": f"step 0: {SELECTOR_CLICK} names its element by a selector that the engine found no bid for",
        }
    ]


@pytest.mark.parametrize(("mode", "full_every", "message"), [("pixels", 5, "observation mode"), ("diff", 0, "1 to")])
def test_a_bad_observation_mode_is_refused_before_anything_is_written(episodes, tmp_path, mode, full_every, message):
    with pytest.raises(ExportError, match=message):
        dataset_export(
            fmt="sft", suite="smoke", sources="oracle", out=tmp_path / "x", observation=mode, full_every=full_every
        )
    assert not (tmp_path / "x").exists()


def test_datasets_loads_both_exports_with_the_columns_trls_trainers_read(episodes, tmp_path):
    dataset_export(fmt="sft", suite="smoke", sources="oracle", out=tmp_path / "sft", observation="text")
    dataset_export(fmt="dpo", suite="smoke", sources="oracle,runs", out=tmp_path / "dpo", observation="text")
    load = lambda path: datasets.load_dataset("json", data_files=str(path), split="train")  # noqa: E731
    sft, whole, dpo = (
        load(tmp_path / "sft/sft.jsonl"),
        load(tmp_path / "sft/sft_episodes.jsonl"),
        load(tmp_path / "dpo/dpo.jsonl"),
    )
    # SFTTrainer: prompt-completion, as text per step and as chat messages per episode
    assert {"prompt", "completion"} <= set(sft.column_names) and len(sft) == 2
    assert all(isinstance(r["prompt"], str) and isinstance(r["completion"], str) for r in sft)
    assert {"prompt", "completion"} <= set(whole.column_names)
    assert whole[0]["prompt"][0]["role"] == "system" and whole[0]["completion"][-1]["role"] == "assistant"
    # DPOTrainer: prompt, chosen, rejected
    assert {"prompt", "chosen", "rejected"} <= set(dpo.column_names) and len(dpo) == 1
    assert dpo[0]["chosen"] != dpo[0]["rejected"] and dpo[0]["prompt"].endswith("Your next action:")


def test_a_step_recorded_before_the_engine_kept_bids_takes_the_bid_its_observing_replay_read(episodes, tmp_path):
    good = episodes["good"]
    Step.objects.filter(episode=good, index=0).update(target_bid="")
    capture = episode_create(task=TASK, agent=f"observe:{good.pk}")
    Step.objects.create(episode=capture, index=0, action=SELECTOR_CLICK, target_bid="a5")
    dataset_export(fmt="sft", suite="smoke", sources="oracle", out=tmp_path / "sft")
    assert rows(tmp_path / "sft" / "sft.jsonl")[0]["completion"] == 'click("a5")'
