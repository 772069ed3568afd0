"""Trainer-owned group rollouts over REST: G episodes on one start state, played from outside, finished
with per-member rewards and group advantages; counted against the token's limits; other tokens' are 404."""

import pytest
from replicagym.accounts.roles import Role, role_grant
from replicagym.accounts.tokens import token_create

from episodes.models import Episode, Run, Step
from episodes.rollouts import group_advantages

pytestmark = pytest.mark.django_db


@pytest.fixture
def trainer(django_user_model, api_client_for, test_pack):
    """A token for the testbed suite, room for 4 episodes at once."""
    user = django_user_model.objects.create_user(username="trainer", password="pw-123456")
    issued = token_create(user=user, suites=["testbed"], expires_days=1, max_concurrent=4, max_per_hour=20)
    client = api_client_for(secret=issued.secret)
    client.token = issued.token
    return client


def open_group(client, **body):
    response = client.post("/api/groups", {"task": "testbed.report-owner", "size": 3, **body}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_group_opens_g_running_episodes_on_one_start_state(trainer):
    group = open_group(trainer)
    members = Episode.objects.filter(pk__in=[m["id"] for m in group["members"]]).order_by("attempt")
    assert [m.attempt for m in members] == [0, 1, 2] and {m.status for m in members} == {"running"}
    # one start state: the same world seed, variation and answer key; a world of its own each
    assert len({(m.world_seed, m.variation, m.initial_state_id, str(m.params)) for m in members}) == 1
    assert members[0].variation is not None  # drawn once for the group, not left to each member
    assert len({m.world_id for m in members}) == 3
    assert {m.run_id for m in members} == {group["id"]} and Run.objects.get(pk=group["id"]).shared_variation
    assert group["task"] == "testbed.report-owner" and group["size"] == 3
    assert all(m["start_url"].startswith(m["origin"]) for m in group["members"])
    assert trainer.get(f"/api/groups/{group['id']}").json()["members"] == group["members"]


def test_a_given_variation_is_every_members_and_another_gives_another_world(trainer):
    first = open_group(trainer, size=1, variation=11)
    again = open_group(trainer, size=1, variation=11)
    seeds = [Episode.objects.get(pk=g["members"][0]["id"]).world_seed for g in (first, again)]
    assert seeds[0] == seeds[1]
    assert Episode.objects.get(pk=first["members"][0]["id"]).variation == 11


def test_finish_returns_each_members_rewards_and_the_group_advantages(trainer, world_client):
    group = open_group(trainer)
    members = [Episode.objects.get(pk=m["id"]) for m in group["members"]]
    # member 0 does the task in its own browser; the others do nothing and answer wrong or not at all
    winner = members[0]
    world_client(winner.world).get(f"/notes/{winner.params['note']}")
    response = trainer.post(
        f"/api/groups/{group['id']}/finish",
        {"messages": {str(winner.pk): [f"It was {winner.params['owner']}."], str(members[1].pk): ["No idea."]}},
        format="json",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert [m["episode"] for m in body["members"]] == [m.pk for m in members]
    assert [m["passed"] for m in body["members"]] == [True, False, False]
    assert body["rewards"][0] > 0 and body["rewards"][1:] == [0.0, 0.0]
    assert body["advantages"] == pytest.approx(group_advantages(body["rewards"]))
    assert body["advantages"][0] > 0 > body["advantages"][1]
    # the members' own verdicts, as their own /finish would have left them, and the group run is done
    assert Episode.objects.get(pk=members[1].pk).messages == ["No idea."]
    assert Run.objects.get(pk=group["id"]).status == "done"
    # the world kept each member's requests as its steps; it observed no page, so there is no observation text
    steps = trainer.get(f"/api/episodes/{winner.pk}/steps").json()
    assert [s["action"] for s in steps] == [f"GET /notes/{winner.params['note']}"]
    assert steps[0]["observation"] == ""


def test_a_member_finished_on_its_own_keeps_its_verdict_when_the_group_finishes(trainer):
    group = open_group(trainer, size=2)
    first = group["members"][0]["id"]
    assert trainer.post(f"/api/episodes/{first}/finish", {"messages": ["done"]}, format="json").status_code == 200
    body = trainer.post(f"/api/groups/{group['id']}/finish", {}, format="json").json()
    assert Episode.objects.get(pk=first).messages == ["done"]
    assert [m["status"] for m in body["members"]] == ["failed", "failed"]
    assert body["advantages"] == [0.0, 0.0]


def test_a_group_past_the_tokens_limit_is_refused_whole_and_changes_nothing(trainer):
    episodes, runs = Episode.objects.count(), Run.objects.count()
    refused = trainer.post("/api/groups", {"task": "testbed.report-owner", "size": 5}, format="json")
    assert refused.status_code == 429 and "5 episodes" in refused.json()["detail"]
    open_group(trainer, size=3)
    refused = trainer.post("/api/groups", {"task": "testbed.report-owner", "size": 2}, format="json")
    assert refused.status_code == 429 and "2 more would pass it" in refused.json()["detail"]
    assert Episode.objects.count() == episodes + 3 and Run.objects.count() == runs + 1


@pytest.mark.parametrize(
    "body, field",
    [
        ({"task": "testbed.report-owner", "size": 0}, "size"),
        ({"task": "testbed.report-owner", "size": 65}, "size"),
        ({"task": "testbed.report-owner", "size": True}, "size"),
        ({"task": "testbed.nope", "size": 2}, "task"),
        ({"task": "testbed.report-owner", "size": 2, "variation": -1}, "variation"),
    ],
)
def test_bad_group_input_is_refused_with_the_field_named_and_nothing_opened(trainer, body, field):
    response = trainer.post("/api/groups", body, format="json")
    assert response.status_code == 400 and field in response.json()
    assert not Episode.objects.exists()


def test_a_task_outside_the_tokens_suites_is_403(trainer, agent_client):
    refused = agent_client.post("/api/groups", {"task": "testbed.report-owner", "size": 1}, format="json")
    assert refused.status_code == 403 and not Episode.objects.exists()


def test_finish_refuses_messages_for_an_episode_not_of_the_group_and_finishes_nothing(trainer):
    group, other = open_group(trainer, size=1), open_group(trainer, size=1)
    stray = other["members"][0]["id"]
    for messages in ({str(stray): ["x"]}, {"abc": ["x"]}, {"1": "not a list"}):
        refused = trainer.post(f"/api/groups/{group['id']}/finish", {"messages": messages}, format="json")
        assert refused.status_code == 400, messages
    assert set(Episode.objects.values_list("status", flat=True)) == {"running"}


def test_another_tokens_group_and_steps_are_404(trainer, api_client_for):
    group = open_group(trainer, size=1)
    member = group["members"][0]["id"]
    second = token_create(user=trainer.token.user, suites=["testbed"], expires_days=1, name="second")
    other = api_client_for(secret=second.secret)
    assert other.get(f"/api/groups/{group['id']}").status_code == 404
    assert other.post(f"/api/groups/{group['id']}/finish", {}, format="json").status_code == 404
    assert other.get(f"/api/episodes/{member}/steps").status_code == 404
    assert Episode.objects.get(pk=member).status == "running"


def test_steps_return_each_steps_observation_in_order(trainer):
    group = open_group(trainer, size=1)
    episode = Episode.objects.get(pk=group["members"][0]["id"])
    for index, (action, seen) in enumerate([('click("a1")', "[a1] link 'Notes'"), ("noop()", "RootWebArea 'Note'")]):
        Step.objects.create(episode=episode, index=index, action=action, observation=seen, url="u", title="t")
    steps = trainer.get(f"/api/episodes/{episode.pk}/steps").json()
    assert [(s["index"], s["action"], s["observation"]) for s in steps] == [
        (0, 'click("a1")', "[a1] link 'Notes'"),
        (1, "noop()", "RootWebArea 'Note'"),
    ]


def test_staff_open_groups_of_any_task_without_a_tokens_limits_and_see_only_their_own(
    test_pack, api_client_for, author_user, trainer, django_user_model
):
    author = api_client_for(user=author_user)
    group = open_group(author, size=5)  # past what the trainer's token may hold at once: staff have no quota
    members = Episode.objects.filter(run_id=group["id"])
    assert members.count() == 5 and {m.agent for m in members} == {"external:author"}
    assert {m.owner_id for m in members} == {author_user.pk}
    assert trainer.get(f"/api/groups/{group['id']}").status_code == 404
    other = django_user_model.objects.create_user(username="other-author", password="pw-123456")
    role_grant(user=other, role=Role.AUTHOR)
    assert api_client_for(user=other).get(f"/api/groups/{group['id']}").status_code == 404
    assert author.post(f"/api/groups/{group['id']}/finish", {}, format="json").status_code == 200
