"""Issue #14's must-show, in a real Chromium: an author creates a task from scratch on every installed replica without
code (a declarative template, a fault, three assertions, a reference solution and a negative example), test-runs it
(a real `manage.py worker` takes the episodes: the reference passes, doing nothing and the negative fail), adds it to
a suite, and finds it in `run_suite`'s output (a test per replica). On the testbed the reference solution is recorded by
demonstration: the author does the task with real clicks and typing in the recording tab and pulls the actions in.
Each replica's recipe (what the author types) lives in its own folder: replicas/<name>/tests/authoring_recipe.py."""

import importlib
import importlib.util
import io
import json
import os

import pytest
from django.core.management import call_command
from replicagym.annotation.models import ROBUST_SELECTOR, Item, Recording

from catalogue.models import Suite, Task
from episodes.engine.browser import shared_browser
from replicas.worlds.registry import replicas
from tests.episodes.celery_workers import ROOT
from tests.reports.test_must_show import worker  # noqa: F401 - the fixture: one `manage.py worker` on the test database

# sqlite_only: the author's path through the pages in a browser; the editor's saving, the test runs and the worker's
# claims are tested on both backends without a browser (tests/frontend, tests/catalogue, tests/reliability)
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]
TIMEOUT = 30_000
TEST_RUN_TIMEOUT = 300_000  # four episodes per task on a loaded 2-core machine
SUITE = "authored-e2e-{replica}"  # one suite per replica: each replica's run is a test of its own
SHOTS = ROOT / "docs" / "screenshots"
WRITE_SHOTS = os.environ.get("REPLICAGYM_SCREENSHOTS") == "1"

SEED = 7


def authoring_recipes() -> dict[str, dict]:
    """What an author types for each installed replica (a record picked from the world, a count or sum over related
    rows), from the replica's own folder: `RECIPE` in replicas/<name>/tests/authoring_recipe.py. A new replica folder
    brings its recipe; the test covers every installed replica and edits nothing here."""
    found = {}
    for name, config in sorted(replicas().items()):
        module = f"{config.name}.tests.authoring_recipe"
        if importlib.util.find_spec(module) is None:
            raise AssertionError(
                f"replica {name!r} has no {module.replace('.', '/')}.py with the RECIPE an author "
                "types in the task editor: every replica brings its own"
            )
        found[name] = importlib.import_module(module).RECIPE
    return found


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
    _input(page, "seed").fill(str(SEED))
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
    head, tail = (
        recipe["instruction"].split("{" + recipe["record"] + "}", 1)
        if "{" + recipe["record"] + "}" in recipe["instruction"]
        else (recipe["instruction"], "")
    )
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
    if "demonstration" in recipe:
        record_reference(page, recipe["demonstration"], recipe["answer"])
    else:
        _input(page, "reference_solution").fill('send_msg_to_user("{' + recipe["answer"] + '}")')
    _add(page, "add:negative_examples")
    _input(page, "negative_examples[0].name").fill("answers without a number")
    _input(page, "negative_examples[0].actions").fill('send_msg_to_user("I could not find it")')
    page.fill("#in-new-suite", SUITE.format(replica=replica))
    _settled(page)
    page.locator('[data-testid="problem-count"]', has_text="Valid").wait_for()
    page.locator('[data-testid="instruction-preview"]').wait_for()
    return slug


def record_reference(page, demonstration, answer_param: str):
    """The reference by demonstration: in the recording tab the author does the task as the replica's recipe says
    (on the testbed: signs in by typing, counts the member's notes on the list), answers in the bar; then pulls the
    recorded actions into the reference solution, the typed answer written as its param so it plays on any world."""
    demonstrations = Recording.objects.filter(item=None).count()
    page.locator('[data-testid="record-demonstration"]').click()
    with page.context.expect_page() as opened:
        page.locator('[data-testid="demonstration-link"]').click()
    rec = opened.value
    rec.wait_for_load_state()
    answer = demonstration["do"](rec, rec.frame_locator("#rg-frame"), seed=SEED)
    rec.locator("#rg-answer").click()
    rec.keyboard.type(answer)
    rec.get_by_role("button", name="Send").click()
    kinds = [*demonstration["actions"], "send_msg_to_user"]
    rec.locator("#rg-count").filter(has_text=str(len(kinds))).wait_for()
    rec.close()
    with page.expect_response(lambda r: "/tasks/editor/demonstration/pull/" in r.url):
        page.locator('[data-testid="pull-reference"]').click()
    page.locator('[data-testid="demonstration-note"]').wait_for()
    _settled(page)
    actions = _input(page, "reference_solution").input_value().split("\n")
    assert [a.split("(")[0] for a in actions] == kinds
    assert actions[-1] == f'send_msg_to_user("{{{answer_param}}}")'
    # the first element by the robust selector the recorder found for it (annotation RecordedStep.selector), or its bid
    first = actions[0].split('"')[1]
    assert ROBUST_SELECTOR.fullmatch(first) or first.isdigit(), actions[0]
    assert answer.isdigit()  # what was typed in the bar: the count, which the pull wrote as its placeholder
    assert Recording.objects.filter(item=None).count() == demonstrations + 1 and not Item.objects.exists()


def test_one_reference_at_least_is_recorded_by_demonstration():
    assert any("demonstration" in recipe for recipe in authoring_recipes().values())


# one test per replica, so the replicas' authoring runs spread over the xdist workers
@pytest.mark.parametrize("replica", sorted(replicas()))
def test_an_author_creates_test_runs_and_suites_a_task(live_server, page, worker, author_user, replica):  # noqa: F811
    base = live_server.url
    recipe = authoring_recipes()[replica]
    shots = recipe.get("screenshots", {})
    slug = author_task(page, base, replica, recipe)
    if "editor" in shots:
        shot(page, shots["editor"])
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
    if "test_run" in shots:
        shot(page, shots["test_run"])

    suite_name = SUITE.format(replica=replica)
    suite = Suite.objects.get(name=suite_name, is_current=True)
    assert list(suite.tasks.values_list("task_id", flat=True)) == [task.task_id]
    out = io.StringIO()
    # not --fixed: the reference recorded by demonstration types its answer as a placeholder, so it plays on
    # whatever world and picks the run's variation draws
    call_command("run_suite", suite_name, "--agent", "oracle", "--no-sync", stdout=out)
    report = json.loads(out.getvalue())
    assert task.task_id in json.dumps(report)
    assert report["totals"]["attempts"] == 1 and report["totals"]["passes"] == 1
    page.goto(f"{base}/tasks/?suite={suite_name}")
    assert page.locator('[data-testid="task-row"]').count() == 1
