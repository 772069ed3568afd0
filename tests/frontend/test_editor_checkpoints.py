"""A verifier's checkpoints in the task editor (issue 32): shown, kept by a save that changes nothing, edited like any
other field, and refused at their JSON path when they are wrong, with nothing saved."""

import json
from pathlib import Path

import pytest
from django.conf import settings

from catalogue.models import Task
from tests.frontend.test_editor_bad_input import _slot_messages
from tests.frontend.test_editor_round_trip import _posted

pytestmark = pytest.mark.django_db

CHECKPOINTS = [
    {"name": "renamed the note", "points": 2, "assertions": ["the note has its new title", "titles stay unique"]},
    {"name": "touched nothing else", "assertions": ["nothing else changed"]},
]
TASK_ID = "testbed.rename-note-milestones"


@pytest.fixture
def imported(client, author_user):
    """The testbed's rename-note pack file, with checkpoints, imported under a slug of its own."""
    client.force_login(author_user)
    spec = json.loads((Path(settings.BASE_DIR) / "replicas/testbed/tasks/rename-note.json").read_text())
    spec["slug"] = "rename-note-milestones"
    spec["verifier"]["checkpoints"] = CHECKPOINTS
    response = client.post("/tasks/import/", {"text": json.dumps(spec)})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Task.objects.get(task_id=TASK_ID, is_current=True)


def _editor_form(client) -> dict:
    """The editor's form as the browser submits it: a list of values per name (a multiple choice sends several)."""
    posted = _posted(client.get(f"/tasks/{TASK_ID}/edit/").content.decode())
    return {name: posted.getlist(name) for name in posted}


def test_the_editor_shows_each_checkpoint_and_an_unchanged_save_keeps_them(client, imported):
    page = client.get(f"/tasks/{TASK_ID}/edit/").content.decode()
    assert "Checkpoint 1: renamed the note" in page and "Checkpoint 2: touched nothing else" in page
    response = client.post("/tasks/editor/save/", _editor_form(client))
    assert response.status_code == 302, response.content.decode()[:2000]
    current = Task.objects.get(task_id=TASK_ID, is_current=True)
    assert current.spec["verifier"]["checkpoints"] == CHECKPOINTS
    # the same content: the same version, no new row (it was a new one while the editor dropped checkpoints)
    assert current.pk == imported.pk and Task.objects.filter(task_id=TASK_ID).count() == 1


def test_a_checkpoint_edited_in_the_form_is_saved_as_a_new_version(client, imported):
    form = _editor_form(client)
    form["s:verifier.checkpoints[1].name"] = "left the other notes alone"
    form["i:verifier.checkpoints[1].points"] = "3"
    form["l:verifier.checkpoints[0].assertions"] = "the note has its new title"
    response = client.post("/tasks/editor/save/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    current = Task.objects.get(task_id=TASK_ID, is_current=True)
    assert current.pk != imported.pk
    assert current.spec["verifier"]["checkpoints"] == [
        {"name": "renamed the note", "points": 2, "assertions": ["the note has its new title"]},
        {"name": "left the other notes alone", "points": 3, "assertions": ["nothing else changed"]},
    ]
    assert {k: v for k, v in current.spec["verifier"].items() if k != "checkpoints"} == {
        k: v for k, v in imported.spec["verifier"].items() if k != "checkpoints"
    }


def test_a_checkpoint_added_in_the_form_starts_empty_and_is_saved_once_filled(client, imported):
    form = _editor_form(client)
    form["op"] = "add:verifier.checkpoints"
    posted = _posted(client.post("/tasks/editor/form/", form).content.decode())
    added = {name: posted.getlist(name) for name in posted}
    assert added["s:verifier.checkpoints[2].name"] == [""] and added["l:verifier.checkpoints[2].assertions"] == [""]
    added["s:verifier.checkpoints[2].name"] = "kept titles unique"
    added["l:verifier.checkpoints[2].assertions"] = "titles stay unique"
    assert client.post("/tasks/editor/save/", added).status_code == 302
    saved = Task.objects.get(task_id=TASK_ID, is_current=True).spec["verifier"]["checkpoints"]
    assert saved == [*CHECKPOINTS, {"name": "kept titles unique", "assertions": ["titles stay unique"]}]


BAD = [
    # (what is wrong, changes to the form, the input whose slot shows it, words of the message)
    (
        "an assertion the verifier does not have",
        {"l:verifier.checkpoints[0].assertions": "the note has its new title\nthe note is pinned"},
        "verifier.checkpoints[0].assertions",
        "no assertion named &#x27;the note is pinned&#x27;",
    ),
    (
        "one assertion twice",
        {"l:verifier.checkpoints[1].assertions": "nothing else changed\nnothing else changed"},
        "verifier.checkpoints[1].assertions",
        "each assertion once",
    ),
    (
        "two checkpoints of one name",
        {"s:verifier.checkpoints[1].name": "renamed the note"},
        "verifier.checkpoints[1].name",
        "duplicate checkpoint name",
    ),
    ("points out of range", {"i:verifier.checkpoints[0].points": "0"}, "verifier.checkpoints[0].points", "1"),
    (
        "points that are not a number",
        {"i:verifier.checkpoints[0].points": "two"},
        "verifier.checkpoints[0].points",
        "whole number",
    ),
    (
        "a checkpoint with no assertion",
        {"l:verifier.checkpoints[1].assertions": ""},
        "verifier.checkpoints[1].assertions",
        "required key is missing",
    ),
]


@pytest.mark.parametrize("what, change, path, words", BAD, ids=[b[0] for b in BAD])
def test_a_bad_checkpoint_is_shown_at_its_field_and_changes_nothing(client, imported, what, change, path, words):
    form = _editor_form(client)
    response = client.post("/tasks/editor/save/", {**form, **change})
    html = response.content.decode()
    assert response.status_code == 422 and "Not saved" in html
    at_field = _slot_messages(html, path)
    assert words in at_field, f"{what}: expected {words!r} at {path}, slot holds {at_field!r}"
    assert list(Task.objects.filter(task_id=TASK_ID).values_list("pk", "is_current")) == [(imported.pk, True)]
    assert Task.objects.get(pk=imported.pk).spec["verifier"]["checkpoints"] == CHECKPOINTS
