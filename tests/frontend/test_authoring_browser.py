"""Issue #14's must-show, in a real Chromium: an author creates a task from scratch on every installed replica without
code (a declarative template, a fault, three assertions, a reference solution and a negative example), test-runs it
(a real `manage.py worker` takes the episodes: the reference passes, doing nothing and the negative fail), adds it to
a suite, and finds every one of them in `run_suite`'s output. On the testbed the reference solution is recorded by
demonstration: the author does the task with real clicks and typing in the recording tab and pulls the actions in."""
import io
import json
import os
import re

import pytest
from django.core.management import call_command
from replicagym.annotation.models import Item, Recording
from replicagym.catalogue.models import Suite, Task

from episodes.browser import shared_browser
from replicas.testbed.services import member_password
from replicas.worlds.registry import replicas
from tests.episodes.celery_workers import ROOT
from tests.reports.test_must_show import worker  # noqa: F401 - the fixture: one `manage.py worker` on the test database

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TIMEOUT = 30_000
TEST_RUN_TIMEOUT = 300_000  # four episodes per task on a loaded 2-core machine
SUITE = "authored-e2e"
SHOTS = ROOT / "docs" / "screenshots"
WRITE_SHOTS = os.environ.get("REPLICAGYM_SCREENSHOTS") == "1"

# What an author types for each replica: a record picked from the world, a count or sum over related rows.
RECIPES = {
    "supportdesk": {
        "title": "Count the comments of an open ticket", "record": "ticket", "table": "supportdesk.ticket",
        "where": '{"status": {"in": ["new", "open"]}}', "answer": "comments",
        "aggregate": ("count", "supportdesk.comment", None, '{"ticket": "{ticket}"}'),
        "instruction": "How many comments does ticket #{ticket} have? Reply with the number only.",
        "start_page": "/agent/tickets/{ticket}",
    },
    "shop": {
        "title": "Count the units of an order", "record": "order", "table": "shop.order",
        "where": "{}", "answer": "units",
        "aggregate": ("sum", "shop.orderitem", "quantity", '{"order": "{order}"}'),
        "instruction": "How many units in total were ordered in order {order}? Reply with the number only.",
        "start_page": "/your-orders",
    },
    "board": {
        "title": "Count the comments of an issue", "record": "issue", "table": "board.issue",
        "where": '{"status": {"ne": "Done"}}', "answer": "comments", "field": ("issue_key", "issue.key"),
        "aggregate": ("count", "board.comment", None, '{"issue": "{issue}"}'),
        "instruction": "How many comments does issue {issue_key} have? Reply with the number only.",
        "start_page": "/issues",
    },
    "testbed": {
        "title": "Count a member's notes", "record": "member", "table": "testbed.member",
        "where": "{}", "answer": "notes", "field": ("member_name", "member.name"),
        "aggregate": ("count", "testbed.note", None, '{"owner": "{member}"}'),
        "instruction": "How many notes does {member_name} own? Reply with the number only.",
        "start_page": "/notes",
    },
}


def shot(page, name):
    if WRITE_SHOTS:
        page.screenshot(path=str(SHOTS / name), full_page=True)


@pytest.fixture
def page(live_server, author_user):
    context = shared_browser().new_context(viewport={"width": 1360, "height": 1000})
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("author")
    page.get_by_label("Password").fill("pw-123456")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")
    yield page
    context.close()


def _input(page, path):
    """The editor's input at a JSON path, unfolding "More fields" when it is folded away."""
    loc = page.locator(f'[name$=":{path}"]').first
    loc.wait_for(state="attached")
    loc.evaluate("input => { const more = input.closest('details'); if (more) more.open = true; }")
    loc.wait_for(state="visible")
    return loc


def _settled(page):
    page.wait_for_load_state("networkidle")


def _reshaped(page, action):
    """Do what re-renders the form (add an item, change a kind, a table, the variant) and wait for the new form."""
    with page.expect_response(lambda r: "/tasks/editor/form/" in r.url):
        action()
    page.wait_for_timeout(100)  # htmx swaps and settles the new form after the response
    _settled(page)


def _add(page, op):
    _reshaped(page, lambda: page.click(f'button[value="{op}"]'))


def author_task(page, base, replica, recipe) -> str:
    """Fill the editor for `replica` as an author would, with no code; returns the slug."""
    page.goto(f"{base}/tasks/new/?replica={replica}")
    slug = f"{replica}-{recipe['answer']}-count"
    _input(page, "title").fill(recipe["title"])
    _input(page, "slug").fill(slug)
    _input(page, "variant").select_option("small")
    _input(page, "seed").fill("7")
    _add(page, "add:params:pick")
    _input(page, "params[0].name").fill(recipe["record"])
    _reshaped(page, lambda: _input(page, "params[0].pick.table").select_option(recipe["table"]))
    _input(page, "params[0].pick.where").fill(recipe["where"])
    _input(page, "params[0].pick.choose").select_option('"seeded"')
    index = 1
    if "field" in recipe:
        _add(page, "add:params:field")
        _input(page, "params[1].name").fill(recipe["field"][0])
        _input(page, "params[1].field").fill(recipe["field"][1])
        index = 2
    op, table, field, where = recipe["aggregate"]
    _add(page, "add:params:aggregate")
    _input(page, f"params[{index}].name").fill(recipe["answer"])
    _input(page, f"params[{index}].aggregate.op").select_option(json.dumps(op))
    _reshaped(page, lambda: _input(page, f"params[{index}].aggregate.table").select_option(table))
    if field:
        _input(page, f"params[{index}].aggregate.field").fill(field)
    _input(page, f"params[{index}].aggregate.where").fill(where)
    # the instruction is typed with a placeholder inserted by clicking the param's name
    instruction = _input(page, "instruction")
    head, tail = recipe["instruction"].split("{" + recipe["record"] + "}", 1) if "{" + recipe["record"] + "}" in recipe["instruction"] else (recipe["instruction"], "")
    instruction.fill(head)
    _settled(page)
    if tail:
        page.locator(f'#param-chips button[data-insert="{{{recipe["record"]}}}"]').click()
        instruction.press("End")
        instruction.type(tail)
    _input(page, "start_page").fill(recipe["start_page"])
    page.select_option("#fault-to-add", "slow_response")
    _add(page, "add:faults")
    _input(page, "faults[0].params.delay_ms").fill("200")
    # three assertions: the answer, nothing changed, and a short trajectory
    _reshaped(page, lambda: _input(page, "verifier.assertions[0].kind").select_option('"answer"'))
    _input(page, "verifier.assertions[0].name").fill("the reply is the right number")
    _input(page, "verifier.assertions[0].type").select_option('"number"')
    _input(page, "verifier.assertions[0].expected").fill("{" + recipe["answer"] + "}")
    _add(page, "add:verifier.assertions:diff")
    _input(page, "verifier.assertions[1].name").fill("nothing changed")
    _input(page, "verifier.assertions[1].only_allowed").select_option("true")
    _add(page, "add:verifier.assertions:trajectory")
    _input(page, "verifier.assertions[2].name").fill("a short answer")
    _input(page, "verifier.assertions[2].max_steps").fill("5")
    if replica == "testbed":
        record_reference(page)
    else:
        _input(page, "reference_solution").fill('send_msg_to_user("{' + recipe["answer"] + '}")')
    _add(page, "add:negative_examples")
    _input(page, "negative_examples[0].name").fill("answers without a number")
    _input(page, "negative_examples[0].actions").fill('send_msg_to_user("I could not find it")')
    page.fill("#in-new-suite", SUITE)
    _settled(page)
    page.locator('[data-testid="problem-count"]', has_text="Valid").wait_for()
    page.locator('[data-testid="instruction-preview"]').wait_for()
    return slug


def record_reference(page):
    """The testbed's reference by demonstration: in the recording tab the author signs in by typing, counts the
    member's notes on the list, answers in the bar; then pulls the recorded actions into the reference solution."""
    page.locator('[data-testid="record-demonstration"]').click()
    with page.context.expect_page() as opened:
        page.locator('[data-testid="demonstration-link"]').click()
    rec = opened.value
    rec.wait_for_load_state()
    member = re.search(r"How many notes does (.+) own\?", rec.get_by_test_id("instruction").inner_text()).group(1)
    world = rec.frame_locator("#rg-frame")
    world.locator("#id_email").click()
    rec.keyboard.type("member1@testbed.example")
    world.locator("#id_password").click()
    rec.keyboard.type(member_password(seed=7, public_id=100))  # member1 of the draft's seed
    world.get_by_role("button", name="Sign in").click()
    world.get_by_role("heading", name="Notes").wait_for()
    owners = world.locator("tbody tr td:nth-child(3)").all_inner_texts()
    rec.locator("#rg-answer").click()
    rec.keyboard.type(str(owners.count(member)))
    rec.get_by_role("button", name="Send").click()
    rec.locator("#rg-count").filter(has_text="4").wait_for()
    rec.close()
    with page.expect_response(lambda r: "/tasks/editor/demonstration/pull/" in r.url):
        page.locator('[data-testid="pull-reference"]').click()
    page.locator('[data-testid="demonstration-note"]').wait_for()
    _settled(page)
    actions = _input(page, "reference_solution").input_value().split("\n")
    assert [a.split("(")[0] for a in actions] == ["fill", "fill", "click", "send_msg_to_user"]
    assert actions[-1] == f'send_msg_to_user("{owners.count(member)}")' and actions[0].split('"')[1].isdigit()
    assert Recording.objects.filter(item=None).count() == 1 and not Item.objects.exists()


def test_an_author_creates_test_runs_and_suites_a_task_on_every_replica(live_server, page, worker, author_user):  # noqa: F811
    base = live_server.url
    made = []
    for replica in sorted(replicas()):
        recipe = RECIPES[replica]  # a new replica needs its recipe here: this test covers every installed one
        slug = author_task(page, base, replica, recipe)
        if replica == "supportdesk":
            shot(page, "platform-editor.png")
        page.get_by_role("button", name="Save version").click()
        page.wait_for_url(f"{base}/tasks/{replica}.{slug}/")
        task = Task.objects.get(task_id=f"{replica}.{slug}", is_current=True)
        assert task.pack == "authored" and isinstance(task.params[recipe["answer"]], int)
        assert f"{{{recipe['record']}}}" not in page.locator('[data-testid="instruction"]').inner_text()
        assert page.locator('[data-testid="assertion"]').count() == 3
        page.locator('[data-testid="test-run"]').click()
        page.locator('[data-testid="test-run-verdict"]').wait_for(timeout=TEST_RUN_TIMEOUT)
        rows = {row.get_attribute("data-label"): row for row in page.locator('[data-testid="check-row"]').all()}
        assert set(rows) == {"reference", "doing nothing", "negative: answers without a number", "random agent"}
        assert "Succeeded" in rows["reference"].inner_text()
        assert "Failed" in rows["doing nothing"].inner_text()
        assert "Failed" in rows["negative: answers without a number"].inner_text()
        assert page.locator('[data-testid="test-run-verdict"]').inner_text().startswith("The verifier behaves")
        if replica == "supportdesk":
            shot(page, "platform-test-run.png")
        made.append(task.task_id)

    suite = Suite.objects.get(name=SUITE, is_current=True)
    assert sorted(suite.tasks.values_list("task_id", flat=True)) == sorted(made)
    out = io.StringIO()
    call_command("run_suite", SUITE, "--agent", "oracle", "--no-sync", stdout=out)
    report = json.loads(out.getvalue())
    text = json.dumps(report)
    for task_id in made:
        assert task_id in text
    assert report["totals"]["attempts"] == len(made) and report["totals"]["passes"] == len(made)
    page.goto(f"{base}/tasks/?suite={SUITE}")
    assert page.locator('[data-testid="task-row"]').count() == len(made)
