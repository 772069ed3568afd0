"""The run pages with Django's test client: launching with validation, the live fragment, cancelling, the report and
its one-file download, comparing, the episode viewer and its downloads, and who may open them."""

import json
import re

import pytest
from django.conf import settings
from replicagym.reports import views

from catalogue.packs import suite_current
from episodes.models import Episode, Run, Screenshot
from episodes.queue.claims import episode_claim
from episodes.runs import run_launch
from episodes.trajectory import trajectory_parse

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, author_user):
    client.force_login(author_user)
    return client


def test_launching_from_the_form_queues_the_run_and_leads_to_its_live_page(staff, author_user):
    suite_current("testbed")
    form = staff.get("/runs/new")
    assert form.status_code == 200 and b'<option value="testbed"' in form.content
    response = staff.post(
        "/runs/new",
        {
            "suite": "testbed",
            "task_filter": "",
            "agent": "random:2",
            "agent_settings": "",
            "attempts": "3",
            "faults": "on",
            "priority": "2",
        },
    )
    run = Run.objects.get()
    assert response.status_code == 302 and response.url == f"/runs/{run.pk}/"
    assert (run.agent, run.attempts, run.priority, run.faults, run.owner) == ("random:2", 3, 2, True, author_user)
    page = staff.get(response.url)
    assert f"Run {run.pk} launched: 6 episodes queued.".encode() in page.content
    assert b'hx-trigger="every 2s"' in page.content and page.content.count(b'data-status="queued"') == 6


@pytest.mark.parametrize(
    "data, message",
    [
        ({"suite": "", "task_filter": "", "agent": "random"}, "choose a suite, a task filter, or both"),
        ({"suite": "testbed", "agent": "replay:/etc/passwd"}, "replay agents read files on the server"),
        ({"suite": "testbed", "agent": "random", "agent_settings": "{nope"}, "invalid JSON at line 1 column 2"),
        ({"suite": "testbed", "agent": "random", "agent_settings": "[1]"}, "a JSON object"),
        ({"suite": "testbed", "agent": "random", "attempts": "0"}, "greater than or equal to 1"),
        ({"suite": "testbed", "agent": "genius"}, "unknown agent"),
        ({"suite": "testbed", "task_filter": "nothing.*", "agent": "random"}, "no task of suite"),
        ({"suite": "nosuch", "agent": "random"}, "nosuch is not one of the available choices"),
    ],
)
def test_a_bad_launch_is_refused_with_the_reason_and_queues_nothing(staff, data, message):
    suite_current("testbed")
    response = staff.post("/runs/new", {"attempts": "1", "priority": "0", **data})
    assert response.status_code == 400 and message in response.content.decode()
    assert not Run.objects.exists() and not Episode.objects.exists()


def test_the_htmx_poll_gets_only_the_fragment_and_cancel_stops_the_polling(staff, finished_run):
    run = finished_run({"testbed.complete-note": [False]}, attempts=2)  # one attempt ended, one still queued
    fragment = staff.get(f"/runs/{run.pk}/", HTTP_HX_REQUEST="true")
    assert b"<html" not in fragment.content  # the fragment alone, for htmx to swap in
    assert b'id="run-progress"' in fragment.content and b'hx-trigger="every 2s"' in fragment.content
    assert re.search(rb'data-testid="failed">1<', fragment.content) and re.search(
        rb'data-testid="queued">1<', fragment.content
    )
    response = staff.post(f"/runs/{run.pk}/cancel")
    assert response.status_code == 302
    after = staff.get(f"/runs/{run.pk}/", HTTP_HX_REQUEST="true")
    assert b"hx-trigger" not in after.content and b'data-status="cancelled"' in after.content
    again = staff.post(f"/runs/{run.pk}/cancel", follow=True)
    assert b"is already cancelled" in again.content


def test_the_report_page_json_and_one_file_html_hold_the_same_figures(staff, finished_run):
    run = finished_run({"testbed.complete-note": [True, False], "testbed.rename-note": [False, False]})
    page = staff.get(f"/runs/{run.pk}/report").content.decode()
    assert page.count("<svg") == 4 and "testbed.rename-note" in page and 'data-testid="pass-at-1">0.250<' in page
    data = json.loads(staff.get(f"/runs/{run.pk}/report.json").content)
    assert data["tasks"]["testbed.complete-note"]["pass_hat_k"] == {"1": 0.5, "2": 0.0}
    download = staff.get(f"/runs/{run.pk}/report.html")
    assert download["Content-Disposition"] == f'attachment; filename="run-{run.pk}-report.html"'
    html = download.content.decode()
    assert html.count("<svg") == 4 and "<style>" in html
    # nothing fetched when it opens: no stylesheet, script or image from anywhere
    assert not re.search(r"<link[^>]+stylesheet|<script[^>]+src=|<img[^>]+src=", html)
    embedded = json.loads(
        re.search(r'<script id="report-data" type="application/json">(.*?)</script>', html, re.S).group(1)
    )
    assert embedded["totals"]["passes"] == data["totals"]["passes"] == 1
    assert f"http://testserver/runs/episodes/{data['tasks']['testbed.rename-note']['episodes'][0]['id']}/" in html


def test_compare_shows_flips_and_refuses_bad_ids(staff, finished_run):
    a = finished_run({"testbed.complete-note": [True]})
    b = finished_run({"testbed.complete-note": [False]})
    page = staff.get(f"/runs/compare?a={a.pk}&b={b.pk}").content.decode()
    assert 'data-testid="flipped-to-fail"' in page and "testbed.complete-note" in page and page.count("<svg") == 1
    assert staff.get("/runs/compare?a=x&b=2").status_code == 400
    assert "no run 999" in staff.get(f"/runs/compare?a={a.pk}&b=999").content.decode()
    assert "choose two different runs" in staff.get(f"/runs/compare?a={a.pk}&b={a.pk}").content.decode()


def test_the_viewer_shows_assertion_details_and_steps_to_staff_only(
    client, staff, finished_run, annotator_user, tmp_path
):
    run = finished_run({"testbed.complete-note": [False]})
    episode = run.episodes.get()
    png = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000c8000000640806000000")  # a 200 x 100 PNG header
    path = settings.DATA_DIR / "screenshots" / "te" / "test-viewer.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)
    shot = Screenshot.objects.create(
        sha256="te" + "0" * 62, path=str(path.relative_to(settings.DATA_DIR)), size=len(png)
    )
    Episode.objects.filter(pk=episode.pk).update(start_screenshot=shot)
    episode.steps.filter(index=0).update(
        target_box={"x": 50, "y": 25, "width": 20, "height": 10},
        fault_events=[
            {
                "seq": 1,
                "fault": "server_error",
                "index": 0,
                "event": "fired",
                "route": "/notes/1",
                "detail": "HTTP 500 on the first save",
            }
        ],
    )
    page = staff.get(f"/runs/episodes/{episode.pk}/").content.decode()
    assert "expected done=True, found done=False" in page and 'data-passed="false"' in page
    assert page.count('data-step="') == 2 and "click(&quot;a1&quot;)" in page
    assert "left: 25.0%; top: 25.0%; width: 10.0%; height: 10.0%" in page  # the box, placed on its 200 x 100 screenshot
    assert (
        "<strong>server_error</strong> fired on <code>/notes/1</code>" in page and "HTTP 500 on the first save" in page
    )
    assert staff.get(f"/runs/screenshots/{shot.sha256}.png").status_code == 200
    trajectory = trajectory_parse(staff.get(f"/runs/episodes/{episode.pk}/trajectory.jsonl").content.decode())
    assert trajectory.header["episode"] == episode.pk and len(trajectory.steps) == 2
    assert staff.get(f"/runs/episodes/{episode.pk}/trace.zip").status_code == 404
    assert "Playwright trace" not in page
    trace = settings.DATA_DIR / "traces" / f"test-{episode.pk}.zip"
    trace.parent.mkdir(parents=True, exist_ok=True)
    trace.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    Episode.objects.filter(pk=episode.pk).update(trace_path=str(trace.relative_to(settings.DATA_DIR)))
    assert "Playwright trace" in staff.get(f"/runs/episodes/{episode.pk}/").content.decode()
    assert staff.get(f"/runs/episodes/{episode.pk}/trace.zip").status_code == 200
    Episode.objects.filter(pk=episode.pk).update(trace_path="../../etc/passwd")  # never outside DATA_DIR
    assert staff.get(f"/runs/episodes/{episode.pk}/trace.zip").status_code == 404
    client.force_login(annotator_user)
    for url in (
        f"/runs/episodes/{episode.pk}/",
        f"/runs/episodes/{episode.pk}/trajectory.jsonl",
        f"/runs/{run.pk}/report",
    ):
        assert client.get(url).status_code == 403


def test_the_live_page_lists_running_episodes_first_and_points_to_the_report_for_the_rest(staff, monkeypatch):
    monkeypatch.setattr(views, "LIVE_EPISODES", 2)
    run = run_launch(suite="testbed", agent="random", attempts=2)
    last = run.episodes.order_by("-pk").first()
    assert episode_claim(episode_id=last.pk, worker="w:1")
    page = staff.get(f"/runs/{run.pk}/", HTTP_HX_REQUEST="true").content.decode()
    listed = re.findall(r'href="/runs/episodes/(\d+)/"', page)
    assert listed[0] == str(last.pk) and len(listed) == 2
    assert "2 more are in" in page
