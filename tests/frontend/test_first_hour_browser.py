"""Issue #31's must-show, in a real Chromium from an empty database: the first admin signs in with the password the
first run printed, adds an author and an annotator on the People page; the author writes a bulk task in the editor
with no code (a list param and for_each, a date computed on the world clock: the start of the quarter, and a when/then
conditional inside the loop), test-runs it on three seeds (the episodes played in a real Chromium as the worker plays
them: the reference passes on each, doing nothing and the negative example fail on each) and finds it in the
catalogue."""

import json
import os

import pytest
from django.contrib.auth import get_user_model
from replicagym.accounts.people import first_admin_create
from replicagym.accounts.roles import Role, user_roles

from catalogue.models import Task
from episodes.engine.browser import shared_browser
from episodes.queue.claims import episode_claim_next
from episodes.queue.workers import episode_execute
from episodes.runs import DEFAULT_QUEUE
from tests.frontend.test_authoring_browser import _add, _input, _reshaped, _settled

# sqlite_only: the admin's and the author's path through the pages in a browser; the People page, the editor's saving,
# the test runs and the catalogue are tested on both backends without a browser (tests/frontend/test_pages.py,
# test_editor_*.py, tests/catalogue)
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]
TIMEOUT = 30_000
TEST_RUN_TIMEOUT = 30_000  # the episodes are played by then: the page's next poll shows the verdict
SEEDS = (7, 8, 10)  # on each, a member's note and an owner's note are open this quarter: both branches are asked
SHOTS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "screenshots")
WRITE_SHOTS = os.environ.get("REPLICAGYM_SCREENSHOTS") == "1"

LOOP = {
    "name": "note {n} is done unless the team owner owns it",
    "kind": "conditional",
    "when": {
        "name": "note {n} belonged to a member",
        "kind": "state",
        "table": "testbed.note",
        "at": "initial",
        "where": {"public_id": "{n}", "owner__role": "member"},
        "expect": {"count": 1},
    },
    "then": [
        {
            "name": "note {n} is done",
            "kind": "state",
            "table": "testbed.note",
            "where": {"public_id": "{n}"},
            "expect": {"count": 1, "fields": {"done": True}},
        }
    ],
    "else": [
        {
            "name": "note {n} is still open",
            "kind": "state",
            "table": "testbed.note",
            "where": {"public_id": "{n}"},
            "expect": {"count": 1, "fields": {"done": False}},
        }
    ],
}
SIGN_IN = [
    'fill("#id_email", "{member_email}")',
    'fill("#id_password", "{member_password}")',
    "click(\"role=button[name='Sign in']\")",
]


def _each(source: str) -> list[str]:
    return [
        f'for_each n in {{{source}}}: goto("/notes/{{n}}")',
        f'for_each n in {{{source}}}: check("#id_done")',
        f"for_each n in {{{source}}}: click(\"role=button[name='Save']\")",
    ]


def play_queued() -> list[str]:
    """What `manage.py worker` does for each queued episode, in the test's process: real episodes in a real Chromium.
    (A worker process on this loaded 2-core machine kept exiting: its watchdog takes a browser call over 15 s with no
    Chromium yet under it, as when the replica server and the browser start, for a wedged one.)"""
    statuses = []
    while (pk := episode_claim_next(queue=DEFAULT_QUEUE, worker="first-hour:1")) is not None:
        statuses.append(episode_execute(episode_id=pk))
    return statuses


def shot(page, name, part=None):
    """Write a docs screenshot (when asked): the page, or one box of it."""
    if not WRITE_SHOTS:
        return
    if part is None:
        page.screenshot(path=os.path.join(SHOTS, name), full_page=True)
        return
    part.screenshot(path=os.path.join(SHOTS, name))


def sign_in(page, base, username, password):
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")


def add_person(page, username, role) -> str:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Role").select_option(role)
    page.get_by_role("button", name="Add person").click()
    page.get_by_test_id("person-made").wait_for()
    return page.get_by_test_id("person-password").inner_text()


def author_bulk_task(page, base) -> str:
    page.goto(f"{base}/tasks/new/?replica=testbed")
    slug = "close-members-quarter-notes"
    _input(page, "title").fill("Close the members' notes of this quarter")
    _input(page, "slug").fill(slug)
    _input(page, "variant").select_option("small")
    _input(page, "seed").fill(str(SEEDS[0]))
    _add(page, "add:params:picker")
    _input(page, "params[0].name").fill("member")
    _input(page, "params[0].picker").select_option("member")
    _add(page, "add:params:date")
    _input(page, "params[1].name").fill("quarter_start")
    _input(page, "params[1].date.on").select_option('"start_of_quarter"')
    _input(page, "params[1].date.format").fill("date")
    open_since = '{"done": false, "updated_at": {"gte": "{quarter_start}"}'
    for index, (name, where) in enumerate(
        [("notes", open_since + "}"), ("member_notes", open_since + ', "owner__role": "member"}')], start=2
    ):
        _add(page, "add:params:list")
        _input(page, f"params[{index}].name").fill(name)
        _reshaped(page, lambda index=index: _input(page, f"params[{index}].list.table").select_option("testbed.note"))
        _input(page, f"params[{index}].list.where").fill(where)
    _input(page, "instruction").fill(
        "Sign in with {member_email} (password {member_password}). Notes {notes} are open and were updated since the "
        "quarter began on {quarter_start}. Mark done each one a member owns; leave the team owner's own notes open. "
        "Change nothing else."
    )
    _input(page, "start_page").fill("/notes")
    _reshaped(page, lambda: _input(page, "verifier.assertions[0].kind").select_option('"for_each"'))
    _input(page, "verifier.assertions[0].name").fill("each open note of this quarter is as its owner calls for")
    _input(page, "verifier.assertions[0].in").fill("{notes}")
    _input(page, "verifier.assertions[0].as").fill("n")
    _input(page, "verifier.assertions[0].assert").fill(json.dumps([LOOP]))
    _add(page, "add:verifier.assertions:diff")
    _input(page, "verifier.assertions[1].name").fill("nothing else changed")
    _input(page, "verifier.assertions[1].only_allowed").select_option("true")
    _add(page, "add:verifier.allowed_changes")
    _reshaped(page, lambda: _input(page, "verifier.allowed_changes[0].table").select_option("testbed.note"))
    _input(page, "verifier.allowed_changes[0].ops")  # unfolds "More fields", where the op checkboxes are
    page.locator('[name="m:verifier.allowed_changes[0].ops"][value=\'"changed"\']').check()
    _input(page, "verifier.allowed_changes[0].fields").fill("done\nupdated_at")
    _input(page, "verifier.allowed_changes[0].where").fill('{"public_id": {"in": "{member_notes}"}}')
    _input(page, "reference_solution").fill("\n".join(SIGN_IN + _each("member_notes")))
    _add(page, "add:negative_examples")
    _input(page, "negative_examples[0].name").fill("marks every open note done, the owner's too")
    _input(page, "negative_examples[0].actions").fill("\n".join(SIGN_IN + _each("notes")))
    _settled(page)
    page.locator('[data-testid="problem-count"]', has_text="Valid").wait_for()
    preview = page.locator('[data-testid="instruction-preview"]')
    preview.wait_for()
    assert "{notes}" not in preview.inner_text()
    return slug


def test_a_new_admin_adds_people_and_an_author_test_runs_a_bulk_task_on_three_seeds(live_server):
    base = live_server.url
    assert not get_user_model().objects.exists()
    admin, admin_password = first_admin_create()  # what `manage.py first_run` (bin/start) makes and prints
    context = shared_browser().new_context(viewport={"width": 1360, "height": 1000})
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    try:
        page.goto(f"{base}/")
        page.wait_for_url(f"{base}/accounts/login/?next=/")
        shot(page, "platform-first-run-signin.png")
        sign_in(page, base, admin.username, admin_password)
        page.get_by_role("link", name="People").click()
        author_password = add_person(page, "ada", "author")
        annotator_password = add_person(page, "ann", "annotator")
        assert page.locator('[data-testid="person-row"]').count() == 3
        users = {u.username: u for u in get_user_model().objects.all()}
        assert user_roles(users["ada"]) == {Role.AUTHOR} and users["ada"].check_password(author_password)
        assert user_roles(users["ann"]) == {Role.ANNOTATOR} and users["ann"].check_password(annotator_password)
        page.get_by_role("button", name="Sign out").click()

        sign_in(page, base, "ada", author_password)
        assert page.get_by_role("link", name="People").count() == 0
        slug = author_bulk_task(page, base)
        page.get_by_role("button", name="Save version").click()
        task_id = f"testbed.{slug}"
        page.wait_for_url(f"{base}/tasks/{task_id}/")
        task = Task.objects.get(task_id=task_id, is_current=True)
        assert task.params["notes"] and set(task.params["member_notes"]) < set(task.params["notes"])
        # the loop is played once per member's note of the seed's world, in order
        assert task.reference_solution[3:] == [
            action
            for n in task.params["member_notes"]
            for action in (f'goto("/notes/{n}")', 'check("#id_done")', "click(\"role=button[name='Save']\")")
        ]

        page.get_by_test_id("test-run-seeds").fill(", ".join(map(str, SEEDS)))
        page.get_by_test_id("test-run").click()
        page.wait_for_url(f"{base}/tasks/{task_id}/test-runs/*/")
        assert (
            len(play_queued()) == 3 * 3 + 1
        )  # the reference, doing nothing and the negative per seed; the random agent
        page.get_by_test_id("test-run-verdict").wait_for(timeout=TEST_RUN_TIMEOUT)
        rows = {row.get_attribute("data-label"): row for row in page.locator('[data-testid="check-row"]').all()}
        negative = "negative: marks every open note done, the owner's too"
        expected = {f"{label} · seed {seed}" for seed in SEEDS for label in ("reference", "doing nothing", negative)}
        assert set(rows) == expected | {"random agent"}
        for seed in SEEDS:
            assert "Succeeded" in rows[f"reference · seed {seed}"].inner_text(), seed
            assert "Failed" in rows[f"doing nothing · seed {seed}"].inner_text(), seed
            assert "Failed" in rows[f"{negative} · seed {seed}"].inner_text(), seed
        assert page.get_by_test_id("test-run-verdict").inner_text().startswith("The verifier behaves")

        page.get_by_role("link", name="Tasks").first.click()
        row = page.locator('[data-testid="task-row"]', has_text="Close the members' notes of this quarter")
        row.wait_for()
        assert row.count() == 1

        # the saved task opens in the editor with each new construct as it was written
        page.goto(f"{base}/tasks/{task_id}/edit/")
        assert json.loads(_input(page, "verifier.assertions[0].assert").input_value()) == [LOOP]
        assert _input(page, "params[1].date.on").input_value() == '"start_of_quarter"'
        assert _input(page, "reference_solution").input_value().split("\n")[3:] == _each("member_notes")
        shot(page, "platform-editor-list-and-date-params.png", page.locator(".Box.mb-4", has_text="Template params"))
        shot(page, "platform-editor-for-each-conditional.png", page.locator('[data-item="verifier.assertions[0]"]'))
        shot(
            page,
            "platform-editor-for-each-reference.png",
            page.locator(".Box.mb-4", has_text="Reference solution and negative examples"),
        )
    finally:
        context.close()
