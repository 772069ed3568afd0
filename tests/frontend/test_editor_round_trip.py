"""Opening a pack's task in the editor loses nothing: the form the editor renders, submitted as a browser would,
decodes (frontend.editor.codec) back to the task's own spec, for every task of every installed pack."""

import lxml.html
import pytest
from django.http import QueryDict

from catalogue.models import Task
from catalogue.packs import task_sync
from frontend.editor import codec
from replicas.worlds.registry import replicas

pytestmark = pytest.mark.django_db


def _posted(html: str) -> QueryDict:
    """What the browser would submit: every named control of the editor's form with its current value."""
    form = lxml.html.fromstring(html).get_element_by_id("editor")
    post = QueryDict(mutable=True)
    for name, value in form.form_values():
        post.appendlist(name, value)
    return post


def _filled(spec: dict) -> dict:
    """The spec without what a form cannot send: empty top-level lists and objects, an empty allowed_changes
    (the editor's save puts that back for "only allowed changes")."""
    spec = {k: v for k, v in spec.items() if v not in (None, [], {})}
    verifier = spec.get("verifier")
    if isinstance(verifier, dict) and verifier.get("allowed_changes") == []:
        spec["verifier"] = {k: v for k, v in verifier.items() if k != "allowed_changes"}
    return spec


@pytest.fixture
def author_client(client, author_user):
    client.force_login(author_user)
    return client


@pytest.mark.parametrize("replica", sorted(replicas()))
def test_every_pack_task_round_trips_through_the_editor_form(author_client, replica):
    task_sync(replica=replica)
    tasks = list(Task.objects.filter(replica=replica, is_current=True).order_by("task_id"))
    assert tasks
    for task in tasks:
        page = author_client.get(f"/tasks/{task.task_id}/edit/")
        assert page.status_code == 200, task.task_id
        form = codec.decode(_posted(page.content.decode()))
        assert form.errors == [], (task.task_id, form.errors)
        assert _filled(form.spec) == _filled(task.spec), task.task_id


def test_a_pack_task_opens_in_the_editor_without_a_clash_error_says_where_it_lives_and_is_not_saved_over(
    author_client,
):
    """It opened with an error about its own pack file."""
    task_sync(replica="testbed")
    task = Task.objects.filter(replica="testbed", is_current=True).order_by("task_id").first()
    page = author_client.get(f"/tasks/{task.task_id}/edit/").content.decode()
    assert 'data-testid="pack-task-note"' in page and f"replicas/testbed/tasks/{task.slug}.json" in page
    posted = _posted(page)
    checked = author_client.post("/tasks/editor/validate/", posted).content.decode()
    assert "already has a task file" not in checked
    saved = author_client.post("/tasks/editor/save/", posted)
    assert saved.status_code == 422 and "belongs to the testbed pack" in saved.content.decode()
    posted.pop("task_id")  # a new draft with that slug still clashes with the file
    assert "already has a task file" in author_client.post("/tasks/editor/validate/", posted).content.decode()


def test_the_picker_list_says_what_each_picker_picks(author_client):
    """19 bare names and no description: each option now carries its function's summary, the chosen one as help."""
    from catalogue.task_templates import function_summary
    from replicas.worlds.registry import get_replica

    task_sync(replica="supportdesk")
    page = author_client.get("/tasks/supportdesk.add-tag-keep-others/edit/").content.decode()
    doc = lxml.html.fromstring(page)
    pickers = get_replica("supportdesk").pickers
    select = next(s for s in doc.iter("select") if {o.get("value") for o in s.iter("option")} >= set(pickers))
    labels = {o.get("value"): o.text_content() for o in select.iter("option") if o.get("value")}
    for name, ref in pickers.items():
        assert labels[name] == f"{name}: {function_summary(ref)}" and function_summary(ref)
