"""The runs API: launch, list, follow, cancel and report, for staff and for scoped agent tokens."""

import pytest
from replicagym.accounts.models import TokenEpisode
from replicagym.accounts.tokens import token_create

from catalogue.packs import suite_current
from episodes.models import Episode, Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def testbed_token(django_user_model):
    """A token of user "bot" for the testbed suite, 6 episodes an hour (and 10 at once: a run's episodes count too)."""
    suite_current("testbed")  # the testbed's own pack, synced on first use
    user = django_user_model.objects.create_user(username="bot", password="pw-123456")
    return token_create(user=user, suites=["testbed"], expires_days=30, max_concurrent=10, max_per_hour=6)


def test_staff_launch_follow_cancel_and_read_the_report_of_a_run(api_client_for, author_user):
    api = api_client_for(user=author_user)
    created = api.post(
        "/api/runs", {"suite": "testbed", "agent": "random:4", "attempts": 2, "priority": 3}, format="json"
    )
    assert created.status_code == 201, created.data
    run = created.data
    assert (run["suite"], run["agent"], run["attempts"], run["priority"], run["status"]) == (
        "testbed",
        "random:4",
        2,
        3,
        "running",
    )
    assert run["progress"]["total"] == 4 and run["progress"]["queued"] == 4
    assert Run.objects.get(pk=run["id"]).owner == author_user
    assert api.get(f"/api/runs/{run['id']}").data["progress"]["queued"] == 4
    assert [r["id"] for r in api.get("/api/runs").data] == [run["id"]]
    cancelled = api.post(f"/api/runs/{run['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.data["status"] == "cancelled"
    assert cancelled.data["progress"]["cancelled"] == 4
    again = api.post(f"/api/runs/{run['id']}/cancel")
    assert again.status_code == 409 and "already cancelled" in again.data["detail"]
    report = api.get(f"/api/runs/{run['id']}/report").data
    assert set(report["tasks"]) == {"testbed.complete-note", "testbed.rename-note"}
    assert report["tasks"]["testbed.rename-note"]["statuses"] == {"cancelled": 2}


@pytest.mark.parametrize(
    "body, field, message",
    [
        ({"suite": "nosuch", "agent": "random"}, "detail", "unknown suite 'nosuch'"),
        ({"agent": "random"}, "detail", "a run needs a suite, a task filter, or both"),
        ({"suite": "testbed", "agent": "replay:/etc/passwd"}, "agent", "replay agents read files on the server"),
        ({"suite": "testbed", "agent": "random", "attempts": 0}, "attempts", "greater than or equal to 1"),
        (
            {"suite": "testbed", "agent": "random", "agent_settings": {"timeout": 3}},
            "detail",
            "applies to http and openai agents",
        ),
        ({"suite": "testbed"}, "agent", "required"),
    ],
)
def test_bad_input_is_a_400_that_says_what_to_change_and_creates_nothing(
    api_client_for, author_user, body, field, message
):
    response = api_client_for(user=author_user).post("/api/runs", body, format="json")
    assert response.status_code == 400 and message in str(response.data[field])
    assert not Run.objects.exists() and not Episode.objects.exists()


def test_a_token_launches_runs_of_its_own_suites_counted_against_its_hourly_quota(api_client_for, testbed_token):
    api = api_client_for(secret=testbed_token.secret)
    created = api.post("/api/runs", {"suite": "testbed", "agent": "random", "attempts": 2}, format="json")
    assert created.status_code == 201, created.data
    run = Run.objects.get(pk=created.data["id"])
    assert run.owner == testbed_token.token.user
    assert TokenEpisode.objects.filter(token=testbed_token.token).count() == 4
    # 4 of 6 this hour are taken: a run of 4 more would pass the limit, and nothing of it is made
    over = api.post("/api/runs", {"suite": "testbed", "agent": "random", "attempts": 2}, format="json")
    assert over.status_code == 429 and "limit of 6 an hour" in str(over.data["detail"]) and over["Retry-After"]
    assert Run.objects.count() == 1
    assert (
        api.post(
            "/api/runs",
            {"suite": "testbed", "task_filter": "*.rename-*", "agent": "random", "attempts": 2},
            format="json",
        ).status_code
        == 201
    )


@pytest.mark.parametrize(
    "body, message",
    [
        ({"suite": "testbed", "agent": "oracle"}, "oracle plays the reference solution"),
        ({"suite": "testbed", "agent": "noisy-oracle"}, "noisy-oracle plays the reference solution"),
        ({"suite": "testbed", "agent": "random", "priority": 1}, "default priority"),
    ],
)
def test_a_token_cannot_use_the_answer_key_or_jump_the_queue(api_client_for, testbed_token, body, message):
    response = api_client_for(secret=testbed_token.secret).post("/api/runs", body, format="json")
    assert response.status_code == 403 and message in str(response.data["detail"])
    assert not Run.objects.exists()


@pytest.mark.parametrize(
    "body, message",
    [
        ({"suite": "testbed", "agent": "random"}, "may run the suites smoke only"),
        ({"task_filter": "*", "agent": "random"}, "tasks outside this token's suites"),
    ],
)
def test_a_token_cannot_leave_its_suites(api_client_for, agent_token, body, message):
    suite_current("testbed")
    response = api_client_for(secret=agent_token.secret).post("/api/runs", body, format="json")
    assert response.status_code == 403 and message in str(response.data["detail"])
    assert not Run.objects.exists()


def test_a_token_sees_only_its_own_runs_and_staff_see_all(api_client_for, testbed_token, author_user):
    staff = api_client_for(user=author_user)
    theirs = staff.post("/api/runs", {"suite": "testbed", "agent": "random"}, format="json").data["id"]
    bot = api_client_for(secret=testbed_token.secret)
    mine = bot.post("/api/runs", {"suite": "testbed", "agent": "random"}, format="json").data["id"]
    assert [r["id"] for r in bot.get("/api/runs").data] == [mine]
    for path in (f"/api/runs/{theirs}", f"/api/runs/{theirs}/report"):
        assert bot.get(path).status_code == 404
    assert bot.post(f"/api/runs/{theirs}/cancel").status_code == 404
    assert Run.objects.get(pk=theirs).status == "running"
    assert {r["id"] for r in staff.get("/api/runs").data} == {mine, theirs}
    report = bot.get(f"/api/runs/{mine}/report").data
    assert "verdict" not in str(report) and "assertions" not in str(report)


def test_annotators_and_strangers_cannot_launch_runs(api_client_for, annotator_user):
    assert (
        api_client_for(user=annotator_user)
        .post("/api/runs", {"suite": "testbed", "agent": "random"}, format="json")
        .status_code
        == 403
    )
    assert api_client_for().get("/api/runs").status_code == 401
    assert not Run.objects.exists()
