"""Issue #15's second must-show on a real replica, in a real Chromium: an annotator refunds the wrong payment of a
support-desk ticket by hand; the replay fails verification, and the DPO export offers the mistaken step as the
rejected side against a verified success (the oracle's) of the same task and seed. The annotation flow's own
tests, on the testbed, are in tests/annotation/; this one is about the desk's refund task."""

import json
from urllib.parse import urlsplit

import datasets
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from replicagym.annotation.exports import bid_action, dataset_export
from replicagym.annotation.models import Recording
from replicagym.annotation.services import items_create

from episodes.creation import episode_create
from episodes.driver import episode_run
from episodes.engine.browser import shared_browser
from episodes.models import Episode
from tests.annotation.conftest import people, run_queued_replays  # noqa: F401 - people: the fixture
from tests.annotation.test_must_show import TIMEOUT, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TASK = "supportdesk.refund-duplicate-charge"
SUITE = "supportdesk-refunds"


@pytest.fixture
def refund_item(people):  # noqa: F811 - the fixture imported above
    return items_create(task=TASK)[0]


@pytest.fixture
def context():
    ctx = shared_browser().new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(TIMEOUT)
    yield ctx
    ctx.close()


def recorded(rec) -> list[str]:
    return rec.locator("#rg-steps > li code").all_text_contents()


def wait_for_steps(rec, n: int):
    try:
        rec.locator("#rg-count").filter(has_text=str(n)).wait_for()
    except PlaywrightTimeout:
        raise AssertionError(f"the bar should show {n} steps; it shows {recorded(rec)}") from None


def billing_loaded(world):
    """Wait for the billing app's orders; if it shows its error instead, fail with what it says."""
    app = world.locator("[data-billing]")
    try:
        app.and_(world.locator("[data-billing-state=loaded], [data-billing-state=error]")).wait_for()
    except PlaywrightTimeout:
        raise AssertionError(
            f"the orders did not load; the billing app is {app.get_attribute('data-billing-state')!r}"
        ) from None
    if app.get_attribute("data-billing-state") == "error":
        raise AssertionError(f"the billing app failed to load the orders: {app.inner_text()!r}")


def oracle_actions(episode) -> list[str]:
    """The oracle's actions as datasets write them: each element as the bid the engine read for it."""
    return [bid_action(a, bid) for a, bid in episode.steps.order_by("index").values_list("action", "target_bid")]


def record_wrong_refund(page, base, item) -> Recording:
    """As the annotator: claim the item, open its world, sign in to the desk, refund the ORIGINAL payment, solve."""
    page.goto(f"{base}/annotate/")
    page.get_by_test_id(f"item-{item.pk}").get_by_role("button", name="Claim").click()
    page.get_by_test_id(f"my-item-{item.pk}").wait_for()
    with page.context.expect_page() as opened:
        page.get_by_test_id(f"my-item-{item.pk}").get_by_role("button", name="Open world and record").click()
    rec = opened.value
    rec.wait_for_load_state()
    assert "/__recording__/" in rec.url
    p = item.params
    assert f"Ticket #{p['ticket']}" in rec.get_by_test_id("instruction").inner_text()
    world = rec.frame_locator("#rg-frame")
    world.locator("#id_email").click()
    rec.keyboard.type(p["agent_email"])
    world.locator("#id_password").click()
    rec.keyboard.type(p["agent_password"])
    world.get_by_role("button", name="Sign in").click()
    # the ticket page, after the sign-in: a person clicks once it has loaded (its script wires the billing app)
    frame = rec.locator("#rg-frame").element_handle().content_frame()
    # by its path: the sign-in page's own URL holds the ticket's too (?next=/agent/tickets/<n>), and a click made on
    # the ticket page before its scripts run does nothing
    frame.wait_for_url(lambda url: urlsplit(url).path == f"/agent/tickets/{p['ticket']}")
    frame.wait_for_load_state("load")
    world.get_by_role("button", name="Load orders").click()
    billing_loaded(world)
    # the careless annotator refunds the first payment of the order: the original, not the duplicate
    world.get_by_role("button", name=f"Refund payment {p['original']}").click()
    reason = world.locator(f"#refund-{p['original']}-reason")
    reason.wait_for(state="visible")  # the refund form opens under the button: a person waits for it too
    reason.focus()
    rec.keyboard.press("ArrowDown")  # "Select a reason…" -> "Duplicate charge", from the keyboard like a person
    expect(reason).not_to_have_value("")
    world.get_by_role("button", name="Issue refund").click()
    world.get_by_text(f"of {p['amount_display']} issued.").wait_for()
    world.get_by_label("More submit options").click()
    world.get_by_role("menuitem", name="Submit as Solved").click()
    wait_for_steps(rec, 9)
    rec.get_by_role("button", name="Submit recording").click()
    rec.wait_for_url("**/annotate/recordings/*/")
    rec.close()
    return Recording.objects.get(item=item, status=Recording.Status.REPLAYING)


def test_a_refund_on_the_wrong_payment_fails_verification_and_is_dpo_rejected_against_the_oracle(
    live_server,
    people,  # noqa: F811 - the fixture imported above
    refund_item,
    context,
    tmp_path,
):
    item = refund_item
    p = item.params
    assert p["original"] != p["payment"]
    annie = sign_in(context, live_server, "annie")
    recording = record_wrong_refund(annie, live_server.url, item)
    mistake = list(recording.steps.order_by("index").values_list("action", flat=True))
    assert [a.split("(")[0] for a in mistake] == [
        "fill",
        "fill",
        "click",
        "click",
        "click",
        "select_option",
        "click",
        "click",
        "click",
    ]
    assert mistake[5].endswith('"Duplicate charge")')

    # the worker replays it in a fresh world of the same task and seed: it plays through, and the verifier fails it
    assert run_queued_replays() == [Episode.Status.FAILED]
    annie.goto(f"{live_server.url}/annotate/recordings/{recording.pk}/")
    assert annie.get_by_test_id("status").first.inner_text() == "Failed verification"
    recording.refresh_from_db()
    assert recording.status == Recording.Status.FAILED and recording.divergence is None
    replay = recording.replay
    assert replay.world_seed == item.world_seed and replay.world_id != recording.world_id
    assert [s.action for s in replay.steps.order_by("index")] == mistake
    assert not any(s.error for s in replay.steps.all())
    failed = {a["name"] for a in replay.verdict["assertions"] if not a["passed"]}
    assert {
        "the original payment is not refunded",
        "the duplicate payment is refunded in full as a duplicate charge",
    } <= failed

    # a verified success of the same task and seed: the oracle's
    oracle = episode_create(task=item.task, agent="oracle", seed=item.world_seed, status=Episode.Status.RUNNING)
    oracle = episode_run(episode_id=oracle.pk)
    assert oracle.status == Episode.Status.SUCCEEDED

    result = dataset_export(fmt="dpo", suite=SUITE, sources="annotators,oracle", out=tmp_path / "dpo")
    rows = datasets.load_dataset("json", data_files=str(result.out / "dpo.jsonl"), split="train")
    assert len(rows) == 1
    row = rows[0]
    # sign-in and "Load orders" agree (bids against selectors, same pages); then the annotator opened the refund of
    # the original payment where the oracle opened the duplicate's
    assert row["step"] == 4 and row["rejected"] == mistake[4]
    chosen = oracle.steps.get(index=4)
    assert chosen.action == f"click(\"role=button[name='Refund payment {p['payment']}']\")"
    assert row["chosen"] == f'click("{chosen.target_bid}")'
    assert row["history"] == oracle_actions(oracle)[:4]
    assert row["rejected_episode"] == replay.pk and row["rejected_source"] == "annotators"
    assert row["chosen_episode"] == oracle.pk and row["chosen_source"] == "oracle"
    assert row["task_id"] == TASK and row["world_seed"] == item.world_seed
    assert row["observation"]["url"] == f"/agent/tickets/{p['ticket']}"
    axtree = row["observation"]["axtree"]
    bid = mistake[4].split('"')[1]
    assert f"Refund payment {p['payment']}" in axtree and f"[{bid}] button 'Refund payment {p['original']}'" in axtree
    assert (result.out / row["observation"]["screenshot"]).is_file()
    card = json.loads((result.out / "card.json").read_text())
    assert card["counts"]["pairs"] == 1 and card["tasks"] == {TASK: 2}
    assert card["by_source"] == {"annotators": 1, "oracle": 1}
