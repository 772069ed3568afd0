"""Bad input anywhere in the task editor: a message at the field it concerns (with its JSON path), and nothing saved."""

import re

import pytest

from catalogue.models import Suite, Task
from frontend.editor.fields import slot_id

pytestmark = pytest.mark.django_db

# A valid testbed task as the editor posts it: every input named <type>:<json path> (frontend.editor.codec).
VALID = {
    "s:replica": "testbed",
    "s:variant": "small",
    "i:seed": "7",
    "s:difficulty": "easy",
    "s:title": "Count the notes of a member",
    "s:slug": "count-notes",
    "s:params[0].name": "member",
    "kind:params[0]": "pick",
    "s:params[0].pick.table": "testbed.member",
    "j:params[0].pick.where": '{"role": {"in": ["owner", "member"]}}',
    "e:params[0].pick.choose": '"seeded"',
    "s:params[1].name": "notes",
    "kind:params[1]": "aggregate",
    "e:params[1].aggregate.op": '"count"',
    "s:params[1].aggregate.table": "testbed.note",
    "j:params[1].aggregate.where": '{"owner": "{member}"}',
    "s:instruction": "How many notes does member #{member} own? Reply with the number only.",
    "s:start_page": "/notes",
    "e:faults[0].name": '"slow_response"',
    "i:faults[0].params.delay_ms": "200",
    "e:verifier.assertions[0].kind": '"answer"',
    "s:verifier.assertions[0].name": "the answer is the note count",
    "e:verifier.assertions[0].type": '"number"',
    "v:verifier.assertions[0].expected": "{notes}",
    "e:verifier.assertions[1].kind": '"diff"',
    "s:verifier.assertions[1].name": "nothing changed",
    "e:verifier.assertions[1].only_allowed": "true",
    "e:verifier.assertions[2].kind": '"trajectory"',
    "s:verifier.assertions[2].name": "few steps",
    "i:verifier.assertions[2].max_steps": "5",
    "l:reference_solution": 'send_msg_to_user("{notes}")',
    "s:negative_examples[0].name": "answers without a number",
    "l:negative_examples[0].actions": 'send_msg_to_user("I could not find it")',
    "new_suite": "editor-checks",
}

BAD = [
    # (what is wrong, changes to the valid form, the input whose slot shows it, words of the message)
    ("unknown table", {"s:params[0].pick.table": "testbed.membr"}, "params[0].pick.table", "unknown table"),
    ("bad placeholder", {"s:instruction": "Count the notes of #{membr}."}, "instruction", "membr"),
    ("out-of-range fault parameter", {"i:faults[0].params.delay_ms": "99999"}, "faults[0].params.delay_ms", "5000"),
    (
        "answer assertion with no answer",
        {"v:verifier.assertions[0].expected": ""},
        "verifier.assertions[0]",
        "expected",
    ),
    ("seed with no candidate", {"j:params[0].pick.where": '{"name": "a name no member has"}'}, "params[0]", "seed 7"),
    ("bad slug", {"s:slug": "Count Comments!"}, "slug", "slug"),
    ("invalid JSON", {"j:params[0].pick.where": '{"role": '}, "params[0].pick.where", "invalid JSON"),
    ("seed that is not a number", {"i:seed": "seven"}, "seed", "whole number"),
    (
        "unknown field in the verifier",
        {
            "e:verifier.assertions[1].kind": '"state"',
            "e:verifier.assertions[1].only_allowed": "",
            "s:verifier.assertions[1].table": "testbed.note",
            "j:verifier.assertions[1].where": '{"doen": false}',
            "j:verifier.assertions[1].expect": '{"count": 1}',
        },
        "verifier.assertions[1].where",
        "doen",
    ),
    (
        "action that does not parse",
        {"l:reference_solution": "send_msg_to_user(42"},
        "reference_solution",
        "reference_solution[0]",
    ),
    ("unknown variant", {"s:variant": "gigantic"}, "variant", "gigantic"),
    ("start page that is not a path", {"s:start_page": "notes"}, "start_page", "/"),
    ("bad suite name", {"new_suite": "Not A Suite"}, "new_suite", "suite name"),
    (
        "operator that does not fit the field",
        {"j:params[0].pick.where": '{"role": {"gt": "member"}}'},
        "params[0].pick.where",
        "gt",
    ),
]


@pytest.fixture
def author_client(client, author_user):
    client.force_login(author_user)
    return client


def _slot_messages(html: str, path: str) -> str:
    found = re.search(
        rf'<div class="rg-field-error" id="{re.escape(slot_id(path))}"[^>]*>(.*?)</div>\s*(?:</div>|$)', html, re.S
    )
    return found.group(1) if found else ""


def test_the_valid_form_saves_a_version_into_its_suite(author_client):
    response = author_client.post("/tasks/editor/save/", VALID)
    assert response.status_code == 302, response.content.decode()[:2000]
    task = Task.objects.get(task_id="testbed.count-notes", is_current=True)
    assert task.pack == "authored" and task.params["notes"] >= 0
    assert task.instruction == f"How many notes does member #{task.params['member']} own? Reply with the number only."
    assert list(Suite.objects.get(name="editor-checks", is_current=True).tasks.all()) == [task]


@pytest.mark.parametrize("what, change, path, words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_shown_at_its_field_and_changes_nothing(author_client, what, change, path, words):
    tasks, suites = Task.objects.count(), Suite.objects.count()
    response = author_client.post("/tasks/editor/save/", {**VALID, **change})
    html = response.content.decode()
    assert response.status_code == 422
    assert "Not saved" in html
    at_field = _slot_messages(html, path)
    assert words in at_field, f"{what}: expected {words!r} at {path}, slot holds {at_field!r}"
    assert 'data-error-path="' in at_field  # each message names its JSON path
    assert (Task.objects.count(), Suite.objects.count()) == (tasks, suites)


def test_live_validation_swaps_each_message_into_its_field(author_client):
    bad = {**VALID, "i:faults[0].params.delay_ms": "99999", "s:params[0].pick.table": "testbed.membr"}
    html = author_client.post("/tasks/editor/validate/", bad, HTTP_HX_REQUEST="true").content.decode()
    for path in ("faults[0].params.delay_ms", "params[0].pick.table"):
        assert re.search(
            rf'id="{slot_id(path)}" hx-swap-oob="true"><div role="alert" data-error-path="{re.escape(path)}"', html
        )
    # slots of fields without problems are swapped in empty, so a fixed problem disappears
    assert f'id="{slot_id("title")}" hx-swap-oob="true"></div>' in html
    good = author_client.post("/tasks/editor/validate/", VALID, HTTP_HX_REQUEST="true").content.decode()
    assert "Valid: ready to save." in good and 'data-testid="answer-key"' in good


def test_the_template_lists_its_instances_row_by_row_and_names_seeds_without_candidates(author_client):
    """Listing 5 seeds took 90 s with nothing shown: the list comes back at once, one pending row per seed,
    and each row fetches its own answer key."""
    members_1_and_2 = {
        **VALID,
        "j:params[0].pick.where": '{"role": {"in": ["owner", "member"]}, "email": {"matches": "^member[12]@"}}',
    }
    html = author_client.post(
        "/tasks/editor/instances/", {**members_1_and_2, "preview_seeds": "7, 8, 9, 8"}
    ).content.decode()
    assert re.findall(r'<tr data-seed="(\d+)" hx-post', html) == ["7", "8", "9"]
    assert html.count('data-testid="instance-pending"') == 3 and "notes=" not in html
    rows = [
        author_client.post("/tasks/editor/instances/", {**members_1_and_2, "one_seed": seed}).content.decode()
        for seed in ("7", "8", "9")
    ]
    assert all(row.startswith('<tr data-seed="') and "notes=" in row and "hx-post" not in row for row in rows)
    nothing = {**VALID, "j:params[0].pick.where": '{"name": "a name no member has"}'}
    row = author_client.post("/tasks/editor/instances/", {**nothing, "one_seed": "8"}).content.decode()
    assert "no candidate" in row and "seed 8" in row
    bad = author_client.post("/tasks/editor/instances/", {**nothing, "one_seed": "eight"}).content.decode()
    assert "not a seed" in bad


def test_agents_and_annotators_cannot_reach_the_editor(client, annotator_user):
    client.force_login(annotator_user)
    assert client.post("/tasks/editor/save/", VALID).status_code == 403
    assert client.get("/tasks/new/").status_code == 403
    assert not Task.objects.filter(task_id="testbed.count-notes").exists()


def test_adding_an_item_tells_the_page_which_one_to_keep_in_view(author_client):
    """'Add fault' left the page 7,000 px away from the new fault: the answer names it for the page to scroll to."""
    import json

    response = author_client.post("/tasks/editor/form/", {**VALID, "op": "add:faults:slow_page"})
    events = json.loads(response["HX-Trigger-After-Settle"])
    assert events == {"editorChanged": None, "editorItemAdded": {"path": "faults[1]"}}
    assert 'data-item="faults[1]"' in response.content.decode()
    removed = author_client.post("/tasks/editor/form/", {**VALID, "op": "remove:faults[0]"})
    assert json.loads(removed["HX-Trigger-After-Settle"]) == {"editorChanged": None}
