"""session_expiry, interstitial and layout_shift: they act at their trigger, are recorded, and can be recovered from."""

import re

import pytest

from replicas.worlds.faults import fault_events, recovery_outcomes, world_step
from replicas.worlds.faults.library import BANNER_PATH, DISMISS_PATH
from replicas.worlds.models import FaultEvent

pytestmark = pytest.mark.django_db


def sign_in(client):
    assert client.post("/login", {"next": "/account"}).status_code == 302
    assert client.get("/account").status_code == 200


def test_session_expiry_signs_the_agent_out_at_the_nth_request_and_sign_in_recovers(make_world, client_for):
    world = make_world(faults=[{"name": "session_expiry", "trigger": {"requests": 4}}])
    client = client_for(world)
    sign_in(client)  # requests 1 and 2
    assert client.get("/account").status_code == 200  # request 3: still signed in
    expired = client.get("/account")  # request 4: the session is gone
    assert expired.status_code == 302 and expired["Location"] == "/login?next=/account"
    assert client.get("/account").status_code == 302  # and stays gone
    [fired] = fault_events(world=world)
    assert (fired["event"], fired["at_request"], fired["detail"]) == ("fired", 4, {"had_session": True})
    assert fired["recovery"]["kind"] == "sign_in_again" and fired["recovery"]["path"] == "/login"
    sign_in(client)  # the same credentials work again
    assert [e["event"] for e in fault_events(world=world)] == ["fired", "recovered"]
    assert recovery_outcomes(fault_events(world=world))[0]["recovered"] is True


def test_session_expiry_on_a_step_trigger_ends_the_session_at_the_first_request_of_that_step(make_world, client_for):
    world = make_world(faults=[{"name": "session_expiry", "trigger": {"step": 2}}])
    client = client_for(world)
    sign_in(client)
    for index in (0, 1):
        assert world_step(world=world, index=index) == []
        assert client.get("/account").status_code == 200
    world_step(world=world, index=2)
    assert client.get("/account").status_code == 302
    [fired] = fault_events(world=world)
    assert (fired["at_step"], fired["at_request"]) == (2, 5)


def test_interstitial_appears_from_the_nth_page_until_dismissed(make_world, client_for):
    world = make_world(
        faults=[{"name": "interstitial", "params": {"kind": "cookie_banner"}, "trigger": {"requests": 2}}]
    )
    client = client_for(world)
    assert b"rg-interstitial" not in client.get("/p/one").content
    page = client.get("/p/two").content.decode()
    assert 'role="dialog" aria-modal="true"' in page and "We value your privacy" in page
    assert page.index('id="rg-interstitial-0"') < page.index("</body>")
    assert f'action="{DISMISS_PATH}"' in page and 'name="next" value="/p/two"' in page
    assert "/static/worlds/faults.js" in page and "/static/worlds/faults.css" in page
    assert b"rg-interstitial-0" in client.get("/p/three").content  # still there: it blocks until dismissed
    fragment = client.get(
        "/fragment", HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL=f"http://w-{world.token}.localhost:8000/p/three"
    ).content.decode()
    assert fragment.startswith("<tr><td>row</td></tr></body>")  # htmx answers get the modal out of band
    assert (
        '<template><div id="rg-faults-layer" hx-swap-oob="true"><div class="rg-backdrop" id="rg-interstitial-0"'
        in fragment
    )
    assert 'name="next" value="/p/three"' in fragment
    response = client.post(DISMISS_PATH, {"fault": "0", "choice": "reject", "next": "/p/three"})
    assert response.status_code == 303 and response["Location"] == "/p/three"
    assert b"rg-interstitial" not in client.get("/p/three").content
    events = fault_events(world=world)
    assert [(e["event"], e["detail"]) for e in events] == [
        ("fired", {"kind": "cookie_banner"}),
        ("recovered", {"choice": "reject"}),
    ]
    assert events[1]["route"] == DISMISS_PATH and events[1]["recovery"]["kind"] == "dismiss"


def test_dismissing_by_script_answers_204_and_is_recorded_once(make_world, client_for):
    world = make_world(faults=[{"name": "interstitial"}])
    client = client_for(world)
    client.get("/")
    for _ in range(2):
        assert (
            client.post(DISMISS_PATH, {"fault": "0", "choice": "dismiss"}, HTTP_X_REPLICAGYM_FAULT="1").status_code
            == 204
        )
    assert [e["event"] for e in fault_events(world=world)] == ["fired", "recovered"]


@pytest.mark.parametrize(
    "data, headers, status",
    [
        ({"fault": "0"}, {"HTTP_ORIGIN": "http://w-other.localhost:8000"}, 403),
        ({"fault": "1"}, {}, 400),
        ({"fault": "x"}, {}, 400),
        ({"fault": "0", "choice": "x" * 41}, {}, 400),
    ],
)
def test_bad_or_foreign_dismissals_change_nothing(make_world, client_for, data, headers, status):
    world = make_world(faults=[{"name": "interstitial"}, {"name": "server_error", "params": {"route": "^/nothing"}}])
    client = client_for(world)
    client.get("/")
    assert client.post(DISMISS_PATH, data, **headers).status_code == status
    assert client.get(DISMISS_PATH).status_code == 405
    assert [e["event"] for e in fault_events(world=world)] == ["fired"]
    assert b"rg-interstitial-0" in client.get("/").content


@pytest.mark.parametrize(
    "next_url", ["//evil.example", "/\t/evil.example", "https://evil.example/", "javascript:alert(1)"]
)
def test_a_dismissal_does_not_follow_a_next_to_another_origin(make_world, client_for, next_url):
    world = make_world(faults=[{"name": "interstitial"}])
    client = client_for(world)
    client.get("/")
    response = client.post(DISMISS_PATH, {"fault": "0", "next": next_url})
    assert response.status_code == 303 and response["Location"] == "/"  # a browser drops the tab: //evil.example


def test_a_dismissal_before_the_modal_appeared_is_refused(make_world, client_for):
    world = make_world(faults=[{"name": "interstitial", "trigger": {"step": 3}}])
    assert client_for(world).post(DISMISS_PATH, {"fault": "0"}).status_code == 400
    assert fault_events(world=world) == []


def test_layout_shift_is_injected_on_its_pages_only_and_a_banner_click_is_a_misclick(make_world, client_for):
    world = make_world(
        faults=[{"name": "layout_shift", "params": {"shift_px": 120, "times": 2}, "trigger": {"requests": 2}}]
    )
    client = client_for(world)
    pages = [client.get(f"/p/n{i}").content.decode() for i in range(4)]
    assert ["rg-layout-shift" in p for p in pages] == [False, True, True, False]
    config = re.search(r'<script type="application/json" id="rg-layout-shift">(.*?)</script>', pages[1])[1]
    assert '"shift_px": 120' in config and '"selector": "main"' in config and '"delay_ms": 0' in config
    assert f"{BANNER_PATH}?fault=0&next=%2Fp%2Fn1" in config
    assert recovery_outcomes(fault_events(world=world))[0]["recovered"] is True
    back = client.get(BANNER_PATH, {"fault": "0", "next": "/p/n1"})
    assert back.status_code == 303 and back["Location"] == "/p/n1"
    assert [e["event"] for e in fault_events(world=world)] == ["fired", "fired", "misclick"]
    assert recovery_outcomes(fault_events(world=world))[0]["recovered"] is False


def test_reserved_paths_do_not_count_as_requests(make_world, client_for):
    world = make_world(faults=[{"name": "interstitial", "trigger": {"requests": 2}}])
    client = client_for(world)
    client.get("/")
    client.post(DISMISS_PATH, {"fault": "0"})
    client.get("/__replicagym/faults/unknown")
    assert b"rg-interstitial-0" in client.get("/").content
    assert FaultEvent.objects.get(world=world).at_request == 2


def test_worlds_without_faults_are_served_untouched(world, client_for):
    client = client_for(world)
    assert b"rg-" not in client.get("/").content
    assert client.post(DISMISS_PATH, {"fault": "0"}).status_code == 404  # the replica's own 404


def test_pages_of_a_world_with_an_interstitial_still_to_come_carry_its_empty_layer(make_world, client_for):
    world = make_world(faults=[{"name": "interstitial", "trigger": {"step": 2}}])
    client = client_for(world)
    page = client.get("/").content.decode()
    assert '<div id="rg-faults-layer"></div>' in page and "/static/worlds/faults.js" in page
    assert client.get("/fragment", HTTP_HX_REQUEST="true").content == b"<tr><td>row</td></tr></body>"
    world_step(world=world, index=2)
    assert "rg-interstitial-0" in client.get("/fragment", HTTP_HX_REQUEST="true").content.decode()
    assert [e["event"] for e in fault_events(world=world)] == ["fired"]
