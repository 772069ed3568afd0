"""Task packs: validation with file and JSON path in every error, and versioned sync into the catalogue."""

import json
import re
import shutil

import pytest

from catalogue import packs
from catalogue.authoring import AUTHORED_PACK
from catalogue.models import Suite, Task
from catalogue.packs import PackError, load_pack, task_current, task_sync
from tests.episodes.fixtures import REPLICA, TASKS
from verifiers.placeholders import fill

pytestmark = pytest.mark.django_db


@pytest.fixture
def pack(tmp_path):
    folder = tmp_path / "tasks"
    shutil.copytree(TASKS, folder)
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
        load_pack(REPLICA, directory=folder)
    return info.value.errors


def test_load_pack_computes_params_on_the_template_world_and_fills_placeholders(pack):
    tasks = {t.task_id: t for t in load_pack(REPLICA, directory=pack)}
    assert set(tasks) == {"testbed.report-owner", "testbed.open-note"}
    item = tasks["testbed.report-owner"]
    assert isinstance(item.params["note"], int) and item.params["owner"]
    assert len(item.content_hash) == 64
    filled = fill(item.spec["verifier"], item.params)
    assert filled["assertions"][0]["values"] == [item.params["owner"]]


def test_a_string_that_is_exactly_a_placeholder_keeps_the_param_json_type():
    assert fill({"a": "{n}", "b": "#{n}", "c": ["{x}"]}, {"n": 8001, "x": [1]}) == {"a": 8001, "b": "#8001", "c": [[1]]}


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"title": None}, "report-owner.json: title: required key is missing"),
        ({"difficulty": "trivial"}, "report-owner.json: difficulty: must be one of easy, hard, medium"),
        ({"seed": -1}, "report-owner.json: seed: must be a non-negative integer"),
        ({"limits": {"max_steps": 0}}, "report-owner.json: limits.max_steps: must be an integer from 1 to 1000"),
        ({"limits": {"max_stepz": 3}}, "report-owner.json: limits.max_stepz: unknown key"),
        ({"replica": "shop"}, "report-owner.json: replica: must be 'testbed'"),
        ({"variant": "huge"}, "report-owner.json: variant: unknown variant 'huge'"),
        ({"instrution": "x"}, "report-owner.json: instrution: unknown key"),
        ({"reference_solution": ["noop()", 3]}, "report-owner.json: reference_solution[1]: must be a string"),
        (
            {"instruction": "Open #{note} for {customer}"},
            "report-owner.json: instruction: placeholder {customer} is not filled by params",
        ),
        (
            {"params": "tests.episodes.fixtures.params:nope"},
            "report-owner.json: params: tests.episodes.fixtures.params:nope failed",
        ),
        (
            {"params": "not a ref"},
            "report-owner.json: params: must be 'module:function' or a template (a list of params, see "
            "template.schema.json)",
        ),
        ({"slug": "other-name"}, "report-owner.json: slug: 'other-name' differs from the file name"),
        ({"faults": [{"kind": "x"}]}, "report-owner.json: faults[0].kind: unknown key"),
    ],
)
def test_invalid_task_files_are_reported_with_file_and_json_path(pack, changes, message):
    edit(pack, "report-owner", **changes)
    errors = errors_of(pack)
    assert any(message in e for e in errors), errors
    assert all(e.startswith(str(pack)) or e.startswith("tests/") for e in errors)


VERIFIER = {
    "assertions": [{"name": "reports the owner", "kind": "answer", "type": "one_of", "values": ["{owner}"], "wher": 1}],
    "allowed_changes": [],
}


@pytest.mark.parametrize(
    "changes, at",
    [
        ({"instrution": "x", "titel": "y"}, ["instrution", "titel"]),
        ({"params": [{"name": "n", "value": 1, "valu": 2}]}, ["params[0].valu"]),
        ({"verifier": VERIFIER}, ["verifier.assertions[0].wher"]),
    ],
)
def test_an_unknown_key_is_worded_alike_in_a_task_its_template_and_its_verifier(pack, changes, at):
    """One wording for every schema (replicas/worlds/schema_errors.py), each unknown key on its own line."""
    edit(pack, "report-owner", **changes)
    unknown = re.compile(r"report-owner\.json: (\S+): unknown key '(\w+)' \(allowed: \w+(, \w+)*\)$")
    found = [unknown.search(e) for e in errors_of(pack)]
    assert all(found) and [m.group(1) for m in found] == at
    assert all(m.group(1).endswith(m.group(2)) for m in found)


def test_placeholders_inside_the_verifier_must_be_filled_by_params(pack):
    edit(
        pack,
        "open-note",
        verifier={"assertions": [{"name": "x", "kind": "answer", "type": "one_of", "values": ["{priority}"]}]},
    )
    assert any("open-note.json: verifier.assertions[0].values[0]: placeholder {priority}" in e for e in errors_of(pack))


def test_a_file_that_is_not_json_names_line_and_column(pack):
    (pack / "broken.json").write_text('{"slug": "broken",\n  "title": }')
    assert any("broken.json: invalid JSON at line 2" in e for e in errors_of(pack))


def test_sync_creates_tasks_and_the_replica_suite_plus_declared_suites(pack):
    summary = task_sync(replica=REPLICA, directory=pack)
    assert sorted(summary["created"]) == ["testbed.open-note", "testbed.report-owner"]
    assert Suite.objects.get(name=REPLICA, is_current=True).tasks.count() == 2
    assert [t.task_id for t in Suite.objects.get(name="smoke", is_current=True).tasks.all()] == ["testbed.open-note"]
    again = task_sync(replica=REPLICA, directory=pack)
    assert again["created"] == [] and len(again["unchanged"]) == 2
    assert Task.objects.count() == 2 and Suite.objects.filter(name=REPLICA).count() == 1


def test_editing_a_file_makes_a_new_version_and_keeps_the_old_one(pack):
    task_sync(replica=REPLICA, directory=pack)
    old = task_current("testbed.open-note")
    edit(pack, "open-note", title="Open a note, then report its status")
    summary = task_sync(replica=REPLICA, directory=pack)
    assert summary["created"] == ["testbed.open-note"]
    new = task_current("testbed.open-note")
    assert new.pk != old.pk and new.content_hash != old.content_hash
    old.refresh_from_db()
    assert not old.is_current and old.title == "Open a note and report its status"
    smoke = Suite.objects.get(name="smoke", is_current=True)
    assert list(smoke.tasks.all()) == [new]
    assert Suite.objects.filter(name="smoke").count() == 2


def test_removing_a_file_retires_its_task(pack):
    task_sync(replica=REPLICA, directory=pack)
    (pack / "report-owner.json").unlink()
    summary = task_sync(replica=REPLICA, directory=pack)
    assert summary["retired"] == ["testbed.report-owner"]
    assert not Task.objects.filter(task_id="testbed.report-owner", is_current=True).exists()


def test_a_bad_file_changes_nothing_in_the_catalogue(pack):
    task_sync(replica=REPLICA, directory=pack)
    before = list(Task.objects.values_list("pk", "is_current"))
    edit(pack, "open-note", title="A new title")
    edit(pack, "report-owner", difficulty="impossible")
    with pytest.raises(PackError):
        task_sync(replica=REPLICA, directory=pack)
    assert list(Task.objects.values_list("pk", "is_current")) == before


def test_suites_file_naming_an_unknown_task_is_an_error(pack):
    (pack / "suites.json").write_text(json.dumps({"smoke": {"tasks": ["no-such-task"]}}))
    with pytest.raises(PackError, match=r"suites.json: smoke.tasks\[0\]: no task 'no-such-task'"):
        task_sync(replica=REPLICA, directory=pack)


def test_filled_task_exposes_instruction_start_page_and_reference_solution(pack):
    task_sync(replica=REPLICA, directory=pack)
    task = task_current("testbed.open-note")
    assert task.instruction == "Open note #3 and tell me its status."
    assert task.start_page == "/notes/3"
    assert task.reference_solution == [f'send_msg_to_user("Note #3 is {task.params["status"]}.")']
    assert task.limits == {"max_steps": 4, "max_seconds": 120, "step_seconds": 30}


@pytest.fixture
def synced(monkeypatch):
    """The packs `packs_sync` syncs, in order, without syncing them (every pack's first sync takes seconds)."""
    names = []
    monkeypatch.setattr(packs, "task_sync", lambda *, replica: names.append(replica) or {"replica": replica})
    return names


def test_a_command_on_a_pack_or_on_a_suite_its_suites_json_declares_syncs_that_pack_only(synced):
    declared = next(iter(json.loads((packs.pack_dir("board") / "suites.json").read_text())))
    packs.packs_sync("board")
    packs.packs_sync(declared)
    assert synced == ["board", "board"]


@pytest.mark.parametrize("name", [None, "no-such-suite"])
def test_no_name_or_a_suite_nobody_made_syncs_every_pack(synced, db, name):
    packs.packs_sync(name)
    assert synced == [p for p in packs.pack_names() if packs.task_files(p)] and len(synced) >= 7


def test_a_suite_made_in_the_editor_syncs_the_packs_its_tasks_come_from(synced, db):
    def task(task_id, pack):
        return Task.objects.create(
            task_id=task_id,
            replica="testbed",
            slug=task_id.split(".")[1],
            pack=pack,
            title="t",
            spec={},
            content_hash=task_id,
            is_current=True,
        )

    made = packs.suite_upsert("made-in-the-editor", [task("testbed.mine", AUTHORED_PACK)])
    packs.packs_sync("made-in-the-editor")
    assert synced == []  # its one task was made in the editor too: no file to read
    made.tasks.add(task("board.theirs", "board"), task("crossapp.both", "crossapp"))
    packs.packs_sync("made-in-the-editor")
    assert synced == ["board", "crossapp"]


def test_the_pack_a_command_names_is_synced_for_real(db):
    packs.packs_sync(REPLICA)
    assert set(Task.objects.values_list("pack", flat=True)) == {REPLICA}
    assert Suite.objects.filter(name=REPLICA, is_current=True).exists()
