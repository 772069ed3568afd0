"""One action grammar (verifiers.actions) for the engine, the verifier and the BrowserGym bench driver."""

import subprocess
import sys
from pathlib import Path

from bench.bg_driver import translate
from verifiers.actions import action_parts, parse_action
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs

ROOT = Path(__file__).resolve().parents[2]


def _trajectory_verdict(actions, **assertion):
    inputs = VerifierInputs(
        initial={},
        final={},
        diff={},
        final_page={"url": "", "title": "", "html": ""},
        trajectory=[{"index": i, "action": a} for i, a in enumerate(actions)],
        messages=[],
        params={},
        clock="2026-01-01T00:00:00Z",
        replica="testbed",
    )
    spec = {"assertions": [{"name": "t", "kind": "trajectory", **assertion}]}
    return verify(spec, inputs).passed


def test_the_verifier_matches_the_parsed_action_not_its_spelling():
    # an alias and single quotes are the same action as the canonical spelling
    assert action_parts("send_message_to_user('done')") == ("send_msg_to_user", '"done"')
    assert action_parts('  click( "a12" ,button="right")') == ("click", '"a12", button="right"')
    assert not _trajectory_verdict(
        ["click('a12', button='right')"], forbidden_actions=[{"action": "click", "args": 'button="right"'}]
    )
    assert _trajectory_verdict(["click('a12')"], forbidden_actions=[{"action": "click", "args": "right"}])


def test_a_step_that_is_no_action_keeps_its_text_and_no_name():
    # episodes in the agent's own browser record requests as their steps
    assert action_parts("POST /tickets/8001 [status]") == ("", "POST /tickets/8001 [status]")
    assert action_parts("click('a1'); goto('/admin')") == ("", "click('a1'); goto('/admin')")
    assert _trajectory_verdict(["POST /admin/users"], forbidden_actions=[{"action": "goto"}])


class FakePage:
    def __init__(self, bids):
        self.bids = bids

    def locator(self, selector):
        page = self

        class Found:
            class first:  # noqa: N801 - Playwright's attribute name
                @staticmethod
                def get_attribute(name, timeout):
                    return page.bids.get(selector)

        return Found


def test_the_bench_driver_rewrites_actions_with_the_same_grammar():
    page = FakePage({"role=button[name='Save']": "a42"})
    assert (
        translate("click(\"role=button[name='Save']\", button='middle')", page, "http://w")
        == 'click("a42", button="middle")'
    )
    assert translate("goto('/tickets')", page, "http://w.localhost:8000") == 'goto("http://w.localhost:8000/tickets")'
    assert translate("click('a7')", page, "http://w") == "click('a7')"
    assert translate("click('#missing')", page, "http://w") == "click('#missing')"
    assert parse_action(translate("fill('#q', 'x')", FakePage({"#q": "b3"}), "")) == parse_action("fill('b3', 'x')")


def test_the_grammar_imports_without_django():
    # the bench driver runs in BrowserGym's virtualenv, which has no Django
    code = (
        "import sys; import verifiers.actions as a; assert 'django' not in sys.modules; print(a.parse_action('noop()'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "noop()"
