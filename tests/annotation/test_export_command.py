"""`manage.py export_dataset --format sft|dpo --suite S --source annotators,runs --out DIR`, called as a command.

The data are the test pack's one-step task (smoke suite: open note #3, report its status), so each episode is
one browser step: an annotator's recording the verifier passed and a reviewer accepted, a suite run's success,
and an annotator's recording that went to another note first and reported the wrong status (failed)."""

import json

import datasets
import pytest
from django.core.management import CommandError, call_command, load_command_class
from replicagym.annotation.models import Recording
from replicagym.annotation.services import (
    item_claim,
    items_create,
    recording_review,
    recording_start,
    recording_step_add,
    recording_submit,
    recordings_collect,
)

from episodes.models import Episode, Run
from tests.annotation.conftest import run_queued_replays
from tests.episodes.fixtures import sync_test_pack

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TASK = "testbed.open-note"


def recorded(annotator, actions: list[str]) -> Recording:
    """A recording of the open-note item by `annotator`, submitted and replayed by the engine."""
    item = items_create(task=TASK)[0]
    item_claim(item_id=item.pk, user=annotator)
    recording = recording_start(item_id=item.pk, user=annotator)
    for action in actions:
        recording_step_add(recording=recording, action=action.format(**item.params), thought="")
    recording_submit(recording=recording, user=annotator)
    return recording


def judged(people, tmp_path) -> dict:
    """An accepted annotator success, a run's success (not the oracle's: the `runs` source) and an annotator failure.

    Three browser episodes: the exports of them are checked in one test (`test_the_judged_episodes_export_...`)
    rather than a test each, as the database is flushed after every transactional test and each test
    would play them again (and observe them again) only to export them another way.
    """
    sync_test_pack()
    good = recorded(people["annie"], ['send_msg_to_user("Note #{note} is {status}.")'])
    # bob opens note #1 first (the task is about note #3) and reports a status that is neither
    bad = recorded(people["bob"], ['goto("/notes/1")', 'send_msg_to_user("Note #{note} is gone.")'])
    assert sorted(run_queued_replays()) == [Episode.Status.FAILED, Episode.Status.SUCCEEDED]
    recordings_collect()
    recording_review(recording_id=good.pk, reviewer=people["rita"], accept=True)
    call_command("run_suite", "smoke", "--agent", "noisy-oracle:0", "--no-sync", "--out", str(tmp_path / "report.json"))
    run = Run.objects.get()
    good.refresh_from_db()
    bad.refresh_from_db()
    assert bad.status == Recording.Status.FAILED and good.status == Recording.Status.ACCEPTED
    assert run.episodes.get().status == Episode.Status.SUCCEEDED
    return {"good": good.replay_id, "bad": bad.replay_id, "run": run.episodes.get().pk}


def export(*args) -> str:
    return call_command("export_dataset", *args) or ""


def sft_writes_steps_episodes_images_and_a_card_that_datasets_loads(judged, tmp_path, capsys):
    out = tmp_path / "sft"
    export("--format", "sft", "--suite", "smoke", "--source", "annotators,runs", "--out", str(out))
    said = capsys.readouterr()
    assert (
        said.out.strip()
        == f"{out}: 2 steps, 2 episodes, 1 images (sft.jsonl, sft_episodes.jsonl, card.json, README.md)"
    )
    assert "observed 2/2 episodes" in said.err
    assert sorted(p.name for p in out.iterdir()) == [
        "README.md",
        "card.json",
        "images",
        "sft.jsonl",
        "sft_episodes.jsonl",
    ]

    rows = datasets.load_dataset("json", data_files=str(out / "sft.jsonl"), split="train")
    # verified successes only: the accepted recording and the run's episode; the failed recording is not there
    assert sorted(rows["episode"]) == sorted([judged["good"], judged["run"]])
    assert {r["episode"]: r["source"] for r in rows} == {judged["good"]: "annotators", judged["run"]: "runs"}
    for row in rows:
        assert row["task_id"] == TASK and row["step"] == 0 and row["action"].startswith("send_msg_to_user(")
        assert row["instruction"].startswith("Open note #3") and row["observation"]["axtree"]
        assert (out / row["observation"]["screenshot"]).is_file()
    # the same page before the same first step: one image, by content hash
    assert len({r["observation"]["screenshot"] for r in rows}) == 1 and len(list((out / "images").iterdir())) == 1
    whole = datasets.load_dataset("json", data_files=str(out / "sft_episodes.jsonl"), split="train")
    assert sorted(whole["episode"]) == sorted([judged["good"], judged["run"]])
    assert all(len(r["steps"]) == 1 and r["reward"] is not None for r in whole)

    card = json.loads((out / "card.json").read_text())
    assert card["format"] == "sft" and card["suite"] == "smoke" and card["sources"] == ["annotators", "runs"]
    assert card["counts"] == {"steps": 2, "episodes": 2, "images": 1}
    assert card["tasks"] == {TASK: 2} and card["by_source"] == {"annotators": 1, "runs": 1}
    assert card["episodes"] == sorted([judged["good"], judged["run"]]) and card["skipped"] == []
    assert card["platform_version"] and card["filters"]
    readme = (out / "README.md").read_text()
    assert readme.startswith("# replicagym-smoke-sft") and f"| {TASK} | 2 |" in readme
    # the failure was never observed again for SFT: it would only cost an episode
    assert not Episode.objects.filter(agent=f"observe:{judged['bad']}").exists()


def dpo_pairs_the_failed_recording_with_a_success_and_datasets_loads_it(judged, tmp_path, capsys):
    out = tmp_path / "dpo"
    export("--format", "dpo", "--suite", "smoke", "--source", "annotators,runs", "--out", str(out))
    said = capsys.readouterr()
    assert said.out.strip() == f"{out}: 1 pairs, 1 images (dpo.jsonl, card.json, README.md)"
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "card.json", "dpo.jsonl", "images"]
    rows = datasets.load_dataset("json", data_files=str(out / "dpo.jsonl"), split="train")
    assert len(rows) == 1
    row = rows[0]
    assert row["rejected_episode"] == judged["bad"] and row["rejected_source"] == "annotators"
    assert row["chosen_episode"] in (judged["good"], judged["run"])
    assert row["step"] == 0 and row["history"] == []
    assert row["rejected"].startswith('goto("/notes/') and row["chosen"].startswith("send_msg_to_user(")
    assert (
        row["task_id"] == TASK and row["observation"]["axtree"] and (out / row["observation"]["screenshot"]).is_file()
    )
    card = json.loads((out / "card.json").read_text())
    assert card["format"] == "dpo" and card["counts"] == {"pairs": 1, "images": 1} and card["tasks"] == {TASK: 2}
    assert sum(card["by_source"].values()) == 2 and card["by_source"]["annotators"] >= 1


def without_a_suite_the_export_takes_every_task(judged, tmp_path):
    out = tmp_path / "all"
    export("--format", "sft", "--source", "annotators,runs", "--out", str(out))
    card = json.loads((out / "card.json").read_text())
    assert card["suite"] is None and card["name"] == "replicagym-all-tasks-sft"
    assert card["episodes"] == sorted([judged["good"], judged["run"]]) and card["tasks"] == {TASK: 2}
    assert "- suite: none: every task" in (out / "README.md").read_text()


def test_the_judged_episodes_export_as_sft_as_dpo_and_without_a_suite(people, tmp_path, capsys):
    """Each export of the same three episodes: SFT (observing the two successes, never the failure), then DPO
    (observing the failure it pairs), then every task's SFT; each to a folder of its own."""
    episodes = judged(people, tmp_path)
    capsys.readouterr()  # what playing and judging them printed: each export's own output is checked
    sft_writes_steps_episodes_images_and_a_card_that_datasets_loads(episodes, tmp_path, capsys)
    dpo_pairs_the_failed_recording_with_a_success_and_datasets_loads_it(episodes, tmp_path, capsys)
    without_a_suite_the_export_takes_every_task(episodes, tmp_path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "dpo", "--suite", "no-such-suite"], "unknown suite 'no-such-suite'"),
        (
            ["--format", "sft", "--suite", "smoke", "--source", "annotators,agents"],
            "sources are a comma-separated list of annotators, oracle, runs; unknown: agents",
        ),
        (
            ["--format", "sft", "--suite", "smoke", "--source", ","],
            "sources are a comma-separated list of annotators, oracle, runs",
        ),
        (
            ["--format", "xml", "--suite", "smoke"],
            "argument --format: invalid choice: 'xml' (choose from 'sft', 'dpo')",
        ),
    ],
)
def test_bad_options_are_a_one_line_error_and_write_nothing(args, message, tmp_path):
    sync_test_pack()
    out = tmp_path / "out"
    with pytest.raises(CommandError) as caught:
        export(*args, "--out", str(out))
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert not out.exists()


def test_an_out_folder_that_holds_files_is_refused_and_left_alone(tmp_path):
    sync_test_pack()
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(CommandError, match=f"^{out} exists and is not an empty folder$"):
        export("--format", "sft", "--suite", "smoke", "--out", str(out))
    assert [p.name for p in out.iterdir()] == ["mine.txt"]


@pytest.mark.parametrize(
    ("args", "code", "line"),
    [
        (
            ["--format", "csv", "--suite", "smoke"],
            2,
            "error: argument --format: invalid choice: 'csv' (choose from 'sft', 'dpo')",
        ),
        (["--format", "sft", "--suite", "nope"], 1, "CommandError: unknown suite 'nope'"),
    ],
)
def test_from_the_command_line_a_bad_option_is_one_line_on_stderr(args, code, line, tmp_path, capsys):
    """As `manage.py export_dataset ...` runs it (run_from_argv, in this process: a subprocess costs seconds)."""
    sync_test_pack()
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exited:
        load_command_class("replicagym.annotation", "export_dataset").run_from_argv(
            ["manage.py", "export_dataset", *args, "--out", str(out)]
        )
    said = capsys.readouterr()
    assert exited.value.code == code and said.out == "" and said.err.splitlines() == [line]
    assert not out.exists()
