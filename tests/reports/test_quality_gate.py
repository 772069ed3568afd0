"""The quality gate: k attempts per task by a baseline, k-out-of-k counts stored per task version,
the kept set printed, read back for the catalogue and for suite filtering; bad input changes nothing."""

import re

import pytest
from django.core.management import CommandError, call_command
from replicagym.reports.models import GateResult, QualityGate
from replicagym.reports.quality import GateError, gate_settle, gate_start, gated_tasks, latest_gate

from catalogue.packs import suite_current, task_current, task_sync
from episodes.models import Episode, Run


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_gate_counts_passes_per_task_keeps_the_middle_band_and_the_latest_gate_wins(capsys, client, author_user):
    task_sync(replica="testbed")
    call_command("quality_gate", "testbed", "--agent", "oracle", "-k", "2", "--low", "1", "--high", "1", "--no-sync")
    oracle_out = capsys.readouterr().out
    assert re.search(r"testbed\.complete-note\s+2/2\s+too easy", oracle_out)
    assert "kept 0 of 2 (solved 1 to 1 times out of 2): none" in oracle_out

    call_command(
        "quality_gate", "testbed", "--agent", "noisy-oracle:0.3", "-k", "4", "--low", "1", "--high", "3", "--no-sync"
    )
    out = capsys.readouterr().out
    gate = QualityGate.objects.latest("pk")
    assert gate.finished_at is not None and (gate.k, gate.low, gate.high) == (4, 1, 3)
    assert gate.run.status == Run.Status.DONE
    kept = []
    for result in gate.results.select_related("task"):
        episodes = Episode.objects.filter(run=gate.run, task=result.task)
        assert result.attempts == episodes.count() == 4
        assert result.passes == episodes.filter(status="succeeded").count()
        assert result.kept == (1 <= result.passes <= 3)
        assert re.search(
            rf"{re.escape(result.task.task_id)}\s+{result.passes}/4\s+{result.get_verdict_display().lower()}", out
        )
        assert latest_gate(result.task) == result  # the newer gate, not the oracle's
        if result.kept:
            kept.append(result.task.task_id)
    assert f"kept {len(kept)} of 2 (solved 1 to 3 times out of 4): {', '.join(kept) or 'none'}" in out
    assert [t.task_id for t in gated_tasks("testbed")] == kept
    if kept:  # the suite of the kept tasks, for runs limited to them
        assert sorted(suite_current("testbed-gated").tasks.values_list("task_id", flat=True)) == kept
        assert f"suite testbed-gated: the {len(kept)} task(s) the latest gates kept" in out
    else:
        with pytest.raises(LookupError):
            suite_current("testbed-gated")
    # the catalogue shows what the command printed: each task's count and verdict, and the kept set as a filter
    client.force_login(author_user)
    rows = re.findall(
        r'<tr data-testid="task-row">(.*?)</tr>', client.get("/tasks/", {"suite": "testbed"}).content.decode(), re.S
    )
    assert len(rows) == 2
    for result in gate.results.select_related("task"):
        (row,) = [r for r in rows if result.task.task_id in r]
        cell = re.search(r'data-testid="task-gate">(.*?)</td>', row, re.S).group(1)
        assert f"{result.get_verdict_display()} {result.passes}/4" in cell
    only_kept = client.get("/tasks/", {"suite": "testbed", "gate": "kept"}).content.decode()
    assert sorted(re.findall(r"<code>(testbed\.[\w-]+)</code>", only_kept)) == sorted(kept)
    # recording is once only, whoever asks again
    assert gate_settle(gate=gate) and GateResult.objects.filter(gate=gate).count() == 2


@pytest.mark.django_db
def test_a_task_version_never_gated_has_no_result_and_is_not_in_the_gated_set():
    task_sync(replica="testbed")
    assert latest_gate(task_current("testbed.complete-note")) is None
    assert gated_tasks("testbed") == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"k": 0}, "k must be between 1 and 100"),
        ({"task_filter": "testbed.nothing-*"}, "no task of suite 'testbed' matches"),
        ({"low": 3, "high": 2}, "0 <= low <= high <= k"),
        ({"k": 3, "high": 4}, "0 <= low <= high <= k"),
        ({"suite": "no-such-suite"}, "no-such-suite"),
        ({"agent": "noisy-oracle:2"}, "slip rate"),
        ({"agent": "teleport"}, "unknown agent"),
    ],
)
def test_a_gate_asked_wrongly_says_why_and_creates_nothing(kwargs, message):
    task_sync(replica="testbed")
    with pytest.raises(GateError, match=message):
        gate_start(**{"suite": "testbed", **kwargs}, enqueue=False)
    assert not Run.objects.exists() and not QualityGate.objects.exists() and not Episode.objects.exists()


@pytest.mark.django_db
def test_the_command_reports_bad_bounds_on_one_line():
    task_sync(replica="testbed")
    with pytest.raises(CommandError, match=r"^the bounds must satisfy 0 <= low <= high <= k, not low=4, high=5, k=3$"):
        call_command("quality_gate", "testbed", "-k", "3", "--low", "4", "--high", "5", "--no-sync")
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_the_gate_button_queues_a_gate_for_the_workers_and_its_page_follows_it(client, author_user):
    task_sync(replica="testbed")
    client.force_login(author_user)
    page = client.get("/runs/gates/")
    assert page.status_code == 200 and b"Run the quality gate on testbed" in page.content
    answer = client.post("/runs/gates/", {"suite": "testbed", "agent": "noisy-oracle", "k": 3, "low": 1, "high": 2})
    gate = QualityGate.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/runs/gates/{gate.pk}/"
    assert (gate.owner, gate.k, gate.low, gate.high) == (author_user, 3, 1, 2)
    queued = Episode.objects.filter(run=gate.run)
    assert queued.count() == 6 and set(queued.values_list("status", flat=True)) == {"queued"}
    assert all(e.queue for e in queued)  # on the workers' queue, not run by the page
    following = client.get(f"/runs/gates/{gate.pk}/", HTTP_HX_REQUEST="true")
    assert b"0 of 6 episodes finished" in following.content and b'hx-trigger="every 2s"' in following.content
    assert gate_settle(gate=gate) is False and not GateResult.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "form, message",
    [
        ({"suite": "testbed", "agent": "noisy-oracle", "k": 5, "low": 4, "high": 2}, b"0 &lt;= low &lt;= high &lt;= k"),
        ({"suite": "testbed", "agent": "noisy-oracle", "k": "five", "low": 2, "high": 4}, b"k: Enter a whole number."),
        ({"suite": "nope", "agent": "noisy-oracle", "k": 5, "low": 2, "high": 4}, b"nope"),
    ],
)
def test_a_bad_gate_form_says_why_and_starts_nothing(client, author_user, form, message):
    task_sync(replica="testbed")
    client.force_login(author_user)
    answer = client.post("/runs/gates/", form)
    assert answer.status_code == 400 and message in answer.content
    assert not QualityGate.objects.exists() and not Run.objects.exists()


@pytest.mark.django_db
def test_gate_and_diagnosis_pages_are_for_staff_only(client, outsider_user, annotator_user):
    for path in ("/runs/gates/", "/runs/diagnose"):
        assert client.get(path).status_code == 302  # to sign in
        for user in (outsider_user, annotator_user):
            client.force_login(user)
            assert client.get(path).status_code == 403
            client.logout()
