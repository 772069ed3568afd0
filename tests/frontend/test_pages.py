"""The platform's pages render on the shared layout, for the roles they admit, with the data they promise."""

import re

import pytest

from catalogue.models import Task
from episodes.models import Episode, Run
from replicas.worlds.registry import replicas
from tests.episodes.fixtures import sync_test_pack

pytestmark = pytest.mark.django_db


@pytest.fixture
def author_client(client, author_user):
    client.force_login(author_user)
    return client


def test_layout_names_the_user_their_roles_and_the_sections_their_roles_open(author_client):
    html = author_client.get("/").content.decode()
    assert 'data-testid="signed-in-user">Signed in as <strong>author</strong> (author)<' in html
    assert NAV_LINK.findall(html) == [
        ("/", "Dashboard"),
        ("/tasks/", "Tasks"),
        ("/suites/", "Suites"),
        ("/runs/", "Runs"),
        ("/annotate/review/", "Annotation"),  # reviewing is the author's part of annotation
        ("/worlds/", "Worlds"),
        ("/settings/", "Settings"),
    ]
    assert 'href="/" aria-current="page">Dashboard</a>' in html
    assert "frontend/vendor/primer.css" in html and "frontend/vendor/htmx.min.js" in html
    assert "X-CSRFToken" in html  # htmx requests carry the CSRF token
    assert 'action="/accounts/logout/"' in html


NAV_LINK = re.compile(r'<a class="Header-link mr-3 rg-nav" href="([^"]+)"[^>]*>([^<]+)</a>')


@pytest.mark.parametrize("who", ["author_user", "annotator_user", "admin_user"])
def test_every_section_the_navigation_offers_opens_and_every_one_it_hides_is_refused(who, client, request):
    from frontend.navigation import SECTIONS

    client.force_login(request.getfixturevalue(who))
    start = "/settings/"  # a page every role with a sign-in opens
    offered = dict((label, href) for href, label in NAV_LINK.findall(client.get(start).content.decode()))
    assert offered, "the navigation offers nothing"
    for label, pages in SECTIONS:
        if label in offered:
            assert client.get(offered[label]).status_code == 200, (who, label)
        else:
            assert all(client.get(page).status_code == 403 for page in pages), (who, label)
    if who == "annotator_user":
        assert offered == {"Dashboard": "/", "Annotation": "/annotate/", "Settings": "/settings/"}


def test_a_403_page_says_why_who_is_signed_in_and_where_to_go(client, annotator_user):
    client.force_login(annotator_user)
    response = client.get("/tasks/")
    page = response.content.decode()
    assert response.status_code == 403
    assert "You cannot open this page" in page and "This page is for the roles admin or author." in page
    assert "signed in as <strong>annotator</strong>, with the roles: annotator" in page
    assert '<a href="/annotate/">Annotation</a>' in page and '<a href="/tasks/">' not in page


def test_a_user_with_no_role_is_told_to_ask_for_one(client, outsider_user):
    client.force_login(outsider_user)
    page = client.get("/").content.decode()
    assert "Ask an admin for a role" in page and "no role" in page


def test_a_404_page_names_the_address_and_the_api_keeps_answering_json(client, author_user):
    client.force_login(author_user)
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "Nothing answers at /no-such-page/" in response.content.decode()
    api = client.get("/api/no-such-operation")
    assert api.status_code == 404 and api["Content-Type"] == "application/json"


def test_the_500_page_says_what_happened_and_shows_no_internals(rf):
    from frontend.views.errors import server_error

    page = server_error(rf.get("/tasks/")).content.decode()
    assert "Something went wrong on our side" in page and "server log" in page
    assert "Traceback" not in page and "SECRET" not in page
    api = server_error(rf.get("/api/episodes"))
    assert api.status_code == 500 and api["Content-Type"] == "application/json"


def test_sign_in_page_uses_the_layout_and_signs_in(client, author_user):
    page = client.get("/accounts/login/").content.decode()
    assert "primer.css" in page and "Sign in to ReplicaGym" in page
    response = client.post("/accounts/login/", {"username": "author", "password": "pw-123456"})
    assert response.status_code == 302 and client.get("/").status_code == 200
    client.logout()
    bad = client.post("/accounts/login/", {"username": "author", "password": "wrong"}, follow=True)
    assert "didn&#x27;t match" in bad.content.decode() or "didn't match" in bad.content.decode()


def test_dashboard_shows_replicas_variants_suites_and_queue_depth(author_client):
    sync_test_pack()
    task = Task.objects.filter(is_current=True).first()
    Episode.objects.create(task=task, agent="oracle", params=task.params)
    html = author_client.get("/").content.decode()
    for config in replicas().values():
        assert f'data-testid="replica-{config.label}"' in html
        for variant in config.variants:
            assert f'<span class="Label mr-1">{variant}</span>' in html
    assert 'data-testid="queue-queued">1<' in html
    assert f'data-testid="suite-{task.suites.first().name}"' in html


def test_annotators_see_the_dashboard_but_not_the_catalogue(client, annotator_user):
    client.force_login(annotator_user)
    assert client.get("/").status_code == 200
    assert client.get("/tasks/").status_code == 403


def test_task_list_filters_by_replica_difficulty_tag_and_search(author_client):
    sync_test_pack()
    tasks = list(Task.objects.filter(is_current=True))
    one = tasks[0]
    html = author_client.get("/tasks/", {"q": one.title}).content.decode()
    assert one.task_id in html
    others = [t for t in tasks if t.title != one.title and one.title not in t.title]
    assert all(t.task_id not in html for t in others)
    none = author_client.get("/tasks/", {"replica": "no-such-replica"}).content.decode()
    assert "No task matches." in none
    fragment = author_client.get("/tasks/", {"difficulty": one.difficulty}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in fragment and one.task_id in fragment


def test_the_catalogue_pass_rate_is_the_latest_runs_and_never_counts_selfcheck_episodes(author_client):
    """A passing test run showed 25 %: its do-nothing, negative and random episodes fail by design."""
    from frontend.models import SelfCheckEpisode, SelfCheckRun
    from frontend.stats import task_pass_rates

    sync_test_pack()
    task = Task.objects.filter(is_current=True).order_by("task_id").first()

    def episodes(statuses, run=None):
        return [
            Episode.objects.create(task=task, agent="oracle", params=task.params, status=s, run=run) for s in statuses
        ]

    selfcheck = SelfCheckRun.objects.create(task=task)
    for i, episode in enumerate(episodes(["succeeded", "failed", "failed", "failed"])):
        SelfCheckEpisode.objects.create(run=selfcheck, label=f"e{i}", expect="any", episode=episode)
    assert task.task_id not in task_pass_rates([task.task_id])  # test-run episodes alone: no rate

    episodes(["succeeded", "failed"])  # played outside any run (the API)
    rate = task_pass_rates([task.task_id])[task.task_id]
    assert (rate["passed"], rate["total"], rate["percent"], rate["run"]) == (1, 2, 50, None)

    older, newer = (Run.objects.create(task_filter=task.task_id, agent="oracle") for _ in range(2))
    episodes(["failed", "failed", "failed"], run=older)
    episodes(["succeeded", "succeeded", "succeeded", "failed"], run=newer)
    rate = task_pass_rates([task.task_id])[task.task_id]
    assert (rate["passed"], rate["total"], rate["run"]) == (3, 4, newer.pk)
    row = author_client.get("/tasks/").content.decode()
    assert "75% <span" in row and "(3/4)" in row


def test_a_test_run_queues_the_self_check_plan_as_agent_specs_the_workers_fill_for_each_episodes_world(author_user):
    """The plan is verifiers.selfcheck's (verify_tasks plays the same one), and no action list goes through a file:
    a negative example is played as the episode's own task has it, filled with that episode's params."""
    from catalogue.packs import task_sync
    from episodes.driver import agent_for
    from frontend.selfcheck_runs import selfcheck_start

    task_sync(replica="testbed")
    task = Task.objects.get(task_id="testbed.complete-note", is_current=True)
    run = selfcheck_start(task=task, author=author_user)
    items = list(run.items.select_related("episode"))
    assert [(i.label, i.expect, i.episode.agent) for i in items] == [
        ("reference", "pass", "oracle"),
        ("doing nothing", "fail", "nothing"),
        *[(f"negative: {ex['name']}", "fail", f"negative:{n}") for n, ex in enumerate(task.negative_examples)],
        ("random agent", "any", "random:1"),
    ]
    negative = items[2].episode
    negative.params = {
        **negative.params,
        **{k: f"{v}-varied" for k, v in negative.params.items() if isinstance(v, str)},
    }
    played = agent_for(negative).actions
    assert played == negative.instance.negative_examples[0]["actions"] != task.negative_examples[0]["actions"]
    assert any("-varied" in action for action in played)
    assert agent_for(items[1].episode).actions == []


def test_a_test_run_on_three_seeds_plays_the_plan_on_each_world_with_its_own_answer_key(author_user, author_client):
    from catalogue.packs import task_sync
    from frontend.models import SelfCheckEpisode
    from frontend.selfcheck_runs import SelfCheckError, parse_seeds, selfcheck_start

    task_sync(replica="testbed")
    task = Task.objects.get(task_id="testbed.complete-note", is_current=True)
    assert parse_seeds(" 8, 9 9,", task=task) == [8, 9] and parse_seeds("", task=task) == [task.seed]
    for bad in ("8, x", "-1", "1,2,3,4,5,6"):
        with pytest.raises(SelfCheckError):
            parse_seeds(bad, task=task)
    run = selfcheck_start(task=task, author=author_user, seeds=[task.seed, 8, 9])
    items = list(run.items.select_related("episode"))
    checks = 2 + len(task.negative_examples)
    assert len(items) == 3 * checks + 1 and items[-1].label == "random agent"
    assert [i.label for i in items[:2]] == [f"reference · seed {task.seed}", f"doing nothing · seed {task.seed}"]
    assert [i.episode.world_seed for i in items] == [task.seed] * checks + [8] * checks + [9] * checks + [task.seed]
    assert items[checks].episode.params != items[0].episode.params  # seed 8's own answer key
    # the task page's form: a bad seed list is refused with the reason, and nothing is queued
    before = SelfCheckEpisode.objects.count()
    response = author_client.post(f"/tasks/{task.task_id}/test-runs/", {"seeds": "7, seven"}, follow=True)
    assert "seeds must be whole numbers" in response.content.decode()
    assert SelfCheckEpisode.objects.count() == before


def test_the_admin_adds_people_with_a_role_from_the_people_page_and_no_one_else_may(client, admin_user, author_user):
    from replicagym.accounts.roles import Role, user_roles

    client.force_login(author_user)
    assert client.get("/people/").status_code == 403
    assert client.post("/people/", {"username": "eve", "role": "admin"}).status_code == 403
    client.force_login(admin_user)
    page = client.post("/people/", {"username": "ann", "role": "annotator", "password": ""}).content.decode()
    password = re.search(r'data-testid="person-password">([^<]+)<', page).group(1)
    ann = django_user_model_get("ann")
    assert user_roles(ann) == {Role.ANNOTATOR} and ann.check_password(password)
    assert 'data-username="ann"' in page
    for post, message in [
        ({"username": "ann", "role": "author"}, "exists already"),
        ({"username": "bob", "role": "agent"}, "role must be one of"),
        ({"username": "bad name!", "role": "author"}, "username"),
        ({"username": "bob", "role": "author", "password": "123"}, "password:"),
    ]:
        response = client.post("/people/", post)
        assert response.status_code == 400 and message in response.content.decode(), post
    assert not django_user_model_get("bob")


def django_user_model_get(username):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(username=username).first()


def test_the_editor_names_the_seeds_the_latest_finished_test_run_checked_the_reference_on(author_user, author_client):
    from catalogue.packs import task_sync
    from frontend.selfcheck_runs import reference_checks, selfcheck_start

    task_sync(replica="testbed")
    task = Task.objects.get(task_id="testbed.complete-note", is_current=True)
    page = author_client.get(f"/tasks/{task.task_id}/edit/").content.decode()
    assert "Not checked yet" in page
    run = selfcheck_start(task=task, author=author_user, seeds=[task.seed, 8])
    assert reference_checks(task) == []  # queued: not checked yet
    references = [i.episode for i in run.items.select_related("episode") if i.label.startswith("reference")]
    Episode.objects.filter(pk=references[0].pk).update(status="succeeded")
    assert reference_checks(task) == []  # one seed still running
    Episode.objects.filter(pk=references[1].pk).update(status="failed")
    assert [(c["seed"], c["passed"]) for c in reference_checks(task)] == [(task.seed, True), (8, False)]
    page = author_client.get(f"/tasks/{task.task_id}/edit/").content.decode()
    assert f'data-seed="{task.seed}">seed {task.seed} passed' in page and 'data-seed="8">seed 8 failed' in page
