"""`manage.py bench --only render`: every bench page of the replica rendered signed in, timed, its queries counted."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from replicas.worlds.models import World
from replicas.worlds.registry import get_replica


@pytest.mark.django_db
def test_render_section_times_each_bench_page_of_the_replica(tmp_path):
    out = tmp_path / "bench.json"
    call_command("bench", "--replica", "testbed", "--only", "render", "--repeat", "2", "--out", str(out))
    render = json.loads(out.read_text())["sections"]["render"]
    assert "error" not in render, render.get("error")
    assert render["replica"] == "testbed" and render["requests"] == 2
    assert "/notes" in render["pages"] and any(path.startswith("/notes/") for path in render["pages"])
    for page in render["pages"].values():
        assert page["queries"] > 0  # the signed-in member and the notes are read from the world
        assert 0 < page["median_ms"] <= page["p95_ms"]
    assert not World.objects.filter(is_template=False).exists()


@pytest.mark.django_db
def test_a_bench_page_that_does_not_render_is_reported_and_the_others_measured(tmp_path, monkeypatch):
    config = get_replica("testbed")
    monkeypatch.setattr(type(config), "bench_pages", lambda self, world: ["/notes", "/no-such-page"])
    out = tmp_path / "bench.json"
    call_command("bench", "--replica", "testbed", "--only", "render", "--repeat", "1", "--out", str(out))
    render = json.loads(out.read_text())["sections"]["render"]
    assert list(render["pages"]) == ["/notes"]
    assert render["failed"] == {"/no-such-page": "GET /no-such-page answered 404, not 200"}


@pytest.mark.django_db
def test_the_section_fails_when_no_bench_page_renders(tmp_path, monkeypatch):
    config = get_replica("testbed")
    monkeypatch.setattr(type(config), "bench_pages", lambda self, world: ["/no-such-page"])
    out = tmp_path / "bench.json"
    with pytest.raises(CommandError, match="section\\(s\\) failed: render"):
        call_command("bench", "--replica", "testbed", "--only", "render", "--repeat", "1", "--out", str(out))
    assert "no bench page of testbed renders" in json.loads(out.read_text())["sections"]["render"]["error"]
    assert not World.objects.filter(is_template=False).exists()
