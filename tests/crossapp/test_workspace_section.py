"""A cross-app task's workspace section beyond its replicas: where the other tabs start, and the faults armed in
each member (issue 32). No browser: the tab URLs the engine is given, the shape checks, the armed worlds."""

import copy
import json
from types import SimpleNamespace

import pytest

from catalogue.packs import WORKSPACE_PACK, pack_dir, shape_errors
from episodes.driver import session_open, workspace_start_pages
from replicas.worlds.faults import FaultSpecError
from replicas.worlds.models import Workspace, World
from replicas.worlds.routing import world_origin
from replicas.worlds.services import InvalidWorldRequest
from replicas.worlds.workspaces import workspace_create, workspace_world

SLOW = {"name": "slow_response", "params": {"delay_ms": 800, "times": 5}}


def _spec(name: str = "escalate-ticket-to-work-item") -> dict:
    return json.loads((pack_dir(WORKSPACE_PACK) / f"{name}.json").read_text())


def test_other_tabs_start_where_the_workspace_section_says_filled_from_the_params():
    spec = _spec()
    spec["workspace"] = {"replicas": ["supportdesk", "shop", "board"], "start_pages": {"board": "/browse/{work_item}"}}
    instance = SimpleNamespace(spec=spec, params={"work_item": "AGENT-7"})
    assert workspace_start_pages(instance) == ["/", "/browse/AGENT-7"]  # the shop, unnamed, at its home page
    assert workspace_start_pages(SimpleNamespace(spec={"replica": "board"}, params={})) == []


@pytest.mark.django_db
def test_the_engine_opens_each_other_app_at_its_start_page(monkeypatch):
    group = workspace_create(replicas=["supportdesk", "board"], seed=7, variant="small")
    desk, board = (workspace_world(group, r) for r in ("supportdesk", "board"))
    opened = {}
    monkeypatch.setattr("episodes.driver.replica_server", lambda: ("127.0.0.1", 4321))
    monkeypatch.setattr("episodes.driver.EpisodeSession.open", lambda **kwargs: opened.update(kwargs))
    session_open(world=desk, start_page="/agent", instruction="x", other_worlds=[board], other_pages=["/browse/A-1"])
    assert opened["start_url"] == world_origin(desk, 4321) + "/agent"
    assert opened["other_tabs"] == (world_origin(board, 4321) + "/browse/A-1",)
    session_open(world=desk, start_page="/agent", instruction="x", other_worlds=[board])
    assert opened["other_tabs"] == (world_origin(board, 4321) + "/",)  # none given: the app's home page


def test_the_shape_check_refuses_a_start_page_for_the_first_tab_or_a_stranger_and_faults_on_a_stranger():
    for section, path, message in (
        ({"start_pages": {"supportdesk": "/agent"}}, "workspace.start_pages.supportdesk", "task's start_page"),
        ({"start_pages": {"shop": "/"}}, "workspace.start_pages.shop", "must name one of board"),
        ({"faults": {"shop": [SLOW]}}, "workspace.faults.shop", "must name one of supportdesk, board"),
        ({"start_pages": {"board": "//example.org/"}}, "workspace.start_pages.board", "path starting with /"),
        ({"faults": {"board": {"name": "slow_response"}}}, "workspace.faults.board", "list of fault specs"),
    ):
        spec = _spec()
        spec["workspace"].update(copy.deepcopy(section))
        errors = shape_errors(spec, WORKSPACE_PACK, spec["slug"])
        assert any(p == path and message in m for p, m in errors), (section, errors)
    spec = _spec()
    spec["workspace"].update(start_pages={"board": "/browse/{work_item}"}, faults={"board": [SLOW]})
    assert shape_errors(spec, WORKSPACE_PACK, spec["slug"]) == []
    spec["faults"] = [SLOW]  # armed on no member: refused, and the message says where faults go
    assert [p for p, m in shape_errors(spec, WORKSPACE_PACK, spec["slug"]) if "workspace.faults" in m] == ["faults"]


@pytest.mark.django_db
def test_faults_are_armed_on_the_member_they_name_only():
    group = workspace_create(replicas=["supportdesk", "board"], seed=7, variant="small", faults={"board": [SLOW]})
    board, desk = workspace_world(group, "board"), workspace_world(group, "supportdesk")
    assert [f["name"] for f in board.faults] == ["slow_response"] and board.faults[0]["params"]["delay_ms"] == 800
    assert desk.faults == []
    before = (Workspace.objects.count(), World.objects.count())
    with pytest.raises(FaultSpecError):
        workspace_create(replicas=["supportdesk", "board"], seed=7, variant="small", faults={"board": [{"name": "x"}]})
    with pytest.raises(InvalidWorldRequest, match="members of the workspace"):
        workspace_create(replicas=["supportdesk", "board"], seed=7, variant="small", faults={"shop": [SLOW]})
    assert (Workspace.objects.count(), World.objects.count()) == before  # a bad spec makes nothing
