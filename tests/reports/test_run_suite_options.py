"""run_suite's run options (task filter, agent settings, faults off, priority) go through the run lifecycle's checks."""

import json

import pytest
from django.core.management import CommandError, call_command

from catalogue.packs import suite_current
from episodes.models import Episode, Run


@pytest.mark.django_db
@pytest.mark.parametrize(
    "args, message",
    [
        (["testbed", "--agent", "random", "--tasks", "shop.*"], "no task of suite 'testbed' matches 'shop.*'"),
        (["-", "--agent", "random"], "a run needs a suite, a task filter, or both"),
        (["testbed", "--agent", "oracle", "--agent-settings", '{"timeout": 5}'], "applies to http and openai agents"),
        (["testbed", "--agent", "oracle", "--agent-settings", "[1]"], "expected a JSON object"),
        (["testbed", "--agent", "oracle", "--agent-settings", "{nope"], "not JSON"),
        (["testbed", "--agent", "oracle", "--priority", "11"], "must be a whole number from -10 to 10, not '11'"),
    ],
)
def test_bad_run_options_are_one_line_errors_and_create_nothing(args, message):
    suite_current("testbed")
    with pytest.raises(CommandError, match=message):
        call_command("run_suite", *args, "--no-sync")
    assert not Run.objects.exists() and not Episode.objects.exists()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_filtered_run_without_faults_at_a_priority(tmp_path, capsys):
    suite_current("testbed")
    out = tmp_path / "report.json"
    call_command(
        "run_suite",
        "-",
        "--tasks",
        "testbed.complete-*",
        "--agent",
        "oracle",
        "--no-faults",
        "--priority",
        "2",
        "--no-sync",
        "--out",
        str(out),
    )
    report = json.loads(out.read_text())
    assert list(report["tasks"]) == ["testbed.complete-note"] and report["totals"]["passes"] == 1
    assert (report["suite"], report["task_filter"], report["faults"], report["priority"]) == (
        None,
        "testbed.complete-*",
        False,
        2,
    )
    run = Run.objects.get()
    assert run.status == Run.Status.DONE and run.report["totals"]["pass_at_1"] == 1.0
    err = capsys.readouterr().err
    assert (
        f"run {run.pk}: - [testbed.complete-*] (1 tasks) x 1 attempt(s) = 1 episodes" in err
        and "done: 1/1 passed" in err
    )
