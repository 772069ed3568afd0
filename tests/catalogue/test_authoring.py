"""Authored tasks: every save that changes something is a new version, diffs, export/import round trips, suites."""

import json

import pytest

from catalogue.authoring import (
    DraftError,
    suite_save,
    task_export,
    task_import,
    task_save,
    version_diff,
)
from catalogue.models import Suite, Task
from episodes.creation import episode_create

pytestmark = pytest.mark.django_db

SPEC = {
    "slug": "count-notes",
    "title": "Count the notes of a member",
    "difficulty": "easy",
    "replica": "testbed",
    "seed": 7,
    "variant": "small",
    "params": [
        {"name": "member", "pick": {"table": "testbed.member", "where": {"role": "member"}}},
        {"name": "notes", "aggregate": {"op": "count", "table": "testbed.note", "where": {"owner": "{member}"}}},
    ],
    "instruction": "How many notes does member #{member} own?",
    "start_page": "/notes",
    "verifier": {"assertions": [{"name": "the count", "kind": "answer", "type": "number", "expected": "{notes}"}]},
    "reference_solution": ['send_msg_to_user("{notes}")'],
}


def test_each_changing_save_is_a_new_version_and_episodes_keep_theirs():
    first = task_save(spec=SPEC, suites=["counting"])
    assert task_save(spec=SPEC, replaces=first.task_id).pk == first.pk  # the same content: the same version
    episode = episode_create(task=first, agent="oracle")
    second = task_save(spec={**SPEC, "title": "Count a member's notes"}, suites=["counting"], replaces=first.task_id)
    assert second.pk != first.pk and second.content_hash != first.content_hash
    first.refresh_from_db()
    assert not first.is_current and second.is_current
    episode.refresh_from_db()
    assert episode.task_id == first.pk
    assert list(Suite.objects.get(name="counting", is_current=True).tasks.all()) == [second]
    diff = "\n".join(version_diff(first, second))
    assert '-  "title": "Count the notes of a member"' in diff and '+  "title": "Count a member\'s notes"' in diff


def test_a_new_task_or_an_import_with_the_slug_of_an_existing_task_is_refused_not_saved_over_it():
    """A new task saved with an authored task's slug silently replaced it."""
    first = task_save(spec=SPEC)
    clash = "testbed.count-notes exists already: open it from the catalogue to change it, or pick another slug"
    for save in (
        lambda: task_save(spec={**SPEC, "title": "Someone else's task"}),  # a new draft
        lambda: task_save(spec={**SPEC, "title": "Renamed onto it"}, replaces="testbed.other"),  # an edit renamed
        lambda: task_import(json.dumps({**SPEC, "title": "Imported over it"})),
    ):
        with pytest.raises(DraftError) as err:
            save()
        assert ("slug", clash) in err.value.errors
    assert list(Task.objects.values_list("pk", "is_current")) == [(first.pk, True)]


def test_export_then_import_gives_the_same_content_hash():
    task = task_save(spec=SPEC)
    text = task_export(task)
    assert json.loads(text) == SPEC
    Task.objects.filter(pk=task.pk).update(is_current=False)
    again = task_import(text)
    assert again.content_hash == task.content_hash and again.params_hash == task.params_hash


def test_an_invalid_draft_or_suite_changes_nothing():
    with pytest.raises(DraftError) as err:
        task_save(spec={**SPEC, "verifier": {"assertions": [{"name": "x", "kind": "answer", "type": "number"}]}})
    assert any(path.startswith("verifier.assertions[0]") for path, _ in err.value.errors)
    with pytest.raises(DraftError):
        task_import("{not json")
    with pytest.raises(DraftError) as err:
        suite_save(name="Bad Name", task_ids=["testbed.nope"])
    assert {p for p, _ in err.value.errors} == {"name", "tasks[0]"}
    assert not Task.objects.exists() and not Suite.objects.exists()


def test_a_draft_s_problems_are_the_json_paths_and_messages_a_task_file_gets():
    """The editor marks each field by its path: the pairs come from the schema as they are, not re-split from lines."""
    draft = {k: v for k, v in SPEC.items() if k != "title"} | {"seed": -1, "limits": {"max_stepz": 3}}
    with pytest.raises(DraftError) as err:
        task_save(spec=draft)
    assert err.value.errors == [
        ("title", "required key is missing"),
        ("limits.max_stepz", "unknown key 'max_stepz' (allowed: max_seconds, max_steps, step_seconds)"),
        ("seed", "must be a non-negative integer"),
    ]
    assert not Task.objects.exists()


def test_an_earlier_version_is_restored_in_the_current_versions_suites_and_bad_restores_change_nothing(
    client, author_user
):
    first = task_save(spec=SPEC, suites=["counting"])
    second = task_save(spec={**SPEC, "title": "Count a member's notes"}, suites=["counting"], replaces=first.task_id)
    client.force_login(author_user)
    page = client.get(f"/tasks/{first.task_id}/").content.decode()
    assert f'data-testid="restore-{first.pk}"' in page and f'data-testid="restore-{second.pk}"' not in page

    answer = client.post(f"/tasks/{first.task_id}/restore/", {"version": first.pk}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 204 and answer["HX-Redirect"] == f"/tasks/{first.task_id}/"
    first.refresh_from_db(), second.refresh_from_db()
    assert first.is_current and not second.is_current
    assert list(Suite.objects.get(name="counting", is_current=True).tasks.all()) == [first]

    for bad, message in [
        (first.pk, "is the current one already"),
        (999_999, "has no version 999999"),
        ("x", "required"),
    ]:
        shown = client.post(f"/tasks/{first.task_id}/restore/", {"version": bad}, follow=True).content.decode()
        assert "Not restored" in shown and message in shown
    assert Task.objects.get(is_current=True).pk == first.pk


def test_a_pack_tasks_version_is_not_restored_from_the_page(client, author_user):
    from catalogue.authoring import version_restore

    task = task_save(spec=SPEC)
    Task.objects.filter(pk=task.pk).update(pack="testbed", is_current=False)
    with pytest.raises(DraftError, match="belongs to the testbed pack"):
        version_restore(task_id=task.task_id, version_pk=task.pk)
