"""The episode viewer shows, per step, the tabs open after it with their apps' names and the focused one, and
a checkpoints section that names the step reaching each milestone (cross-app episodes, issue 32). Rendered
from Step rows made here: no browser."""

import re
from types import SimpleNamespace

import pytest
from django.utils.module_loading import import_string
from replicagym.reports.screenshots import TourError, showcase_steps, tour
from replicagym.reports.viewer import box_in_picture

from catalogue.models import Task
from episodes.driver import _step_tabs
from episodes.management.commands.screenshots import PLATFORM_TOURS
from replicas.worlds.routing import world_origin

pytestmark = pytest.mark.django_db

DESK = "http://w-desk1.worlds.test:8000"
BOARD = "http://w-board1.worlds.test:8000"


def _tabs(html: str) -> list[tuple[str, str, str]]:
    """(data-app, data-active, text) of each tab in a step's strip."""
    found = re.findall(
        r'<span class="tab[^"]*" data-testid="tab" data-app="([^"]*)" data-active="(\w+)"[^>]*>(.*?)</span></span>',
        html,
    )
    return [(app, active, re.sub(r"<[^>]+>", "", text).strip()) for app, active, text in found]


def _steps(page: str) -> list[str]:
    """The page's step items, in order."""
    return page.split('data-testid="timeline"', 1)[1].split('<li class="border rounded-2 mb-3" data-step=')[1:]


def test_each_step_shows_its_tabs_with_app_names_and_the_focused_app(client, author_user, finished_run):
    client.force_login(author_user)
    episode = finished_run({"testbed.complete-note": [True]}, attempts=1).episodes.get()
    assert episode.steps.count() == 2
    episode.steps.filter(index=0).update(
        tabs=[
            {"url": f"{DESK}/agent/tickets/12", "active": True, "app": "supportdesk"},
            {"url": f"{BOARD}/login?next=/", "active": False, "app": "board"},
        ]
    )
    episode.steps.filter(index=1).update(
        tabs=[
            {"url": f"{DESK}/agent/tickets/12", "active": False, "app": "supportdesk"},
            {"url": f"{BOARD}/browse/AGENT-3", "active": True, "app": "board"},
            {"url": "https://example.org/x", "active": False, "app": ""},
        ]
    )
    first, second = _steps(client.get(f"/runs/episodes/{episode.pk}/").content.decode())
    assert _tabs(first) == [
        ("supportdesk", "true", "Support desk /agent/tickets/12"),
        ("board", "false", "Issue board /login?next=/"),
    ]
    assert _tabs(second) == [
        ("supportdesk", "false", "Support desk /agent/tickets/12"),
        ("board", "true", "Issue board /browse/AGENT-3"),
        ("", "false", "other page https://example.org/x"),  # a page outside the workspace: its whole URL
    ]
    assert re.search(r'data-testid="focused-app"[^>]*>Support desk<', first)
    assert re.search(r'data-testid="focused-app"[^>]*>Issue board<', second)

    # one tab: nothing to tell apart, so no strip, but the app is named; no tabs kept (an older step): neither
    episode.steps.filter(index=0).update(tabs=[{"url": f"{BOARD}/", "active": True, "app": "board"}])
    episode.steps.filter(index=1).update(tabs=None)
    first, second = _steps(client.get(f"/runs/episodes/{episode.pk}/").content.decode())
    assert _tabs(first) == [] and re.search(r'data-testid="focused-app"[^>]*>Issue board<', first)
    assert 'data-testid="tabs"' not in second and 'data-testid="focused-app"' not in second


def test_the_checkpoints_section_names_the_step_that_reached_each(client, author_user, finished_run):
    client.force_login(author_user)
    episode = finished_run({"testbed.complete-note": [True]}, attempts=1).episodes.get()
    task = Task.objects.get(pk=episode.task_id)
    spec = {**task.spec, "verifier": {**task.spec["verifier"]}}
    spec["verifier"]["checkpoints"] = [
        {"name": "marked done", "points": 2, "assertions": ["the note is done"]},
        {"name": "left alone", "assertions": ["nothing else changed"]},
    ]
    Task.objects.filter(pk=task.pk).update(spec=spec)
    episode.steps.filter(index=1).update(checkpoints={"new": [0], "reward": 0.5})
    episode.verdict = {
        **episode.verdict,
        "checkpoints": [{"name": "marked done", "points": 2, "reached": True}, {"name": "left alone", "points": 1}],
        "partial_completion": 0.3333,
    }
    episode.verdict["checkpoints"][1]["reached"] = False
    episode.save(update_fields=["verdict"])
    page = client.get(f"/runs/episodes/{episode.pk}/").content.decode()
    section = page.split('data-testid="checkpoints"', 1)[1].split("</section>", 1)[0]
    rows = section.split('data-testid="checkpoint"')[1:]
    assert len(rows) == 2
    assert 'data-reached="true"' in rows[0] and "1. marked done" in rows[0] and "2 points" in rows[0]
    assert '<a href="#step-2">at step 2</a>' in rows[0]
    assert 'data-reached="false"' in rows[1] and "2. left alone" in rows[1] and "at step" not in rows[1]
    assert 'data-testid="partial-completion">0.333<' in section
    assert 'id="step-2"' in page  # the link's target
    # a task without checkpoints: no section
    Task.objects.filter(pk=task.pk).update(spec={**spec, "verifier": {**spec["verifier"], "checkpoints": []}})
    assert 'data-testid="checkpoints"' not in client.get(f"/runs/episodes/{episode.pk}/").content.decode()


def test_the_driver_keeps_each_tab_with_the_app_whose_world_it_is_on():
    worlds = [SimpleNamespace(token="desk1", replica="supportdesk"), SimpleNamespace(token="board1", replica="board")]
    desk, board = (world_origin(w, 8000) for w in worlds)
    elsewhere = world_origin(SimpleNamespace(token="other1"), 8000)
    obs = SimpleNamespace(
        tabs=[
            {"index": 0, "url": f"{desk}/agent/tickets/12", "active": False},
            {"index": 1, "url": f"{board}/browse/AGENT-3", "active": True},
            {"index": 2, "url": f"{elsewhere}/", "active": "yes"},
            "not a tab",
        ]
    )
    assert _step_tabs(obs, worlds) == [
        {"url": f"{desk}/agent/tickets/12", "active": False, "app": "supportdesk"},
        {"url": f"{board}/browse/AGENT-3", "active": True, "app": "board"},
        {"url": f"{elsewhere}/", "active": False, "app": ""},  # not one of the episode's worlds
    ]
    assert _step_tabs(SimpleNamespace(tabs=[]), worlds) is None
    assert _step_tabs({"url": "x"}, worlds) is None  # an observation without tabs


@pytest.mark.parametrize(
    "box, inside",
    [
        ({"left": 22.6, "top": 75.5, "width": 8.5, "height": 3.5}, True),
        ({"left": 22.6, "top": 112.5, "width": 42.7, "height": 9.0}, False),  # below the fold before the action
        ({"left": 95.0, "top": 98.0, "width": 10.0, "height": 10.0}, True),  # partly in: clipped to the picture
        ({"left": -20.0, "top": 10.0, "width": 20.0, "height": 5.0}, False),
        (None, False),
    ],
)
def test_a_target_outside_its_picture_gets_no_outline(box, inside):
    assert box_in_picture(box) is inside


def _step(index, focused=None, new=()):
    tabs = [{"app": app, "active": app == focused, "url": "/"} for app in ("supportdesk", "board")] if focused else None
    return SimpleNamespace(index=index, tabs=tabs, checkpoints={"new": list(new), "reward": 0.0})


def test_the_viewer_tour_shows_a_step_on_each_app_and_the_first_checkpoint():
    # desk, desk, board (switched), board, board (reached a checkpoint), desk (switched), desk (reached another)
    steps = [_step(0, "supportdesk"), _step(1, "supportdesk"), _step(2, "board"), _step(3, "board")]
    steps += [_step(4, "board", [0]), _step(5, "supportdesk"), _step(6, "supportdesk", [1])]
    # a step that switched shows the other app's page: the picture of an app is of a step that stayed on it
    assert showcase_steps(steps) == {"desk": 1, "board": 3, "checkpoint": 4}
    with pytest.raises(TourError, match="no step for board, checkpoint"):
        showcase_steps([_step(0, "supportdesk"), _step(1, "supportdesk")])
    with pytest.raises(TourError, match="no step for board, desk"):  # tabs not kept
        showcase_steps([_step(0), _step(1, new=[0])])


def test_manage_py_screenshots_takes_the_viewer_tour_by_name():
    assert import_string(PLATFORM_TOURS["workspace-viewer"]) is tour
