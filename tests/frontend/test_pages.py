"""The platform's pages render on the shared layout, for the roles they admit, with the data they promise."""

import pytest
from replicagym.catalogue.models import Task

from episodes.models import Episode
from replicas.worlds.registry import replicas
from tests.episodes.fixtures import sync_test_pack

pytestmark = pytest.mark.django_db


@pytest.fixture
def author_client(client, author_user):
    client.force_login(author_user)
    return client


def test_layout_names_the_user_their_roles_and_every_section(author_client):
    html = author_client.get("/").content.decode()
    assert 'data-testid="signed-in-user">Signed in as <strong>author</strong> (author)<' in html
    for label, href in [
        ("Dashboard", "/"),
        ("Tasks", "/tasks/"),
        ("Suites", "/suites/"),
        ("Runs", "/runs/"),
        ("Annotation", "/annotate/"),
        ("Worlds", "/worlds/"),
        ("Settings", "/settings/"),
    ]:
        assert f'href="{href}"' in html and f">{label}</a>" in html
    assert "frontend/vendor/primer.css" in html and "frontend/vendor/htmx.min.js" in html
    assert "X-CSRFToken" in html  # htmx requests carry the CSRF token
    assert 'action="/accounts/logout/"' in html


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
