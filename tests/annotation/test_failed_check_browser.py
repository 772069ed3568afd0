"""The annotator's view of a recording whose replay failed, in a real Chromium: the checks it missed are named, their
details (which may hold the answer key) are not; docs/screenshots/platform-annotator-failed-checks.png shows it."""

import os

import pytest
from replicagym.annotation.models import Recording
from replicagym.annotation.services import item_claim, recording_start

from episodes.engine.browser import shared_browser
from episodes.models import Episode
from tests.annotation.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOT = os.path.join(
    os.path.dirname(__file__), "..", "..", "docs", "screenshots", "platform-annotator-failed-checks.png"
)


def test_the_annotator_sees_the_checks_the_replay_missed_on_the_recording_page(live_server, people, item):
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
            ],
        },
    )
    Recording.objects.filter(pk=recording.pk).update(status=Recording.Status.FAILED, replay=replay)
    context = shared_browser().new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/?next=/annotate/recordings/{recording.pk}/")
        page.get_by_label("Username").fill("annie")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        failed = page.get_by_test_id("failed-checks")
        failed.wait_for()
        assert "the note is marked done" in failed.inner_text()
        assert "the reply names the note" not in page.content() and "expected 'done'" not in page.content()
        if os.environ.get("REPLICAGYM_SCREENSHOTS") == "1":
            page.screenshot(path=SHOT, full_page=True)
    finally:
        context.close()
