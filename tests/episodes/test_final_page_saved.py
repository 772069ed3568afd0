"""The final page the verifier reads holds what was saved, never what was typed and not saved."""

import pytest

from episodes.engine.browser import EpisodeSession, shared_browser
from episodes.engine.observation import HTML_JS
from tests.episodes.browserless import BrowserlessSession
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs

# sqlite_only: a static page and the verifier, no database
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only]

FORM = """<!DOCTYPE html><html><head><title>Ticket #8003</title></head><body>
<form method="post"><label for="c">Comment</label><textarea id="c" name="c">Waiting on the customer</textarea>
<label for="s">Subject</label><input id="s" name="s" value="Charged twice">
<label><input type="checkbox" name="urgent"> Urgent</label><button>Save</button></form></body></html>"""
EMPTY = {"replica": "testbed", "tables": {}}


def page_passes(html: str, **assertion) -> bool:
    spec = {"assertions": [{"name": "page", "kind": "page", **assertion}]}
    inputs = VerifierInputs(
        initial=EMPTY,
        final=EMPTY,
        final_page={"url": "http://w/agent/tickets/8003", "title": "", "html": html},
        replica="testbed",
        clock="2026-03-02T09:00:00Z",
        params={},
    )
    return verify(spec, inputs).passed


def test_typing_refund_issued_without_saving_does_not_satisfy_a_text_check():
    context = shared_browser().new_context()
    try:
        page = context.new_page()
        page.set_content(FORM)
        page.fill("#c", "Refund issued")
        page.fill("#s", "Refund issued")
        page.check("input[name=urgent]")
        session = BrowserlessSession()
        session.page = page
        final = EpisodeSession.final_page(session)  # the engine's own capture, on this page
        live = page.evaluate(HTML_JS)  # what the agent's own DOM observation shows
    finally:
        context.close()
    assert "Refund issued" in live and "Refund issued" not in final["html"]
    text_check = {"element": {"text": "Refund issued"}, "state": "present"}
    assert page_passes(live, **text_check)  # the capture before this fix let it pass
    assert not page_passes(final["html"], **text_check)
    assert page_passes(final["html"], element={"text": "Waiting on the customer"}, state="present")
    assert page_passes(final["html"], element={"label": "Subject"}, value="Charged twice")
    assert page_passes(final["html"], element={"label": "Urgent"}, checked=False)
    assert final["title"] == "Ticket #8003"
