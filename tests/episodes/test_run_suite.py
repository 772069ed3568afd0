"""`manage.py run_suite`: a suite x agent x attempts over local workers, a JSON report, one-line errors."""

import json
import os
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from catalogue.packs import task_current
from episodes.models import Episode, Run
from tests.episodes.celery_workers import ROOT, worker_database_url


def run_suite(*args):
    call_command("run_suite", *args, "--no-sync")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_oracle_passes_every_task_and_the_report_has_per_task_means_and_totals(live_pack, tmp_path, capsys):
    out = tmp_path / "report.json"
    run_suite("testbed", "--agent", "oracle", "--attempts", "1", "--out", str(out))
    report = json.loads(out.read_text())
    assert set(report["tasks"]) == {"testbed.open-note", "testbed.report-owner"}
    for task in report["tasks"].values():
        assert task["attempts"] == 1 and task["passes"] == 1 and task["rewards"]["task_completion"] == 1.0
        assert task["mean_steps"] >= 1 and task["mean_seconds"] > 0
        assert set(task["rewards"]) == {
            "task_completion",
            "efficiency",
            "error_recovery",
            "action_precision",
            "collateral",
            "episode_reward",
        }
    assert report["totals"]["attempts"] == 2 and report["totals"]["passes"] == 2
    err = capsys.readouterr().err
    assert "[2/2]" in err and "done: 2/2 passed" in err
    assert Run.objects.get().status == "done"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_two_worker_processes_run_every_attempt_exactly_once(live_pack, tmp_path):
    out = tmp_path / "report.json"
    run_suite("smoke", "--agent", "oracle", "--attempts", "2", "--workers", "2", "--out", str(out))
    report = json.loads(out.read_text())
    assert report["workers"] == 2 and report["totals"]["attempts"] == 2 and report["totals"]["passes"] == 2
    episodes = list(Episode.objects.all())
    assert sorted(e.attempt for e in episodes) == [0, 1] and all(e.status == "succeeded" for e in episodes)
    assert all(e.steps.count() == 1 for e in episodes)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_seeded_random_baseline_fails_a_task_that_needs_the_right_answer(live_pack, tmp_path):
    out = tmp_path / "report.json"
    run_suite("smoke", "--agent", "random", "--out", str(out))
    report = json.loads(out.read_text())
    episode = Episode.objects.get()
    assert report["totals"]["passes"] == 0 and episode.status == "failed"
    assert episode.steps.count() >= 1 and episode.agent == "random"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_replay_of_an_exported_trajectory_reproduces_the_episode(live_pack, tmp_path, capsys):
    path = tmp_path / "trajectory.jsonl"
    actions = json.dumps(['click("a999999")', *task_current("testbed.open-note").reference_solution])
    call_command("play_task", "testbed.open-note", "--actions", actions, "--trajectory", str(path))
    played = json.loads(capsys.readouterr().out)
    assert played["status"] == "succeeded" and len(played["steps"]) == 2 and played["steps"][0]["error"]
    original = Episode.objects.get(pk=played["episode"])
    run_suite("smoke", "--agent", f"replay:{path}", "--out", str(tmp_path / "r.json"), "--trajectories", str(tmp_path))
    replayed = Episode.objects.exclude(pk=original.pk).get()
    assert list(replayed.steps.values_list("action", "error")) == list(original.steps.values_list("action", "error"))
    assert replayed.status == original.status == "succeeded"
    assert replayed.final_state.state_hash == played["final_state_hash"]
    assert list(replayed.steps.values_list("screenshot__sha256", flat=True)) == [
        s["screenshot"] for s in played["steps"]
    ]
    assert (tmp_path / "testbed.open-note-0.jsonl").read_text().count("\n") == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    "args, message",
    [
        (["nosuchsuite", "--agent", "oracle"], "unknown suite 'nosuchsuite'"),
        (["testbed", "--agent", "genius"], "unknown agent 'genius'"),
        (["testbed", "--agent", "replay:/no/such/file.jsonl"], "no trajectory file at /no/such/file.jsonl"),
    ],
)
def test_bad_suite_or_agent_is_a_clear_error_and_creates_nothing(test_pack, args, message):
    with pytest.raises(CommandError, match=message):
        run_suite(*args)
    assert not Run.objects.exists() and not Episode.objects.exists()


@pytest.mark.django_db
def test_an_unreadable_replay_file_is_a_clear_error(test_pack, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not json\n")
    with pytest.raises(CommandError, match="bad.jsonl: line 1: not JSON"):
        run_suite("testbed", "--agent", f"replay:{bad}")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "args, message",
    [
        (["testbed", "--agent", "oracle", "--attempts", "0"], "--attempts: must be an integer of at least 1, not 0"),
        (["testbed"], "the following arguments are required: --agent"),
        (["nosuchsuite", "--agent", "oracle", "--no-sync"], "unknown suite 'nosuchsuite'"),
    ],
)
def test_command_line_errors_exit_non_zero_with_one_line_on_stderr(args, message):
    env = {**os.environ, "DATABASE_URL": worker_database_url(), "DJANGO_SETTINGS_MODULE": "replicagym.settings"}
    result = subprocess.run(
        [sys.executable, "manage.py", "run_suite", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
