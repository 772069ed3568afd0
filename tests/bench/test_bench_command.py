"""`manage.py bench`: runs with tiny sizes and writes a valid JSON report (no timing asserts)."""
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.measure import summary
from bench.report import checks
from replicas.worlds.models import World


def test_summary_gives_median_p95_min_max_and_count():
    doc = summary([5.0, 1.0, 3.0, 2.0, 4.0])
    assert doc == {"n": 5, "median_ms": 3.0, "p95_ms": 5.0, "min_ms": 1.0, "max_ms": 5.0}
    assert summary([])["median_ms"] is None


def test_checks_judge_only_the_sections_that_ran():
    sections = {
        "reset": {"variants": {"default": {"median_ms": 12.0}, "100k": {"median_ms": 700.0}}},
        "step": {"ratio_to_raw": 1.2},
        "render": {"pages": {"/cart": {"median_ms": 9.0}, "/dp/B1": {"median_ms": 31.5}}},
    }
    verdicts = {c["check"]: c["passed"] for c in checks(sections)}
    assert verdicts == {
        "reset median at default (ms)": True,
        "reset median at 100k (ms)": False,
        "render median of the slowest page, /dp/B1 (ms)": False,
        "step / raw Playwright step": True,
    }
    sections["render"]["pages"]["/dp/B1"]["median_ms"] = 30.0
    assert {c["check"]: c["passed"] for c in checks(sections)}["render median of the slowest page, /dp/B1 (ms)"]


@pytest.mark.django_db
def test_reset_section_writes_json_with_rows_and_timings(tmp_path):
    out = tmp_path / "bench.json"
    call_command("bench", "--only", "reset", "--variants", "small", "--repeat", "2", "--out", str(out))
    report = json.loads(out.read_text())
    small = report["sections"]["reset"]["variants"]["small"]
    assert small["n"] == 2 and small["rows"] > 100
    assert small["median_ms"] > 0 and small["p95_ms"] >= small["median_ms"]
    assert report["environment"]["database"] in ("sqlite", "postgresql")
    # every timed world was deleted again: only the template is left
    assert not World.objects.filter(is_template=False).exists()


def test_unknown_section_is_refused_before_anything_runs(tmp_path):
    with pytest.raises(CommandError, match="unknown section"):
        call_command("bench", "--only", "reset,warp", "--out", str(tmp_path / "x.json"))
    assert not (tmp_path / "x.json").exists()


@pytest.mark.django_db(transaction=True)
def test_server_section_measures_pages_served_by_a_real_server(tmp_path):
    out = tmp_path / "bench.json"
    call_command("bench", "--only", "server", "--requests", "20", "--world-variant", "small", "--servers", "inprocess",
                 "--out", str(out))
    server = json.loads(out.read_text())["sections"]["server"]
    assert "error" not in server, server.get("error")
    inprocess = server["servers"]["inprocess"]
    assert inprocess["ok"] > 0 and inprocess["requests"] <= 20
    assert inprocess["latency"]["p95_ms"] > 0


class _FakeLocator:
    def __init__(self, bids, selector):
        self.bids, self.selector = bids, selector

    @property
    def first(self):
        return self

    def get_attribute(self, name, timeout=None):
        assert name == "bid"
        if self.selector not in self.bids:
            raise TimeoutError(f"no element for {self.selector}")
        return self.bids[self.selector]


class _FakePage:
    def __init__(self, bids):
        self.bids = bids

    def locator(self, selector):
        return _FakeLocator(self.bids, selector)


def test_browsergym_driver_rewrites_selectors_to_its_bids_and_paths_to_urls():
    from bench.bg_driver import translate

    page = _FakePage({"role=button[name='Sign in']": "21", "#id_email": "14"})
    origin = "http://w-abc.localhost:8123"
    assert translate("click(\"role=button[name='Sign in']\")", page, origin) == 'click("21")'
    assert translate('fill("#id_email", "a@b.example")', page, origin) == 'fill("14", "a@b.example")'
    assert translate('goto("/agent/tickets/8003")', page, origin) == f'goto("{origin}/agent/tickets/8003")'
    # bids and non-element actions pass through; an unknown selector is left for BrowserGym to fail
    assert translate('click("a51")', page, origin) == 'click("a51")'
    assert translate('send_msg_to_user("done")', page, origin) == 'send_msg_to_user("done")'
    assert translate('click("#missing")', page, origin) == 'click("#missing")'


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_step_section_compares_engine_steps_with_raw_playwright_on_one_page(tmp_path):
    out = tmp_path / "bench.json"
    call_command("bench", "--only", "step", "--repeat", "1", "--world-variant", "small", "--out", str(out))
    step = json.loads(out.read_text())["sections"]["step"]
    assert set(step["by_kind"]) == {"fill", "click", "navigate"}
    for kind in step["by_kind"].values():
        assert kind["engine"]["n"] == 1 and kind["raw"]["n"] == 1
    assert step["ratio_to_raw"] > 0 and step["axtree_lines"] > 10 and step["screenshot_bytes"] > 1000
