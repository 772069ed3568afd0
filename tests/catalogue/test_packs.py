"""Task packs: validation with file and JSON path in every error, and versioned sync into the catalogue."""
import json
import shutil
from pathlib import Path

import pytest
from replicagym.catalogue.models import Suite, Task
from replicagym.catalogue.packs import PackError, load_pack, task_current, task_sync

from verifiers.placeholders import fill

FIXTURES = Path(__file__).resolve().parent.parent / "episodes" / "fixtures" / "tasks"
pytestmark = pytest.mark.django_db


@pytest.fixture
def pack(tmp_path):
    folder = tmp_path / "tasks"
    shutil.copytree(FIXTURES, folder)
    return folder


def edit(folder, name, **changes):
    path = folder / f"{name}.json"
    spec = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            spec.pop(key, None)
        else:
            spec[key] = value
    path.write_text(json.dumps(spec))
    return path


def errors_of(folder):
    with pytest.raises(PackError) as info:
        load_pack("supportdesk", directory=folder)
    return info.value.errors


def test_load_pack_computes_params_on_the_template_world_and_fills_placeholders(pack):
    tasks = {t.task_id: t for t in load_pack("supportdesk", directory=pack)}
    assert set(tasks) == {"supportdesk.report-requester", "supportdesk.open-ticket"}
    item = tasks["supportdesk.report-requester"]
    assert isinstance(item.params["ticket"], int) and item.params["requester"]
    assert len(item.content_hash) == 64
    filled = fill(item.spec["verifier"], item.params)
    assert filled["assertions"][0]["values"] == [item.params["requester"]]


def test_a_string_that_is_exactly_a_placeholder_keeps_the_param_json_type():
    assert fill({"a": "{n}", "b": "#{n}", "c": ["{x}"]}, {"n": 8001, "x": [1]}) == {"a": 8001, "b": "#8001", "c": [[1]]}


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"title": None}, "report-requester.json: title: required key is missing"),
        ({"difficulty": "trivial"}, "report-requester.json: difficulty: must be one of easy, hard, medium"),
        ({"seed": -1}, "report-requester.json: seed: must be a non-negative integer"),
        ({"limits": {"max_steps": 0}}, "report-requester.json: limits.max_steps: must be an integer from 1 to 1000"),
        ({"limits": {"max_stepz": 3}}, "report-requester.json: limits.max_stepz: unknown key"),
        ({"replica": "shop"}, "report-requester.json: replica: must be 'supportdesk'"),
        ({"variant": "huge"}, "report-requester.json: variant: unknown variant 'huge'"),
        ({"instrution": "x"}, "report-requester.json: instrution: unknown key"),
        ({"reference_solution": ["noop()", 3]}, "report-requester.json: reference_solution[1]: must be a string"),
        ({"instruction": "Open #{ticket} for {customer}"}, "report-requester.json: instruction: placeholder {customer} is not filled by params"),
        ({"params": "tests.episodes.fixtures.params:nope"}, "report-requester.json: params: tests.episodes.fixtures.params:nope failed"),
        ({"params": "not a ref"}, "report-requester.json: params: must be 'module:function'"),
        ({"slug": "other-name"}, "report-requester.json: slug: 'other-name' differs from the file name"),
        ({"faults": [{"kind": "x"}]}, "report-requester.json: faults[0].kind: unknown key"),
    ],
)
def test_invalid_task_files_are_reported_with_file_and_json_path(pack, changes, message):
    edit(pack, "report-requester", **changes)
    errors = errors_of(pack)
    assert any(message in e for e in errors), errors
    assert all(e.startswith(str(pack)) or e.startswith("tests/") for e in errors)


def test_placeholders_inside_the_verifier_must_be_filled_by_params(pack):
    edit(pack, "open-ticket", verifier={"assertions": [{"name": "x", "kind": "answer", "type": "one_of", "values": ["{priority}"]}]})
    assert any("open-ticket.json: verifier.assertions[0].values[0]: placeholder {priority}" in e for e in errors_of(pack))


def test_a_file_that_is_not_json_names_line_and_column(pack):
    (pack / "broken.json").write_text('{"slug": "broken",\n  "title": }')
    assert any("broken.json: invalid JSON at line 2" in e for e in errors_of(pack))


def test_sync_creates_tasks_and_the_replica_suite_plus_declared_suites(pack):
    summary = task_sync(replica="supportdesk", directory=pack)
    assert sorted(summary["created"]) == ["supportdesk.open-ticket", "supportdesk.report-requester"]
    assert Suite.objects.get(name="supportdesk", is_current=True).tasks.count() == 2
    assert [t.task_id for t in Suite.objects.get(name="smoke", is_current=True).tasks.all()] == ["supportdesk.open-ticket"]
    again = task_sync(replica="supportdesk", directory=pack)
    assert again["created"] == [] and len(again["unchanged"]) == 2
    assert Task.objects.count() == 2 and Suite.objects.filter(name="supportdesk").count() == 1


def test_editing_a_file_makes_a_new_version_and_keeps_the_old_one(pack):
    task_sync(replica="supportdesk", directory=pack)
    old = task_current("supportdesk.open-ticket")
    edit(pack, "open-ticket", title="Open a ticket, then report its status")
    summary = task_sync(replica="supportdesk", directory=pack)
    assert summary["created"] == ["supportdesk.open-ticket"]
    new = task_current("supportdesk.open-ticket")
    assert new.pk != old.pk and new.content_hash != old.content_hash
    old.refresh_from_db()
    assert not old.is_current and old.title == "Open a ticket and report its status"
    smoke = Suite.objects.get(name="smoke", is_current=True)
    assert list(smoke.tasks.all()) == [new]
    assert Suite.objects.filter(name="smoke").count() == 2


def test_removing_a_file_retires_its_task(pack):
    task_sync(replica="supportdesk", directory=pack)
    (pack / "report-requester.json").unlink()
    summary = task_sync(replica="supportdesk", directory=pack)
    assert summary["retired"] == ["supportdesk.report-requester"]
    assert not Task.objects.filter(task_id="supportdesk.report-requester", is_current=True).exists()


def test_a_bad_file_changes_nothing_in_the_catalogue(pack):
    task_sync(replica="supportdesk", directory=pack)
    before = list(Task.objects.values_list("pk", "is_current"))
    edit(pack, "open-ticket", title="A new title")
    edit(pack, "report-requester", difficulty="impossible")
    with pytest.raises(PackError):
        task_sync(replica="supportdesk", directory=pack)
    assert list(Task.objects.values_list("pk", "is_current")) == before


def test_suites_file_naming_an_unknown_task_is_an_error(pack):
    (pack / "suites.json").write_text(json.dumps({"smoke": {"tasks": ["no-such-task"]}}))
    with pytest.raises(PackError, match=r"suites.json: smoke.tasks\[0\]: no task 'no-such-task'"):
        task_sync(replica="supportdesk", directory=pack)


def test_filled_task_exposes_instruction_start_page_and_reference_solution(pack):
    task_sync(replica="supportdesk", directory=pack)
    task = task_current("supportdesk.open-ticket")
    assert task.instruction == "Open ticket #8003 and tell me its status."
    assert task.start_page == "/agent/tickets/8003"
    assert task.reference_solution == [f'send_msg_to_user("Ticket #8003 is {task.params["status"]}.")']
    assert task.limits == {"max_steps": 4, "max_seconds": 120, "step_seconds": 30}
