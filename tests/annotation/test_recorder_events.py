"""The recorder in a real Chromium: what a person does becomes the engine's action strings, on the engine's bids."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from replicagym.annotation.services import item_claim, recording_start

from episodes.engine.browser import shared_browser
from replicas.worlds.recording import recording_start_url

# sqlite_only: the recorder's script in the page is checked; the recording services are tested on both backends
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]

PLAYGROUND = """() => {
  const box = document.createElement("div");
  box.innerHTML = `<select id="pick"><option>Low</option><option>High</option></select>
    <button id="twice" type="button">Twice</button>
    <button type="button">Same</button><button type="button">Same <b>again</b></button>
    <div id="src" draggable="true" style="width:80px;height:30px">Drag me</div>
    <div id="dst" style="width:200px;height:60px"
      ondragover="event.preventDefault()" ondrop="event.preventDefault()">Drop here</div>
    <a id="away" href="/login" target="_blank">Open the sign-in in a new tab</a>
    <div style="height:3000px"></div>`;
  document.querySelector("main, body").prepend(box);
}"""


def test_each_kind_of_input_becomes_its_action_on_the_bid_the_engine_stamps(live_server, people, item):
    item_claim(item_id=item.pk, user=people["annie"])
    recording = recording_start(item_id=item.pk, user=people["annie"])
    port = int(live_server.url.rsplit(":", 1)[1])
    context = shared_browser().new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(30_000)
    try:
        bar = context.new_page()
        bar.goto(recording_start_url(world=recording.world, session=recording.pk, port=port))
        world = bar.frame_locator("#rg-frame")
        world.locator("#id_email").wait_for()
        frame = bar.frame(url=lambda u: u.endswith("/login") or "/login?" in u)
        frame.evaluate(PLAYGROUND)

        def bid(selector):
            return frame.evaluate(
                "s => { window.__replicagym.stamp(); return document.querySelector(s).getAttribute('bid'); }", selector
            )

        def step(n, action, selector=""):
            """Step n (1-based) shows `action` in the bar, and the platform holds just that, with `selector` as the
            robust alternative to its bid the recorder found unique in the page ("" for none)."""
            try:
                bar.locator("#rg-steps > li").nth(n - 1).get_by_text(action, exact=True).wait_for(state="attached")
            except PlaywrightTimeout:
                shown = bar.locator("#rg-steps > li code").all_text_contents()
                raise AssertionError(f"step {n} should be {action}; the bar shows {shown}") from None
            assert list(recording.steps.order_by("index").values_list("action", "selector"))[n - 1] == (
                action,
                selector,
            )

        world.locator("#pick").focus()
        bar.keyboard.press("ArrowDown")  # a select changed from the keyboard: one select_option, no key press
        step(1, f'select_option("{bid("#pick")}", "High")', "#pick")  # no label: its id
        world.locator("#twice").dblclick()  # its first click is replaced by the double click
        step(2, f'dblclick("{bid("#twice")}")', "role=button[name='Twice']")
        world.locator("#src").drag_to(world.locator("#dst"))
        step(3, f'drag_and_drop("{bid("#src")}", "{bid("#dst")}")')
        email = bid("#id_email")  # before the answer replaces the page
        world.locator("#id_email").click()
        bar.keyboard.type("nobody@testbed.example")
        bar.keyboard.press("Enter")  # the text goes first, then the key that submits it
        step(4, f'fill("{email}", "nobody@testbed.example")', "role=textbox[name='Email']")
        step(5, f'press("{email}", "Enter")', "role=textbox[name='Email']")
        # the form came back with its error (wrong sign-in): the old page had the same fields, so wait for
        # what only the new one shows before adding the playground to it
        world.get_by_role("alert").wait_for()
        frame = bar.frame(url=lambda u: "/login" in u)
        frame.evaluate(PLAYGROUND)
        bar.mouse.move(640, 600)
        bar.mouse.wheel(0, 600)
        step(6, "scroll(0, 600)")
        with context.expect_page() as opened:
            world.locator("#away").click()
        tab = opened.value
        tab.wait_for_load_state()
        step(7, f'click("{bid("#away")}")', "role=link[name='Open the sign-in in a new tab']")
        tab.locator("#id_email").wait_for()
        bar.bring_to_front()
        bar.evaluate("() => window.dispatchEvent(new FocusEvent('focus'))")  # headless windows get no OS focus
        step(8, "tab_focus(0)")
        bar.locator("#rg-thought").fill("tell the user")
        bar.locator("#rg-answer").fill("Note #1 is done.")
        bar.get_by_role("button", name="Send").click()
        step(9, 'send_msg_to_user("Note #1 is done.")')
        assert recording.steps.get(index=8).thought == "tell the user"
        # a name another button's could equal (or contain) is no selector for one: the bid alone
        same = bid("button:not([id])")
        world.locator("button:not([id])").first.click()
        step(10, f'click("{same}")')
        assert recording.steps.count() == 10  # nothing recorded twice, nothing the person did not do
    finally:
        context.close()
