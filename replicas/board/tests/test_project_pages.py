"""The project's pages (definition of done, on-call runbook): seeded per world, listed in the project's
sidebar, rendered from the product's wiki markup with people by today's name."""

import re

import pytest

from replicas.board import seed
from replicas.board.models import Person, ProjectPage
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.django_db
S = re.S


@pytest.fixture
def board_world(make_world):
    return make_world(replica="board", seed=7, variant="small")


@pytest.fixture
def client_in(board_world, world_client):
    return world_client(board_world)


def _runbook(world, key="AGENT") -> ProjectPage:
    with bound_world(world):
        return ProjectPage.objects.select_related("project").get(project__key=key, slug="on-call-runbook")


def test_every_project_has_its_pages_in_the_sidebar(client_in, board_world):
    with bound_world(board_world):
        pages = list(ProjectPage.objects.select_related("project").order_by("project__key", "position"))
    assert [(p.project.key, p.slug) for p in pages] == [
        (key, slug) for key, _, _ in sorted(seed.PROJECTS) for slug in ("definition-of-done", "on-call-runbook")
    ]
    board = client_in.get("/projects/WEB/board").content.decode()
    assert '<a class="sidebar__item" href="/projects/WEB/pages/on-call-runbook">' in board
    assert "</svg>Definition of done</a>" in board and "</svg>On-call runbook</a>" in board
    page = client_in.get("/projects/WEB/pages/definition-of-done").content.decode()
    assert 'href="/projects/WEB/pages/definition-of-done" aria-current="page"' in page
    assert client_in.get("/projects/WEB/pages/nope").status_code == 404
    assert client_in.get("/projects/NOPE/pages/on-call-runbook").status_code == 404


def test_the_runbook_names_the_on_call_engineer_by_todays_name(client_in, board_world):
    runbook = _runbook(board_world)
    oncall = re.search(r"On call: \[~([\w.-]+)\]", runbook.body)[1]
    with bound_world(board_world):
        person = Person.objects.get(username=oncall)
        assert not person.is_admin  # the admin is who tasks sign in as: never their own on-call
        person.name = "Ada Renamed"
        person.save(update_fields=["name"])
    html = client_in.get("/projects/AGENT/pages/on-call-runbook").content.decode()
    assert f'On call: <span class="mention" data-username="{oncall}">@Ada Renamed</span>' in html
    priority = re.search(r"priority to \*(\w+)\*", runbook.body)[1]
    assert priority in seed.ESCALATION_PRIORITIES and f"<strong>{priority}</strong>" in html


def test_the_pages_values_are_drawn_per_world(make_world):
    """What a task reads on a page is not one constant: across seeds the runbooks and definitions differ."""
    drawn = set()
    for s in (7, 8, 9, 10):
        world = make_world(replica="board", seed=s, variant="small")
        with bound_world(world):
            bodies = dict(ProjectPage.objects.filter(project__key="AGENT").values_list("slug", "body"))
        done = re.search(
            r"Fix versions\* to \{\{(.+?)\}\}.*?the label \{\{(.+?)\}\}", bodies["definition-of-done"], re.S
        )
        escalation = re.search(r"priority to \*(\w+)\*.*?the label \{\{(.+?)\}\}", bodies["on-call-runbook"], re.S)
        drawn.add((done.groups(), escalation.groups()))
    assert len(drawn) > 1
