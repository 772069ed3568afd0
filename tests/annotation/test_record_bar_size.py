"""The recording bar in a real Chromium keeps the screen for the world: one row of at most 48 px on an 800 px
screen (it took a third of one), the whole instruction and the steps opening over the frame."""

import pytest
from replicagym.annotation.services import item_claim, recording_start

from episodes.engine.browser import shared_browser
from replicas.worlds.recording import recording_start_url

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [800, 1280])
def test_the_recording_bar_is_one_row_of_at_most_48_px_and_the_frame_keeps_the_rest(live_server, people, item, width):
    item_claim(item_id=item.pk, user=people["annie"])
    recording = recording_start(item_id=item.pk, user=people["annie"])
    port = int(live_server.url.rsplit(":", 1)[1])
    context = shared_browser().new_context(viewport={"width": width, "height": 800})
    context.set_default_timeout(30_000)
    try:
        bar = context.new_page()
        bar.goto(recording_start_url(world=recording.world, session=recording.pk, port=port))
        bar.frame_locator("#rg-frame").locator("#id_email").wait_for()
        height = bar.locator(".rg-rec-bar").bounding_box()["height"]
        frame = bar.locator("#rg-frame").bounding_box()
        assert height <= 48, height
        assert frame["y"] == pytest.approx(height, abs=1) and frame["height"] >= 800 - 48
        for control in ("#rg-thought", "#rg-answer", "#rg-count", "#rg-back", "#rg-forward", "#rg-submit"):
            box = bar.locator(control).bounding_box()
            assert box and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, control
        # the whole instruction opens over the frame, which does not move
        instruction = bar.get_by_test_id("instruction")
        text = instruction.text_content().strip()
        assert len(text) > 20 and instruction.bounding_box()["height"] < 30  # cut to one line in the bar
        instruction.click()
        panel = bar.locator(".rg-rec-brief .rg-rec-panel")
        panel.wait_for()
        assert text in panel.inner_text()
        assert panel.bounding_box()["y"] + panel.bounding_box()["height"] > height
        assert bar.locator("#rg-frame").bounding_box()["y"] == frame["y"]
    finally:
        context.close()
