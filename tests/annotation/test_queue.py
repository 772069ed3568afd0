"""The queue and the review, without a browser: who sees what, claims, skips, assignment, review rules, figures."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from replicagym.annotation.demonstrations import (
    demonstration_actions,
    demonstration_of,
    demonstration_start,
    demonstration_url,
)
from replicagym.annotation.exports import dataset_export
from replicagym.annotation.models import DatasetExport, Item, Recording, Skip
from replicagym.annotation.selectors import annotator_stats, queue_for, review_list
from replicagym.annotation.services import (
    AnnotationError,
    divergence_find,
    item_assign,
    item_claim,
    item_skip,
    items_create,
    recording_review,
    recording_start,
    recording_step_add,
    recording_submit,
)

from tests.annotation.conftest import PASSWORD, TASK
from tests.waiting import wait_until


def test_items_are_made_per_seed_with_their_worlds_answer_key_and_bad_input_makes_none(people):
    items = items_create(task=TASK, seeds=[7, 8])
    assert [i.world_seed for i in items] == [7, 8] and items[0].params != items[1].params
    for bad in ([-1], [7, 7], ["7"], [True]):
        with pytest.raises(AnnotationError):
            items_create(task=TASK, seeds=bad)
    with pytest.raises(AnnotationError, match="no task"):
        items_create(task="testbed.no-such-task")
    assert Item.objects.count() == 2


def test_one_claim_wins_and_an_assigned_item_is_only_its_annotators(people, item):
    annie, bob = people["annie"], people["bob"]
    item_claim(item_id=item.pk, user=annie)
    with pytest.raises(AnnotationError, match="already claimed"):
        item_claim(item_id=item.pk, user=bob)
    mine = items_create(task=TASK, seeds=[9], assignee=bob)[0]
    assert mine not in queue_for(annie)["open"] and mine in queue_for(bob)["open"]
    with pytest.raises(AnnotationError, match="assigned to someone else"):
        item_claim(item_id=mine.pk, user=annie)
    item_assign(item_id=mine.pk, assignee=None)  # opened to all
    assert mine in queue_for(annie)["open"]
    with pytest.raises(AnnotationError, match="only an open item"):
        item_assign(item_id=item.pk, assignee=bob)


def test_a_skip_needs_a_reason_and_takes_the_item_out_of_that_annotators_queue_only(people, item):
    annie, bob = people["annie"], people["bob"]
    with pytest.raises(AnnotationError, match="say why"):
        item_skip(item_id=item.pk, user=annie, reason="  ")
    item_claim(item_id=item.pk, user=annie)
    recording_start(item_id=item.pk, user=annie)
    item_skip(item_id=item.pk, user=annie, reason="the world shows no open note")
    item.refresh_from_db()
    assert item.status == Item.Status.OPEN and item.claimed_by is None
    assert not Recording.objects.filter(item=item).exists()  # the unfinished recording goes with the claim
    assert item not in queue_for(annie)["open"] and item in queue_for(bob)["open"]
    with pytest.raises(AnnotationError, match="assigned to someone else"):
        item_claim(item_id=item.pk, user=annie)
    assert Skip.objects.get().reason == "the world shows no open note"


def _submitted(item, annotator, status, seconds=60):
    item_claim(item_id=item.pk, user=annotator)
    rec = recording_start(item_id=item.pk, user=annotator)
    Recording.objects.filter(pk=rec.pk).update(status=status, submitted_at=rec.started_at + timedelta(seconds=seconds))
    Item.objects.filter(pk=item.pk).update(status=Item.Status.SUBMITTED)
    rec.refresh_from_db()
    return rec


def test_review_rules_and_a_rejected_item_goes_back_to_the_queue(people, item):
    annie, rita = people["annie"], people["rita"]
    rec = _submitted(item, annie, Recording.Status.FAILED)
    with pytest.raises(AnnotationError, match="cannot review your own"):
        recording_review(recording_id=rec.pk, reviewer=annie, accept=False, comment="x")
    with pytest.raises(AnnotationError, match="passed the verifier"):
        recording_review(recording_id=rec.pk, reviewer=rita, accept=True)
    with pytest.raises(AnnotationError, match="say why"):
        recording_review(recording_id=rec.pk, reviewer=rita, accept=False)
    recording_review(recording_id=rec.pk, reviewer=rita, accept=False, comment="You ticked the wrong note.")
    item.refresh_from_db()
    assert item.status == Item.Status.OPEN and item in queue_for(people["bob"])["open"]
    with pytest.raises(AnnotationError, match="nothing to review"):
        recording_review(recording_id=rec.pk, reviewer=rita, accept=False, comment="again")


def test_per_annotator_figures(people):
    annie, bob, rita = people["annie"], people["bob"], people["rita"]
    items = items_create(task=TASK, seeds=[7, 8, 9, 10])
    for it, who, seconds in ((items[0], annie, 30), (items[1], annie, 90), (items[2], annie, 300), (items[3], bob, 50)):
        _submitted(it, who, Recording.Status.VERIFIED, seconds)
    recs = list(Recording.objects.filter(annotator=annie).order_by("pk"))
    recording_review(recording_id=recs[0].pk, reviewer=rita, accept=True)
    recording_review(recording_id=recs[1].pk, reviewer=rita, accept=False, comment="too many steps")
    stats = {s["annotator"]: s for s in annotator_stats()}
    assert stats["annie"] == {
        "annotator": "annie",
        "submitted": 3,
        "done": 1,
        "reviewed": 2,
        "acceptance_rate": 0.5,
        "median_seconds": 90.0,
    }
    assert (
        stats["bob"]["done"] == 0 and stats["bob"]["acceptance_rate"] is None and stats["bob"]["median_seconds"] == 50.0
    )


def test_divergence_names_the_step_that_failed_or_left_the_recorded_pages():
    class S:
        def __init__(self, action="", url="", error=""):
            self.action, self.url, self.error = action, url, error

    recorded = [S('click("3")', "/notes/1"), S('check("9")', "/notes/1"), S('click("10")', "/notes/1")]
    same = [
        S(url="http://w-a.localhost:1/notes/1"),
        S(url="http://w-a.localhost:1/notes/1"),
        S(url="http://w-a.localhost:1/notes"),
    ]
    assert divergence_find(recorded, same) is None
    moved = [S(url="http://w-a.localhost:1/notes"), *same[1:]]
    assert divergence_find(recorded, moved) == {
        "step": 0,
        "reason": "the replay was on /notes after this step; the recording on /notes/1",
    }
    failed = [same[0], S(error="check: no element matches bid '9' on this page")]
    assert divergence_find(recorded, failed)["step"] == 1
    assert divergence_find(recorded, same[:2])["reason"] == "the replay stopped after 2 of 3 steps"


def test_pages_admit_their_roles_only(client, people, item):
    pages = ["/annotate/", "/annotate/review/", "/annotate/assign/", "/annotate/stats/", "/annotate/exports/"]
    assert all(client.get(p).status_code == 302 for p in pages)  # anonymous: sign in first
    expected = {
        "olga": [403, 403, 403, 403, 403],
        "annie": [200, 403, 403, 403, 403],
        "rita": [403, 200, 403, 403, 403],
        "root": [200, 200, 200, 200, 200],
    }
    for name, codes in expected.items():
        client.login(username=name, password=PASSWORD)
        assert [client.get(p).status_code for p in pages] == codes, name
    client.login(username="annie", password=PASSWORD)
    assert client.post(f"/annotate/items/{item.pk}/claim").status_code == 302
    page = client.get("/annotate/").content.decode()
    assert f'data-testid="my-item-{item.pk}"' in page and "Open world and record" in page
    assert item.params["password"] not in page.replace(item.task.with_params(item.params).instruction, "")
    opened = client.post(f"/annotate/items/{item.pk}/record")
    assert opened.status_code == 302 and "/__recording__/start?t=" in opened.url and opened.url.startswith("http://w-")
    client.login(username="bob", password=PASSWORD)
    rec = Recording.objects.get(item=item)
    assert client.get(f"/annotate/recordings/{rec.pk}/").status_code == 404  # someone else's recording


def test_admins_assign_from_the_page_and_the_command(client, people):
    client.login(username="root", password=PASSWORD)
    answer = client.post("/annotate/assign/", {"task": TASK, "seeds": "7, 8", "annotator": "annie"}, follow=True)
    assert "2 item(s) of testbed.complete-note queued for annie" in answer.content.decode()
    bad = client.post("/annotate/assign/", {"task": TASK, "seeds": "seven", "annotator": ""}, follow=True)
    assert "whole numbers" in bad.content.decode() and Item.objects.count() == 2
    call_command("annotate", "assign", TASK, "--seeds", "9")
    assert Item.objects.filter(world_seed=9, assignee=None).count() == 1
    with pytest.raises(CommandError, match="not a user with the annotator role"):
        call_command("annotate", "assign", TASK, "--annotator", "olga")


@pytest.fixture
def seed_8_has_no_candidate(monkeypatch):
    """Seed 8's world has nothing the task can be about, as a replica's picker says it (a LookupError)."""
    from replicagym.annotation import services

    from replicas.supportdesk.tasks.params import NoCandidate

    real = services.task_params

    def params(spec, **kw):
        if spec["seed"] == 8:
            raise NoCandidate("no open ticket with a refund to check")
        return real(spec, **kw)

    monkeypatch.setattr(services, "task_params", params)


def test_assign_queues_the_seeds_with_a_candidate_and_reports_the_others(client, people, seed_8_has_no_candidate):
    """It answered 500 when one seed had no candidate, and queued nothing."""
    client.login(username="root", password=PASSWORD)
    answer = client.post("/annotate/assign/", {"task": TASK, "seeds": "7, 8, 9", "annotator": ""}, follow=True)
    page = answer.content.decode()
    assert answer.status_code == 200
    assert "2 item(s) of testbed.complete-note queued" in page
    assert "Seed 8 skipped: its world has nothing the task can be about (no open ticket with a refund to check)" in page
    assert sorted(Item.objects.values_list("world_seed", flat=True)) == [7, 9]


def test_assign_with_no_seed_having_a_candidate_queues_nothing_and_says_why(people, seed_8_has_no_candidate):
    with pytest.raises(AnnotationError, match="no item queued: seed 8 has no world the task can be about"):
        items_create(task=TASK, seeds=[8])
    assert Item.objects.count() == 0


def test_a_demonstration_is_a_recording_of_the_authors_own_with_no_queue_item(people):
    rita = people["rita"]
    rec = demonstration_start(
        replica="testbed",
        variant="small",
        seed=7,
        user=rita,
        faults=[{"name": "slow_response", "params": {"delay_ms": 100}}],
        brief={"title": "Draft", "instruction": "Do it.", "start_page": "//elsewhere.example"},
    )
    assert rec.is_demonstration and rec.item is None and not Item.objects.exists()
    assert (rec.world.replica, rec.world.seed, rec.world.variant) == ("testbed", 7, "small") and rec.world.faults
    assert rec.briefing() == {"title": "Draft", "task_id": "", "instruction": "Do it.", "start_page": "/", "seed": 7}
    assert "/__recording__/start?t=" in demonstration_url(rec, port=8000)
    recording_step_add(recording=rec, action='fill("9", "member1@testbed.example")')
    recording_step_add(recording=rec, action='click("12")')
    assert demonstration_actions(rec) == ['fill("9", "member1@testbed.example")', 'click("12")']
    assert demonstration_of(recording_id=str(rec.pk), user=rita) == rec
    # nobody else's, never submitted or reviewed, never in a queue or the figures
    for who in (people["annie"], people["root"]):
        with pytest.raises(AnnotationError, match="no demonstration"):
            demonstration_of(recording_id=rec.pk, user=who)
    with pytest.raises(AnnotationError, match="not submitted"):
        recording_submit(recording=rec, user=rita)
    assert queue_for(rita)["submitted"] == [] and review_list() == [] and annotator_stats() == []
    rec.refresh_from_db()
    assert rec.status == Recording.Status.RECORDING and rec.replay is None
    # a bad world makes nothing
    with pytest.raises(AnnotationError, match="no world"):
        demonstration_start(replica="testbed", variant="gigantic", seed=7, user=rita)
    with pytest.raises(AnnotationError, match="no world"):
        demonstration_start(replica="testbed", variant="small", seed=7, user=rita, faults=[{"name": "no_such_fault"}])
    assert Recording.objects.count() == 1


def test_an_annotation_recording_is_no_demonstration(people, item):
    annie = people["annie"]
    item_claim(item_id=item.pk, user=annie)
    rec = recording_start(item_id=item.pk, user=annie)
    with pytest.raises(AnnotationError, match="not a demonstration"):
        demonstration_of(recording_id=rec.pk, user=annie)
    with pytest.raises(AnnotationError, match="not a recording id"):
        demonstration_of(recording_id="x", user=annie)


def test_an_export_refuses_a_folder_with_files_and_says_what_it_found(people, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(Exception, match="not an empty folder"):
        dataset_export(fmt="sft", suite="testbed", sources="annotators", out=tmp_path / "full")
    result = dataset_export(fmt="sft", suite="testbed", sources="annotators", out=tmp_path / "empty")
    assert result.card["counts"] == {"steps": 0, "episodes": 0, "images": 0}
    assert (tmp_path / "empty" / "README.md").read_text().startswith("# replicagym-testbed-sft")


@pytest.mark.django_db(transaction=True)
def test_an_export_started_from_the_page_runs_and_reports_its_progress(client, people):
    client.login(username="root", password=PASSWORD)
    refused = client.post(
        "/annotate/exports/", {"format": "sft", "suite": "testbed", "sources": ["people"]}, follow=True
    )
    assert "unknown: people" in refused.content.decode() and not DatasetExport.objects.exists()
    refused = client.post(
        "/annotate/exports/", {"format": "sft", "suite": "../../etc", "sources": ["oracle"]}, follow=True
    )
    assert "unknown suite" in refused.content.decode() and not DatasetExport.objects.exists()
    client.post("/annotate/exports/", {"format": "dpo", "suite": "testbed", "sources": ["annotators", "oracle"]})
    export = DatasetExport.objects.get()
    # the export runs in its own thread; the page polls the row the same way
    export = wait_until(
        lambda: DatasetExport.objects.exclude(
            status__in=(DatasetExport.Status.QUEUED, DatasetExport.Status.RUNNING)
        ).first(),
        60,
        "the export to end",
    )
    assert export.status == DatasetExport.Status.DONE, export.error
    assert export.card["counts"] == {"pairs": 0, "images": 0} and export.card["sources"] == ["annotators", "oracle"]
    table = client.get("/annotate/exports/", HTTP_HX_REQUEST="true").content.decode()
    assert "dpo.jsonl" in table and "hx-trigger" not in table  # done: the table stops polling
    assert client.get(f"/annotate/exports/{export.pk}/dpo.jsonl").status_code == 200
    assert client.get(f"/annotate/exports/{export.pk}/..%2fsecrets").status_code == 404


def test_the_annotator_sees_which_checks_the_replay_missed_but_not_their_details(client, people, item):
    """'Failed verification' said nothing; the details stay hidden, as they may hold the answer key."""
    from episodes.models import Episode

    annie = people["annie"]
    item_claim(item_id=item.pk, user=annie)
    recording = recording_start(item_id=item.pk, user=annie)
    replay = Episode.objects.create(
        task=item.task,
        agent="replay",
        params=item.params,
        status=Episode.Status.FAILED,
        verdict={
            "passed": False,
            "assertions": [
                {"name": "the note is marked done", "required": True, "passed": False, "detail": "expected 'done'"},
                {"name": "the reply names the note", "required": True, "passed": True, "detail": "ok"},
                {"name": "a tidy title", "required": False, "passed": False, "detail": "optional"},
            ],
        },
    )
    Recording.objects.filter(pk=recording.pk).update(status=Recording.Status.FAILED, replay=replay)
    client.login(username="annie", password=PASSWORD)
    page = client.get(f"/annotate/recordings/{recording.pk}/", HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="failed-checks"' in page and "<li>the note is marked done</li>" in page
    assert "the reply names the note" not in page and "a tidy title" not in page
    assert "expected" not in page


def test_the_reviewer_sees_each_step_on_the_page_it_acted_on_with_its_target_outlined(client, people, item):
    """The review showed element ids with no outline of what was clicked."""
    import io

    from PIL import Image

    from episodes.blobs import screenshot_store
    from episodes.models import Episode, Step

    def png(colour) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (200, 100), colour).save(out, format="PNG")
        return out.getvalue()

    start, after = screenshot_store(png=png("white")), screenshot_store(png=png("grey"))
    replay = Episode.objects.create(
        task=item.task, agent="replay", params=item.params, status=Episode.Status.SUCCEEDED, start_screenshot=start
    )
    Step.objects.create(
        episode=replay,
        index=0,
        action='click("12")',
        target_box={"x": 50, "y": 25, "width": 20, "height": 10},
        screenshot=after,
    )
    annie = people["annie"]
    item_claim(item_id=item.pk, user=annie)
    recording = recording_start(item_id=item.pk, user=annie)
    Recording.objects.filter(pk=recording.pk).update(status=Recording.Status.VERIFIED, replay=replay)
    client.login(username="rita", password=PASSWORD)
    page = client.get(f"/annotate/review/{recording.pk}/").content.decode()
    assert f"/annotate/screenshots/{start.sha256}.png" in page and f"/annotate/screenshots/{after.sha256}.png" in page
    assert (
        'data-testid="review-target-box" style="position: absolute; left: 25.0%; top: 25.0%; width: 10.0%; '
        "height: 10.0%" in page
    )


def test_an_export_done_from_the_page_offers_its_screenshots_as_one_zip(client, people, tmp_path):
    import io
    import zipfile

    (tmp_path / "images").mkdir()
    for name, data in (("b2.png", b"\x89PNG second"), ("a1.png", b"\x89PNG first")):
        (tmp_path / "images" / name).write_bytes(data)
    export = DatasetExport.objects.create(
        format="sft",
        suite="testbed",
        out=str(tmp_path),
        status=DatasetExport.Status.DONE,
        card={"files": ["sft.jsonl", "images/"], "counts": {"steps": 2, "images": 2}},
    )
    client.login(username="annie", password=PASSWORD)
    assert client.get(f"/annotate/exports/{export.pk}/images.zip").status_code == 403  # exports are the admin's
    client.login(username="root", password=PASSWORD)
    table = client.get("/annotate/exports/", HTTP_HX_REQUEST="true").content.decode()
    assert f'href="/annotate/exports/{export.pk}/images.zip"' in table and "2 screenshots" in table
    response = client.get(f"/annotate/exports/{export.pk}/images.zip")
    assert response.status_code == 200 and response["Content-Disposition"].endswith('filename="images.zip"')
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert archive.namelist() == ["images/a1.png", "images/b2.png"]
    assert archive.read("images/a1.png") == b"\x89PNG first"
