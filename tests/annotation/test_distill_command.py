"""`manage.py distill SUITE --teacher SPEC --episodes N --out DIR`: one command runs a teacher over a suite, keeps its
verified successes as SFT and offers its failures as DPO's rejected side against successes of the same task and seed.

The teacher is the noisy oracle at a 20% slip rate with slip seed 1: on the testbed suite's two five-step tasks,
its attempt 0 slips (a click on the wrong element, at step 1) and fails, and its attempt 1 plays cleanly and passes."""

import json

import datasets
import pytest
from django.core.management import CommandError, call_command
from replicagym.annotation.exports import bid_action

from episodes.models import Episode, Run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TEACHER = "noisy-oracle:0.2:1"
TASKS = {"testbed.complete-note", "testbed.rename-note"}


def bid_actions(episode, steps: int | None = None) -> list[str]:
    """The first `steps` actions (all by default) as datasets write them; after a slip, the teacher's selectors
    may name nothing on the page it is on, so a failure is read up to where it slipped."""
    recorded = episode.steps.order_by("index").values_list("action", "target_bid")
    return [bid_action(a, bid) for a, bid in recorded[:steps]]


def test_distill_keeps_verified_successes_as_sft_and_failures_as_dpo_rejected(tmp_path, capsys):
    out = tmp_path / "distilled"
    call_command("distill", "testbed", "--teacher", TEACHER, "--episodes", "4", "--out", str(out))
    said = capsys.readouterr().out

    run = Run.objects.get()
    assert run.agent == TEACHER and run.attempts == 2 and run.suite.name == "testbed"
    episodes = {e.pk: e for e in run.episodes.select_related("task")}
    assert {e.task.task_id for e in episodes.values()} == TASKS and len(episodes) == 4
    passed = {pk for pk, e in episodes.items() if e.status == Episode.Status.SUCCEEDED}
    failed = {pk for pk, e in episodes.items() if e.status == Episode.Status.FAILED}
    assert passed == {pk for pk, e in episodes.items() if e.attempt == 1}
    assert failed == {pk for pk, e in episodes.items() if e.attempt == 0}
    assert sorted(p.name for p in out.iterdir()) == ["dpo", "report.json", "sft"]
    assert json.loads((out / "report.json").read_text())["totals"]["passes"] == 2
    dpo_card = json.loads((out / "dpo" / "card.json").read_text())
    pairs = dpo_card["counts"]["pairs"]
    assert (
        f"run {run.pk}: 2 verified episode(s), 10 SFT steps in {out / 'sft'}; {pairs} DPO pair(s) in {out / 'dpo'}, "
        "0 of them differing only in syntax" in said
    )

    # SFT: the verified successes only, every step of each
    sft = datasets.load_dataset("json", data_files=str(out / "sft" / "sft.jsonl"), split="train")
    assert set(sft["episode"]) == passed and len(sft) == 10
    assert all(r["source"] == "runs" and (out / "sft" / r["observation"]["screenshot"]).is_file() for r in sft)
    for pk in passed:
        mine = sorted((r for r in sft if r["episode"] == pk), key=lambda r: r["step"])
        # as a model that sees bids writes them: the teacher's selectors as the bids the engine read for them
        assert [r["completion"] for r in mine] == bid_actions(episodes[pk])
        assert [r["recorded_action"] for r in mine] == list(
            episodes[pk].steps.order_by("index").values_list("action", flat=True)
        )
    whole = datasets.load_dataset("json", data_files=str(out / "sft" / "sft_episodes.jsonl"), split="train")
    assert set(whole["episode"]) == passed
    card = json.loads((out / "sft" / "card.json").read_text())
    assert card["run"] == run.pk and card["sources"] == ["runs"] and card["episodes"] == sorted(passed)
    assert card["counts"]["episodes"] == 2 and card["counts"]["steps"] == 10 and card["by_source"] == {"runs": 2}

    # DPO: each failure is the rejected side, against the success of its task (same seed), at the step it slipped
    # An episode whose observing replay did not end in its state (a loaded machine can time one out) is left out and
    # named in the card with the reason; every other failure is a pair.
    dpo = datasets.load_dataset("json", data_files=str(out / "dpo" / "dpo.jsonl"), split="train")
    skipped = {s["episode"] for s in dpo_card["skipped"]}
    assert all(s["reason"] for s in dpo_card["skipped"])
    assert set(dpo["rejected_episode"]) == failed - skipped and set(dpo["chosen_episode"]) <= passed, dpo_card[
        "skipped"
    ]
    assert pairs == len(dpo) >= 1, dpo_card["skipped"]
    for row in dpo:
        bad, good = episodes[row["rejected_episode"]], episodes[row["chosen_episode"]]
        assert bad.task_id == good.task_id and bad.world_seed == good.world_seed == row["world_seed"]
        bad_actions, good_actions = bid_actions(bad, 2), bid_actions(good)
        assert row["step"] == 1 and row["history"] == good_actions[:1]
        assert (
            row["chosen"] == good_actions[1]
            and row["rejected"] == bad_actions[1]
            and row["rejected"].startswith("click(")
        )
        assert row["chosen_source"] == row["rejected_source"] == "runs"
    assert dpo_card["run"] == run.pk and dpo_card["episodes"] == sorted(passed | failed)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-suite", "--teacher", "oracle", "--episodes", "1"], "unknown suite 'no-such-suite'"),
        (
            ["testbed", "--teacher", "oracle", "--episodes", "0"],
            "argument --episodes: must be an integer of at least 1, not 0",
        ),
        (["testbed", "--teacher", "nobody", "--episodes", "1"], "unknown agent 'nobody'"),
    ],
)
def test_bad_options_are_a_one_line_error_and_run_nothing(args, message, tmp_path):
    out = tmp_path / "distilled"
    with pytest.raises(CommandError) as caught:
        call_command("distill", *args, "--out", str(out))
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert not Run.objects.exists() and not Episode.objects.exists()
    assert not out.exists() or not any(out.iterdir())
