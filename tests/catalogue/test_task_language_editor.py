"""The editor takes the task language's constructs (issue 31): a count from a param, a relation path in a where,
a computed date in a condition and in a template param, a when/then conditional. Saved, the task opens again and
posts back unchanged."""

import json
from html import unescape

import lxml.html
import pytest
from django.http import QueryDict

from catalogue.models import Task
from frontend.editor import codec
from replicas.worlds.services import template_get_or_build
from verifiers.values import calendar_date

pytestmark = pytest.mark.django_db

FORM = {
    "s:replica": "testbed",
    "s:variant": "small",
    "i:seed": "7",
    "s:difficulty": "easy",
    "s:title": "Finish a member's notes",
    "s:slug": "finish-member-notes",
    "s:params[0].name": "member",
    "kind:params[0]": "pick",
    "s:params[0].pick.table": "testbed.member",
    "j:params[0].pick.where": '{"role": "member"}',
    "e:params[0].pick.choose": '"first"',
    "s:params[1].name": "member_name",
    "kind:params[1]": "field",
    "s:params[1].field": "member.name",
    "s:params[2].name": "notes",
    "kind:params[2]": "aggregate",
    "e:params[2].aggregate.op": '"count"',
    "s:params[2].aggregate.table": "testbed.note",
    "j:params[2].aggregate.where": '{"owner": "{member}"}',
    "s:params[3].name": "week_start",
    "kind:params[3]": "date",
    "e:params[3].date.on": '"start_of_week"',
    "s:params[3].date.format": "date",
    "s:instruction": "Mark every note of {member_name} done (this week began on {week_start}).",
    "s:start_page": "/notes",
    "e:verifier.assertions[0].kind": '"state"',
    "s:verifier.assertions[0].name": "every note of the member is done",
    "s:verifier.assertions[0].table": "testbed.note",
    "j:verifier.assertions[0].where": '{"owner__name": "{member_name}", "done": true}',
    "j:verifier.assertions[0].expect": '{"count": "{notes}"}',
    "e:verifier.assertions[1].kind": '"diff"',
    "s:verifier.assertions[1].name": "the notes were updated this week",
    "s:verifier.assertions[1].table": "testbed.note",
    "e:verifier.assertions[1].op": '"changed"',
    "j:verifier.assertions[1].where": '{"updated_at": {"gte": {"date": "start_of_week"}}}',
    "j:verifier.assertions[1].count": '{"min": 1, "max": "{notes}"}',
    "e:verifier.assertions[2].kind": '"conditional"',
    "s:verifier.assertions[2].name": "a note the member held at the start was finished",
    "j:verifier.assertions[2].when": json.dumps(
        {
            "name": "the member held notes at the start",
            "kind": "state",
            "table": "testbed.note",
            "at": "initial",
            "where": {"owner__name": "{member_name}"},
            "expect": {"count": {"min": 1}},
        }
    ),
    "j:verifier.assertions[2].then": json.dumps(
        [
            {
                "name": "one was finished",
                "kind": "diff",
                "table": "testbed.note",
                "op": "changed",
                "changes": {"done": {"to": True}},
            }
        ]
    ),
    "l:reference_solution": 'goto("/notes")',
    "new_suite": "task-language",
}


@pytest.fixture
def author_client(client, author_user):
    client.force_login(author_user)
    return client


def _posted(html: str) -> QueryDict:
    form = lxml.html.fromstring(html).get_element_by_id("editor")
    post = QueryDict(mutable=True)
    for name, value in form.form_values():
        post.appendlist(name, value)
    return post


def test_the_new_constructs_save_fill_and_round_trip_through_the_editor(author_client):
    response = author_client.post("/tasks/editor/save/", FORM)
    assert response.status_code == 302, response.content.decode()[:3000]
    task = Task.objects.get(task_id="testbed.finish-member-notes", is_current=True)
    verifier = task.spec["verifier"]["assertions"]
    assert verifier[0]["expect"] == {"count": "{notes}"} and verifier[0]["where"]["owner__name"] == "{member_name}"
    assert verifier[1]["where"] == {"updated_at": {"gte": {"date": "start_of_week"}}}
    assert verifier[2]["when"]["at"] == "initial" and verifier[2]["then"][0]["changes"] == {"done": {"to": True}}
    assert task.spec["params"][3]["date"] == {"on": "start_of_week", "format": "date"}
    assert isinstance(task.params["notes"], int)
    clock = template_get_or_build(replica="testbed", seed=7, variant="small").clock
    assert task.params["week_start"] == calendar_date("start_of_week", {}, clock.date()).isoformat()

    page = author_client.get(f"/tasks/{task.task_id}/edit/").content.decode()
    form = codec.decode(_posted(page))
    assert form.errors == []
    assert form.spec["verifier"] == task.spec["verifier"]
    assert form.spec["params"] == task.spec["params"]


@pytest.mark.parametrize(
    "change, path, words",
    [
        (
            {"j:verifier.assertions[0].expect": '{"count": "{member_name}"}'},
            "verifier.assertions[0].expect.count",
            "must be a count",
        ),
        (
            {"j:verifier.assertions[0].where": '{"owner__nmae": "{member_name}"}'},
            "verifier.assertions[0].where.owner__nmae",
            "unknown field 'nmae'",
        ),
        (
            {"j:verifier.assertions[1].where": '{"updated_at": {"gte": {"date": "business_days", "n": 0}}}'},
            "verifier.assertions[1].where.updated_at.gte",
            "n other than 0",
        ),
        ({"e:params[3].date.on": '"nth_weekday"'}, "params[3].date", "nth_weekday needs 'n'"),
        (
            {
                "j:verifier.assertions[2].then": '[{"name": "x", "kind": "state", "table": "testbed.nte", '
                '"expect": {"count": 1}}]'
            },
            "verifier.assertions[2].then[0].table",
            "unknown model 'testbed.nte'",
        ),
    ],
)
def test_the_editor_refuses_a_bad_construct_at_its_path_and_saves_nothing(author_client, change, path, words):
    response = author_client.post("/tasks/editor/save/", {**FORM, **change})
    html = unescape(response.content.decode())
    assert response.status_code == 422
    assert f'data-error-path="{path}"' in html and words in html, html[:3000]
    assert not Task.objects.filter(task_id="testbed.finish-member-notes").exists()
