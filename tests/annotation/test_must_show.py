"""Issue #15's must-show, in a real Chromium: an annotator records a task with real clicks and typing, the engine's
replay verifies it, a reviewer accepts it, and the export holds it (read back with `datasets`); a recording with
a mistake fails verification and becomes DPO's rejected side against a verified success of the same task and seed."""

import json
import os
from pathlib import Path

import datasets
import pytest
from replicagym.annotation.exports import dataset_export
from replicagym.annotation.models import Item, Recording

from episodes.creation import episode_create
from episodes.driver import episode_run
from episodes.engine.browser import shared_browser
from episodes.models import Episode
from tests.annotation.conftest import PASSWORD, run_queued_replays

# sqlite_only: the annotator's recording in a browser; the queue, the review and the exports are tested on both
# backends without a browser (tests/annotation/test_queue.py, test_export_command.py)
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
TIMEOUT = 30_000
# Regenerate docs/screenshots/annotate-*.png only when asked, so a test run leaves the tree alone.
WRITE_SHOTS = os.environ.get("REPLICAGYM_SCREENSHOTS") == "1"


@pytest.fixture
def browser_context():
    contexts = []

    def make():
        context = shared_browser().new_context(viewport={"width": 1280, "height": 860})
        context.set_default_timeout(TIMEOUT)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


def sign_in(context, live_server, username):
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")
    return page


def shot(page, name):
    if WRITE_SHOTS:
        page.screenshot(path=str(SHOTS / name))


def record(page, base, item, *, wrong_note: bool, thoughts: bool, screenshot: str | None = None) -> Recording:
    """As the annotator: claim the item, open its world in a new tab, do the task by hand in the frame, submit."""
    page.goto(f"{base}/annotate/")
    page.get_by_test_id(f"item-{item.pk}").get_by_role("button", name="Claim").click()
    page.get_by_test_id(f"my-item-{item.pk}").wait_for()
    with page.context.expect_page() as opened:
        page.get_by_test_id(f"my-item-{item.pk}").get_by_role("button", name="Open world and record").click()
    rec = opened.value
    rec.wait_for_load_state()
    assert "/__recording__/" in rec.url and f"seed {item.world_seed}" in rec.content()
    params = item.params
    assert params["title"] in rec.get_by_test_id("instruction").inner_text()
    world = rec.frame_locator("#rg-frame")
    if thoughts:
        rec.locator("#rg-thought").fill("Sign in with the account the instruction gives.")
    world.locator("#id_email").click()
    rec.keyboard.type(params["email"])
    world.locator("#id_password").click()
    rec.keyboard.type(params["password"])
    world.get_by_role("button", name="Sign in").click()
    world.get_by_role("heading", name=f"Note #{params['note']}").wait_for()
    if wrong_note:  # the careless annotator goes to the list and opens the note after the right one
        world.get_by_role("link", name="Back to notes").click()
        world.locator(f"a[href='/notes/{params['other']}']").first.click()
        world.get_by_role("heading", name=f"Note #{params['other']}").wait_for()
    if thoughts:
        rec.locator("#rg-thought").fill("This is the note: tick Done and save.")
    world.locator("#id_done").click()
    world.get_by_role("button", name="Save").click()
    expected = 7 if wrong_note else 5
    rec.locator("#rg-count").filter(has_text=str(expected)).wait_for()
    if screenshot:
        rec.locator("details").first.evaluate("d => d.open = true")
        shot(rec, screenshot)
    rec.get_by_role("button", name="Submit recording").click()
    rec.wait_for_url("**/annotate/recordings/*/")
    rec.close()
    return Recording.objects.get(item=item, status=Recording.Status.REPLAYING)


def test_an_annotator_records_the_replay_verifies_a_reviewer_accepts_and_the_export_holds_it(
    live_server, people, item, browser_context, tmp_path
):
    annie = sign_in(browser_context(), live_server, "annie")
    annie.goto(f"{live_server.url}/annotate/")
    assert annie.get_by_test_id(f"item-{item.pk}").is_visible()
    shot(annie, "annotate-queue.png")
    recording = record(
        annie, live_server.url, item, wrong_note=False, thoughts=True, screenshot="annotate-recording.png"
    )

    # the recorder's steps aim at the engine's bids; the thoughts went with the steps they preceded
    steps = list(recording.steps.order_by("index"))
    assert [s.action.split("(")[0] for s in steps] == ["fill", "fill", "click", "check", "click"]
    assert steps[0].action.endswith(f'"{item.params["email"]}")') and steps[0].thought.startswith("Sign in")
    assert steps[3].thought == "This is the note: tick Done and save."
    assert all(s.action.split('"')[1].isdigit() for s in steps)  # bids, not selectors

    # the worker replays it in a fresh world; the verifier passes it, without divergence
    assert run_queued_replays() == [Episode.Status.SUCCEEDED]
    annie.goto(f"{live_server.url}/annotate/recordings/{recording.pk}/")
    assert annie.get_by_test_id("status").first.inner_text() == "Verified"
    recording.refresh_from_db()
    assert recording.status == Recording.Status.VERIFIED and recording.divergence is None
    assert recording.replay.world_id != recording.world_id
    assert [s.action for s in recording.replay.steps.order_by("index")] == [s.action for s in steps]

    # a reviewer steps through it and accepts
    rita = sign_in(browser_context(), live_server, "rita")
    rita.goto(f"{live_server.url}/annotate/review/")
    rita.get_by_role("link", name=item.task.title).click()
    assert rita.get_by_test_id("step-action").inner_text() == steps[0].action
    rita.get_by_role("link", name="Next →").click()
    rita.get_by_test_id("step-action").filter(has_text=steps[1].action).wait_for()
    rita.get_by_role("link", name="4", exact=True).click()
    rita.get_by_test_id("step-action").filter(has_text=steps[3].action).wait_for()
    rita.wait_for_function(
        "() => { const i = document.querySelector('img.rg-shot'); return i && i.complete && i.naturalWidth > 0; }"
    )
    shot(rita, "annotate-review.png")
    rita.get_by_label("Comment (required to reject)").fill("Clean and minimal.")
    rita.get_by_role("button", name="Accept").click()
    rita.get_by_text(f"Recording {recording.pk} accepted.").wait_for()
    recording.refresh_from_db()
    assert recording.status == Recording.Status.ACCEPTED
    assert Item.objects.get(pk=item.pk).status == Item.Status.ACCEPTED

    # the export holds its steps with their observations and thoughts, and `datasets` reads it
    result = dataset_export(fmt="sft", suite="testbed", sources="annotators", out=tmp_path / "sft")
    rows = datasets.load_dataset("json", data_files=str(result.out / "sft.jsonl"), split="train")
    mine = [r for r in rows if r["episode"] == recording.replay_id]
    assert [r["action"] for r in mine] == [s.action for s in steps]
    assert mine[3]["thought"] == "This is the note: tick Done and save."
    assert mine[3]["observation"]["url"] == f"/notes/{item.params['note']}"
    assert "checkbox 'Done'" in mine[3]["observation"]["axtree"]
    assert all((result.out / r["observation"]["screenshot"]).is_file() for r in mine)
    whole = datasets.load_dataset("json", data_files=str(result.out / "sft_episodes.jsonl"), split="train")
    assert [len(r["steps"]) for r in whole if r["episode"] == recording.replay_id] == [5]
    card = json.loads((result.out / "card.json").read_text())
    assert card["counts"]["steps"] == len(rows) and card["tasks"] == {"testbed.complete-note": 1}
    assert card["by_source"] == {"annotators": 1} and card["platform_version"]


def test_a_recording_with_a_mistake_fails_verification_and_is_dpo_rejected_against_a_success(
    live_server, people, item, browser_context, tmp_path
):
    annie = sign_in(browser_context(), live_server, "annie")
    recording = record(annie, live_server.url, item, wrong_note=True, thoughts=False)
    assert run_queued_replays() == [Episode.Status.FAILED]
    annie.goto(f"{live_server.url}/annotate/recordings/{recording.pk}/")
    assert annie.get_by_test_id("status").first.inner_text() == "Failed verification"
    recording.refresh_from_db()
    assert recording.status == Recording.Status.FAILED
    failed = {a["name"] for a in recording.replay.verdict["assertions"] if not a["passed"]}
    assert "the note is done" in failed

    # a verified success of the same task and seed: the oracle's
    oracle = episode_create(task=item.task, agent="oracle", seed=item.world_seed, status=Episode.Status.RUNNING)
    oracle = episode_run(episode_id=oracle.pk)
    assert oracle.status == Episode.Status.SUCCEEDED

    result = dataset_export(fmt="dpo", suite="testbed", sources="annotators,oracle", out=tmp_path / "dpo")
    rows = datasets.load_dataset("json", data_files=str(result.out / "dpo.jsonl"), split="train")
    assert len(rows) == 1
    row = rows[0]
    mistake = list(recording.steps.order_by("index").values_list("action", flat=True))
    # the first three steps (sign in) agree; at step 3 the oracle ticks Done where the annotator went back to the list
    # the oracle names the box by selector; the row by the bid the page showed it with, as a model would
    done = oracle.steps.get(index=3)
    assert done.action == 'check("#id_done")' and row["chosen"] == f'check("{done.target_bid}")'
    assert f"[{done.target_bid}] checkbox 'Done'" in row["observation"]["axtree"]
    assert row["step"] == 3 and row["rejected"] == mistake[3]
    assert row["rejected_episode"] == recording.replay_id and row["rejected_source"] == "annotators"
    assert row["chosen_episode"] == oracle.pk and row["chosen_source"] == "oracle"
    assert row["world_seed"] == item.world_seed and row["observation"]["url"] == f"/notes/{item.params['note']}"
    assert (result.out / row["observation"]["screenshot"]).is_file()
    card = json.loads((result.out / "card.json").read_text())
    assert card["counts"]["pairs"] == 1 and card["by_source"] == {"annotators": 1, "oracle": 1}
