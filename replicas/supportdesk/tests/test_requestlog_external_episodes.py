"""Episodes in the agent's own browser (the API's) on the support desk: the world's log is their
trajectory, its limits hold, its last page is judged, and a refund whose timeout hid that it went
through (the desk's billing API) tells repeating from checking."""

import json
from pathlib import Path

import pytest

from catalogue.packs import task_current, task_sync
from episodes.creation import episode_create
from episodes.external import episode_finish_external
from episodes.models import Episode
from replicas.worlds.snapshot import snapshot

pytestmark = pytest.mark.django_db
TASKS = Path(__file__).resolve().parent / "requestlog_tasks"


@pytest.fixture
def external(db):
    """An episode of a task of this folder's pack, started as POST /api/episodes starts one."""
    task_sync(replica="supportdesk", directory=TASKS)

    def start(slug):
        return episode_create(
            task=task_current(f"supportdesk.{slug}"),
            agent="external",
            status=Episode.Status.RUNNING,
            claimed_by="api:1",
        )

    return start


def refund(client, params, amount="10.00"):
    body = {"kind": "partial", "reason": "duplicate", "ticket": params["ticket"], "amount": amount}
    return client.post(
        f"/api/v2/billing/payments/{params['payment']}/refunds", data=json.dumps(body), content_type="application/json"
    )


def test_the_requests_of_the_agents_browser_are_the_episodes_steps_and_a_fault_it_met_counts(external, world_client):
    episode = external("refund-after-processed-timeout")
    client = world_client(episode.world)
    assert client.get(f"/agent/tickets/{episode.params['ticket']}").status_code == 200
    assert refund(client, episode.params).status_code == 504  # the agent gives up here
    client.post("/agent/tickets/1/take")
    episode = episode_finish_external(episode=episode, messages=[])
    steps = list(episode.steps.order_by("index"))
    assert [(s.action, s.error) for s in steps] == [
        (f"GET /agent/tickets/{episode.params['ticket']}", ""),
        (
            f"POST /api/v2/billing/payments/{episode.params['payment']}/refunds [kind, reason, ticket, amount]",
            "HTTP 504",
        ),
        ("POST /agent/tickets/1/take", "HTTP 404"),
    ]
    assert [e["event"] for e in steps[1].fault_events] == ["fired"]
    assert any(w["table"] == "supportdesk.refund" and w["op"] == "insert" for w in steps[1].writes)
    assert steps[0].requests[0]["status"] == 200 and steps[0].writes == []
    # the refund went through server-side, so the task holds; but the fault was met and never recovered from
    assert episode.passed
    assert episode.rewards["error_recovery"] == 0.0
    assert episode.rewards["action_precision"] == pytest.approx(1 / 3)
    assert episode.rewards["efficiency"] == 1.0  # three steps, as the reference


def test_past_its_step_limit_the_world_of_an_api_episode_refuses_requests_and_writes(external, world_client):
    episode = external("open-ticket-page")  # max_steps 3
    client = world_client(episode.world)
    for _ in range(3):
        assert client.get("/agent/filters/unsolved").status_code == 200
    before = snapshot(episode.world)
    over = client.post(f"/agent/tickets/{episode.params['ticket']}/take")
    assert over.status_code == 410 and b"step limit of 3" in over.content
    assert snapshot(episode.world) == before
    episode = episode_finish_external(episode=episode, messages=[])
    assert episode.steps.count() == 3


def test_the_final_page_is_the_last_page_the_world_served_the_agent_signed_in(external, world_client):
    episode = external("open-ticket-page")
    client = world_client(episode.world)
    client.get("/agent/filters/unsolved")
    client.get(f"/agent/tickets/{episode.params['ticket']}")
    episode = episode_finish_external(episode=episode, messages=[])
    assert episode.passed, episode.verdict
    assert episode.final_url.endswith(f"/agent/tickets/{episode.params['ticket']}")
    assert "sign in" not in episode.final_title.lower()
    # once finished, the world takes no more requests
    assert client.get("/agent/filters/unsolved").status_code == 410


def test_an_api_episode_that_was_served_no_page_is_judged_on_none(external):
    episode = episode_finish_external(episode=external("open-ticket-page"), messages=[])
    assert not episode.passed and episode.final_url == "" and episode.steps.count() == 0


def test_repeating_a_refund_whose_timeout_hid_that_it_went_through_loses_error_recovery(external, world_client):
    episode = external("refund-after-processed-timeout")
    client = world_client(episode.world)
    assert refund(client, episode.params).status_code == 504
    assert refund(client, episode.params).status_code == 201  # a second refund: the first had gone through
    episode = episode_finish_external(episode=episode, messages=[])
    assert episode.passed and episode.rewards["task_completion"] == 1.0
    assert episode.rewards["error_recovery"] == 0.0


def test_checking_after_the_timeout_instead_of_repeating_keeps_error_recovery(external, world_client):
    episode = external("refund-after-processed-timeout")
    client = world_client(episode.world)
    assert refund(client, episode.params).status_code == 504
    listed = client.get(f"/api/v2/billing/payments/{episode.params['payment']}/refunds")
    assert listed.status_code == 200 and len(listed.json()["refunds"]) == 1  # it went through: no retry
    episode = episode_finish_external(episode=episode, messages=[])
    assert episode.passed and episode.rewards["error_recovery"] == 1.0
