"""EpisodeSession on small local pages: observations, actions, errors, confinement, settling, tabs."""

import re

import pytest

from episodes.engine.browser import BrowserCrashed, EpisodeSession
from episodes.engine.observation import HTML_JS

# sqlite_only: the session on static pages never touches the database, so PostgreSQL would repeat it as it is
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only]

PNG = b"\x89PNG\r\n\x1a\n"


def bid_of(axtree: str, role: str, name: str) -> str:
    m = re.search(rf"\[([a-z]{{0,2}}\d+)\] {role} {re.escape(repr(name))}", axtree)
    assert m, f"no {role} {name!r} in\n{axtree}"
    return m.group(1)


def test_observation_has_bids_axtree_screenshot_and_page_facts(open_session, page_server):
    obs = open_session(instruction="Solve ticket #8001").observe()
    assert obs.url == page_server + "/form.html"
    assert obs.title == "Form test"
    assert obs.screenshot.startswith(PNG)
    assert obs.axtree.startswith("RootWebArea 'Form test'")
    subject = bid_of(obs.axtree, "textbox", "Subject")
    assert f"[{subject}] textbox 'Subject', required" in obs.axtree
    assert "combobox 'Priority', value='Low'" in obs.axtree
    assert obs.tabs == [{"index": 0, "url": page_server + "/form.html", "active": True}]
    assert obs.chat == [{"role": "user", "message": "Solve ticket #8001"}]
    assert obs.step == 0 and obs.last_action_error == ""
    doc = obs.to_dict()
    assert doc["screenshot"].startswith("iVBORw0KGgo") and doc["axtree"] == obs.axtree


def test_form_actions_by_bid_and_by_selector_change_the_page(open_session):
    session = open_session()
    obs = session.observe()
    subject = bid_of(obs.axtree, "textbox", "Subject")
    steps = [
        f'fill("{subject}", "Refund ORD-1")',
        'select_option("role=combobox[name=\'Priority\']", "Urgent")',
        'check("#notify")',
        "click(\"role=button[name='Submit as Solved']\")",
    ]
    for action in steps:
        result = session.step(action)
        assert result.error == "", (action, result.error)
    axtree = result.observation.axtree
    assert f"[{subject}] textbox 'Subject', value='Refund ORD-1'" in axtree
    assert "combobox 'Priority', value='Urgent'" in axtree
    assert "checkbox 'Notify requester', checked='true'" in axtree
    assert "StaticText 'Saved Refund ORD-1'" in axtree
    assert result.observation.step == 4
    assert set(result.timings) >= {"action_ms", "settle_ms", "observe_ms", "total_ms", "settled"}


def test_malformed_action_is_the_step_error_and_the_session_goes_on(open_session):
    session = open_session()
    result = session.step('click("a1"); __import__("os").system("touch /tmp/pwned")')
    assert result.error == "invalid action: unexpected text after the action: send exactly one action per step"
    assert result.observation.last_action_error == result.error
    assert session.step('check("#notify")').error == ""


def test_missing_element_is_the_step_error_and_the_session_goes_on(open_session):
    session = open_session()
    result = session.step('click("9999")')
    assert result.error == "click: no element matches bid '9999' on this page"
    assert session.step("click(\"role=button[name='Nope']\")").error.startswith("click: no element matches selector")
    disabled = session.step("click(\"role=button[name='Disabled']\")").error
    assert disabled.startswith("click on \"role=button[name='Disabled']\" failed") and "not enabled" in disabled
    assert session.step('check("#notify")').error == ""
    assert session.step('press("#subject", "NoSuchKey")').error.startswith("press failed")


def test_goto_to_another_origin_is_refused_and_logged(open_session, page_server, server_hits):
    session = open_session()
    port = page_server.rsplit(":", 1)[1]
    for url in (f"http://localhost:{port}/form.html", "file:///etc/passwd", "javascript:alert(1)", "chrome://version"):
        result = session.step(f'goto("{url}")')
        assert result.error.startswith(f"goto('{url}') was refused: only pages of this world"), result.error
        assert result.observation.url == page_server + "/form.html"
    assert [b["url"] for b in session.blocked_requests if b["resource_type"] == "document"][-1] == "chrome://version"
    assert session.step('goto("/second.html")').observation.title == "Second page"
    assert not [h for h in server_hits if h[0].startswith("localhost")]


def test_link_to_another_origin_is_blocked_and_the_agent_stays_where_it_was(open_session, page_server, server_hits):
    session = open_session()
    result = session.step('click("#away")')
    port = page_server.rsplit(":", 1)[1]
    assert result.error == (
        f"navigation to http://localhost:{port}/form.html was blocked: it is outside this world ({page_server})"
    )
    assert result.observation.url == page_server + "/form.html"
    assert any(b["navigation"] and b["url"].startswith("http://localhost") for b in session.blocked_requests)
    assert session.step('check("#notify")').error == ""
    assert not [h for h in server_hits if h[0].startswith("localhost")]


def test_subresources_from_other_origins_are_blocked_and_logged(open_session, page_server, server_hits):
    session = open_session()
    port = page_server.rsplit(":", 1)[1]
    assert {
        "url": f"http://localhost:{port}/pixel.png",
        "method": "GET",
        "resource_type": "image",
        "navigation": False,
        "step": 0,
    } in session.blocked_requests
    assert ("127.0.0.1:" + port, "/form.html") in server_hits
    assert not [h for h in server_hits if h[0].startswith("localhost")]


def test_settle_waits_for_content_behind_a_timer_and_a_slow_response(open_session):
    session = open_session("/delayed.html")
    obs = session.observe()
    assert "ORD-3" in obs.axtree and "Loading" not in obs.axtree
    result = session.step("click(\"role=button[name='Reload']\")")
    assert result.timings["settled"] is True
    assert "ORD-3" in result.observation.axtree and "Loading" not in result.observation.axtree


def test_bids_stay_and_new_elements_get_new_bids(open_session):
    session = open_session()
    before = session.observe().axtree
    add = bid_of(before, "button", "Add item")
    after = session.step(f'click("{add}")').observation.axtree
    old_lines = [ln.strip() for ln in before.splitlines() if ln.strip().startswith("[")]
    for line in old_lines:
        bid = line.split("]")[0] + "]"
        assert bid in after
    new = [ln.strip() for ln in after.splitlines() if ln.strip().startswith("[") and ln.strip() not in old_lines]
    assert any("listitem" in ln for ln in new)
    numbers = [int(ln[1:].split("]")[0]) for ln in old_lines]
    assert int(new[-1][1:].split("]")[0]) > max(numbers)


def test_identical_actions_give_byte_identical_screenshots(open_session):
    actions = [
        'fill("#subject", "Duplicate charge")',
        'select_option("#prio", "Normal")',
        "click(\"role=button[name='Add item']\")",
        "click(\"role=button[name='Submit as Solved']\")",
        "scroll(0, 300)",
        'hover("#notify")',
    ]
    runs = []
    for _ in range(2):
        session = open_session()
        shots = [session.observe().screenshot]
        shots += [session.step(a).observation.screenshot for a in actions]
        runs.append(shots)
        session.close()
    assert runs[0] == runs[1]
    assert len(set(runs[0])) > 2  # the actions did change the picture


def test_messages_and_infeasible_reports_are_kept(open_session):
    session = open_session()
    session.step('send_msg_to_user("The refund was issued.")')
    assert session.messages == ["The refund was issued."] and session.done
    result = session.step('report_infeasible("No such order")')
    assert session.infeasible == "No such order"
    assert result.observation.chat[-2:] == [
        {"role": "assistant", "message": "The refund was issued."},
        {"role": "infeasible", "message": "No such order"},
    ]


def test_tabs_open_focus_and_close(open_session, page_server):
    session = open_session("/second.html")
    result = session.step("click(\"role=link[name='Open in a new tab']\")")
    assert result.error == ""
    assert [t["active"] for t in result.observation.tabs] == [False, True]
    assert session.step("new_tab()").observation.tabs[2] == {"index": 2, "url": "about:blank", "active": True}
    assert session.step("tab_focus(0)").observation.active_tab == 0
    assert session.step("tab_focus(5)").error == "no tab 5: 3 tab(s) are open (0-based)"
    obs = session.step("tab_close()").observation
    assert len(obs.tabs) == 2 and obs.active_tab == 1
    assert session.step('goto("/form.html")').observation.url == page_server + "/form.html"


def test_final_page_has_bids_and_the_served_form_values_never_unsaved_typing(open_session):
    session = open_session()
    session.step('fill("#subject", "Hello <world>")')
    session.step('check("#notify")')
    page = session.final_page()
    assert page["title"] == "Form test" and page["url"].endswith("/form.html")
    assert "Hello" not in page["html"]
    assert re.search(r'<input type="checkbox" id="notify" name="notify" bid="\d+">', page["html"])
    live = session.page.evaluate(HTML_JS)  # the agent's DOM observation keeps the live values
    assert 'value="Hello &lt;world&gt;"' in live
    assert re.search(r'<input type="checkbox" id="notify" name="notify" bid="\d+" checked="">', live)


def test_upload_takes_files_only_from_the_episode_folder(open_session, tmp_path):
    (tmp_path / "receipt.pdf").write_bytes(b"%PDF-1.4")
    session = open_session(files_dir=tmp_path)
    assert session.step('upload_file("#attach", "receipt.pdf")').error == ""
    assert "Attached receipt.pdf" in session.observe().axtree
    assert (
        session.step('upload_file("#attach", "../../etc/passwd")').error
        == "no file '../../etc/passwd' among this episode's files"
    )
    other = open_session()
    assert other.step('upload_file("#attach", "receipt.pdf")').error == "this episode offers no files to upload"


def test_coordinate_and_keyboard_actions(open_session):
    session = open_session()
    box = session.page.locator("#subject").bounding_box()
    assert session.step(f"mouse_click({box['x'] + 5}, {box['y'] + 5})").error == ""
    obs = session.step('keyboard_type("Typed")').observation
    assert "textbox 'Subject', value='Typed', focused" in obs.axtree
    assert obs.focused_bid == bid_of(obs.axtree, "textbox", "Subject")
    assert session.step('keyboard_press("Backspace")').error == ""
    assert "value='Type'" in session.observe().axtree


def test_a_crashed_page_raises_browser_crashed(open_session):
    session = open_session()
    with pytest.raises(Exception):  # noqa: B017 - the crash surfaces as whatever the navigation saw
        session.page.goto("chrome://crash", timeout=5000)
    with pytest.raises(BrowserCrashed):
        session.step("noop()")


def test_a_dead_browser_raises_browser_crashed_and_the_next_session_gets_a_new_one(open_session):
    session = open_session()
    session.browser.close()
    with pytest.raises(BrowserCrashed):
        session.step("noop()")
    fresh = open_session()
    assert fresh.browser is not session.browser and fresh.browser.is_connected()
    assert fresh.step("noop()").error == ""


def test_start_url_must_be_on_the_origin(browser, page_server):
    with pytest.raises(ValueError, match="not on the world's origin"):
        EpisodeSession.open(origin=page_server, start_url="http://example.com/", instruction="x")


def test_confirm_dialogs_are_accepted_and_shown_to_the_agent(open_session):
    session = open_session()
    obs = session.step("click(\"role=button[name='Delete']\")").observation
    assert "StaticText 'Deleted'" in obs.axtree
    assert {"role": "info", "message": "confirm dialog: Delete this ticket?"} in obs.chat


def test_frozen_time_fixes_the_page_clock(open_session):
    from datetime import UTC, datetime

    moment = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    session = open_session(frozen_time=moment)
    assert session.page.evaluate("Date.now()") == int(moment.timestamp() * 1000)
    assert session.step('check("#notify")').error == ""
    assert session.page.evaluate("new Date().toISOString()") == "2026-03-02T09:00:00.000Z"


def test_random_agent_on_a_real_page_repeats_itself_for_a_seed(open_session):
    from episodes.agents import RandomAgent

    def run():
        session = open_session()
        agent = RandomAgent(seed=21)
        agent.reset({"instruction": "explore"})
        obs, actions, shots = session.observe(), [], []
        for _ in range(6):
            action = agent.act(obs)
            result = session.step(action)
            actions.append((action, result.error))
            shots.append(result.observation.screenshot)
            obs = result.observation
        session.close()
        return actions, shots

    assert run() == run()


def test_a_click_whose_page_loads_slower_than_the_action_timeout_is_no_error(open_session, page_server):
    session = open_session(action_timeout_ms=500)
    result = session.step("click(\"role=link[name='Slow report']\")")
    assert result.error == ""
    assert result.timings["settled"] is True
    assert result.observation.url == page_server + "/api/slow?ms=1500"
    assert "ORD-2" in result.observation.axtree
