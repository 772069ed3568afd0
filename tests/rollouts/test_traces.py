"""Playwright traces: opt-in per episode or run, stored under DATA_DIR with the episode, a zip holding the trace."""

import json
import zipfile

import pytest
from django.conf import settings

from catalogue.packs import task_current
from episodes.driver import episode_play
from episodes.models import Episode, Run
from episodes.runs import RunError, run_create, run_episodes_create
from tests.episodes.fixtures import sync_test_pack

# sqlite_only: the trace files Playwright writes beside an episode; the episodes and runs themselves are tested on
# both backends
pytestmark = pytest.mark.sqlite_only


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_traced_episode_stores_a_zip_holding_its_playwright_trace():
    sync_test_pack()
    status = task_current("testbed.open-note").params["status"]
    episode = episode_play(
        task_id="testbed.open-note", actions=[f'send_msg_to_user("Note #3 is {status}.")'], trace=True
    )
    episode.refresh_from_db()
    assert episode.status == "succeeded" and episode.trace_path == f"traces/episode-{episode.pk}.zip"
    path = settings.DATA_DIR / episode.trace_path
    with zipfile.ZipFile(path) as trace:
        names = trace.namelist()
        assert "trace.trace" in names and "trace.network" in names
        events = [json.loads(line) for line in trace.read("trace.trace").decode().splitlines() if line.strip()]
        assert events[0]["type"] == "context-options"
        # the start page was loaded and captured: DOM snapshots and screencast frames of /notes/3
        assert any(e.get("type") == "frame-snapshot" and e["snapshot"]["frameUrl"].endswith("/notes/3") for e in events)
        assert any(e.get("type") == "screencast-frame" for e in events)
        assert any(name.startswith("resources/") for name in names)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_episode_is_not_traced_unless_asked():
    sync_test_pack()
    status = task_current("testbed.open-note").params["status"]
    traces = settings.DATA_DIR / "traces"
    # compared with what was there before: an earlier traced episode of this worker may have had the same id
    before = {(p.name, p.stat().st_mtime_ns) for p in traces.glob("*.zip")}
    episode = episode_play(task_id="testbed.open-note", actions=[f'send_msg_to_user("Note #3 is {status}.")'])
    episode.refresh_from_db()
    assert episode.trace_path == ""
    assert {(p.name, p.stat().st_mtime_ns) for p in traces.glob("*.zip")} == before


@pytest.mark.django_db
def test_a_traced_run_traces_each_episode_and_a_bad_trace_flag_is_refused():
    sync_test_pack()
    with pytest.raises(RunError, match="trace must be true or false"):
        run_create(task_filter="testbed.open-note", agent="oracle", trace="yes")
    assert not Run.objects.exists()
    run = run_create(task_filter="testbed.open-note", agent="oracle", attempts=2, trace=True)
    episodes = run_episodes_create(run_id=run.pk, enqueue=False)
    assert [e.trace for e in episodes] == [True, True]
    assert not Episode.objects.filter(trace=False).exists()
