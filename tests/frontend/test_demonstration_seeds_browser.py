"""A demonstration that generalises, in a real Chromium: the author records the reference on seed 7 (typing the
sign-in the instruction gives, answering the count in the bar); pulled into the editor, every typed value that is a
param's is written as its placeholder, so the test run on seeds 7, 8 and 9 (each world with its own member, password
and count) passes the recorded reference on all three, and doing nothing and the negative fail on each."""

import re

import pytest

from catalogue.models import Task
from tests.frontend.test_authoring_browser import (
    _add,
    _input,
    _reshaped,
    _settled,
    page,  # noqa: F401 - the fixture: an author signed in
)
from tests.frontend.test_first_hour_browser import play_queued

# sqlite_only: the recording tab in a browser; pulling a demonstration into the editor and writing its params as
# placeholders is tested on both backends without a browser (tests/frontend/test_demonstration.py)
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]
SEEDS = (7, 8, 9)


def record(editor):
    """In the recording tab: sign in with what the instruction gives, count the member's notes, answer in the bar."""
    editor.locator('[data-testid="record-demonstration"]').click()
    with editor.context.expect_page() as opened:
        editor.locator('[data-testid="demonstration-link"]').click()
    rec = opened.value
    rec.wait_for_load_state()
    text = rec.get_by_test_id("instruction").text_content()
    email, password, name = re.search(
        r"Sign in with (\S+) \(password (\S+)\) and count the notes (.+) owns", text
    ).groups()
    world = rec.frame_locator("#rg-frame")
    world.locator("#id_email").click()
    rec.keyboard.type(email)
    world.locator("#id_password").click()
    rec.keyboard.type(password)
    world.get_by_role("button", name="Sign in").click()
    world.get_by_role("heading", name="Notes").wait_for()
    answer = str(world.locator("tbody tr td:nth-child(3)").all_inner_texts().count(name))
    rec.locator("#rg-answer").click()
    rec.keyboard.type(answer)
    rec.get_by_role("button", name="Send").click()
    rec.locator("#rg-count").filter(has_text="4").wait_for()
    rec.close()
    with editor.expect_response(lambda r: "/tasks/editor/demonstration/pull/" in r.url):
        editor.locator('[data-testid="pull-reference"]').click()
    editor.locator('[data-testid="demonstration-note"]').wait_for()
    _settled(editor)
    return email, password, answer


def test_a_demonstration_recorded_on_one_seed_passes_on_two_others(live_server, page):  # noqa: F811
    base = live_server.url
    page.goto(f"{base}/tasks/new/?replica=testbed")
    _input(page, "title").fill("Count the owner's notes")
    _input(page, "slug").fill("count-owner-notes")
    _input(page, "variant").select_option("small")
    _input(page, "seed").fill(str(SEEDS[0]))
    _add(page, "add:params:picker")
    _input(page, "params[0].name").fill("member")
    _input(page, "params[0].picker").select_option("member")
    _add(page, "add:params:aggregate")
    _input(page, "params[1].name").fill("notes")
    _input(page, "params[1].aggregate.op").select_option('"count"')
    _reshaped(page, lambda: _input(page, "params[1].aggregate.table").select_option("testbed.note"))
    _input(page, "params[1].aggregate.where").fill('{"owner": "{member_id}"}')
    _input(page, "instruction").fill(
        "Sign in with {member_email} (password {member_password}) and count the notes {member_name} owns. "
        "Reply with the number only."
    )
    _input(page, "start_page").fill("/notes")
    _reshaped(page, lambda: _input(page, "verifier.assertions[0].kind").select_option('"answer"'))
    _input(page, "verifier.assertions[0].name").fill("the reply is the count")
    _input(page, "verifier.assertions[0].type").select_option('"number"')
    _input(page, "verifier.assertions[0].expected").fill("{notes}")
    _settled(page)
    email, password, _ = record(page)
    actions = _input(page, "reference_solution").input_value().split("\n")
    # the typed sign-in and answer are the draft's param values: written as placeholders; the elements are named by
    # role and name, which hold on every seed (the recorder found each unique in its page)
    assert actions[:3] == [
        'fill("role=textbox[name=\'Email\']", "{member_email}")',
        'fill("role=textbox[name=\'Password\']", "{member_password}")',
        "click(\"role=button[name='Sign in']\")",
    ]
    assert actions[0].endswith(', "{member_email}")') and actions[1].endswith(', "{member_password}")')
    assert actions[3] == 'send_msg_to_user("{notes}")'
    assert email not in "\n".join(actions) and password not in "\n".join(actions)
    _add(page, "add:negative_examples")
    _input(page, "negative_examples[0].name").fill("signs in and answers without a count")
    _input(page, "negative_examples[0].actions").fill(
        "\n".join([*actions[:3], 'send_msg_to_user("I could not count them")'])
    )
    _settled(page)
    page.locator('[data-testid="problem-count"]', has_text="Valid").wait_for()
    page.get_by_role("button", name="Save version").click()
    task_id = "testbed.count-owner-notes"
    page.wait_for_url(f"{base}/tasks/{task_id}/")
    task = Task.objects.get(task_id=task_id, is_current=True)
    assert task.reference_solution[0].endswith(f'"{email}")')

    page.get_by_test_id("test-run-seeds").fill(", ".join(map(str, SEEDS)))
    page.get_by_test_id("test-run").click()
    page.wait_for_url(f"{base}/tasks/{task_id}/test-runs/*/")
    assert len(play_queued()) == 3 * 3 + 1
    page.get_by_test_id("test-run-verdict").wait_for()
    rows = {
        row.get_attribute("data-label"): row.inner_text() for row in page.locator('[data-testid="check-row"]').all()
    }
    for seed in SEEDS:
        assert "Succeeded" in rows[f"reference · seed {seed}"], (seed, rows)
        assert "Failed" in rows[f"doing nothing · seed {seed}"], seed
        assert "Failed" in rows[f"negative: signs in and answers without a count · seed {seed}"], seed
    assert page.get_by_test_id("test-run-verdict").inner_text().startswith("The verifier behaves")
    # back in the editor, the reference says which seeds it was checked on
    page.goto(f"{base}/tasks/{task_id}/edit/")
    checked = page.get_by_test_id("reference-seeds")
    assert [label.get_attribute("data-seed") for label in checked.locator("[data-seed]").all()] == list(map(str, SEEDS))
    assert checked.inner_text().count("passed") == 3
