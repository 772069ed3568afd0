"""Tasks that require an interaction are refused as episodes in the agent's own browser.

The world of such an episode sees requests only: a card dragged on the board and the
same form posted directly are one POST, so the task could be judged on its outcome
alone, which is the shortcut its interaction requirement closes.
"""

import pytest
from replicagym.accounts.tokens import token_create

from catalogue.packs import task_sync
from episodes.creation import API_CLAIM, EpisodeError, episode_create
from episodes.models import Episode
from replicas.worlds.models import World
from tests.templates import module_template

pytestmark = pytest.mark.django_db
# the board pack's one template (small, seed 7), which each test's task_sync would build again in its transaction
board_template = module_template("board")

DRAG_TASK = "board.drag-card-to-review"
PLAIN_TASK = "board.send-to-review"  # the same change from the issue page: no interaction required


@pytest.fixture
def board_client(api_client_for, django_user_model):
    task_sync(replica="board")
    user = django_user_model.objects.create_user(username="board-agent", password="pw-123456")
    issued = token_create(user=user, suites=["board-workflow"], expires_days=1, max_concurrent=2, max_per_hour=5)
    return api_client_for(secret=issued.secret)


def test_an_interaction_task_is_refused_with_a_clear_400_and_nothing_is_created(board_client):
    worlds = World.objects.count()
    response = board_client.post("/api/episodes", {"task": DRAG_TASK}, format="json")
    assert response.status_code == 400, response.json()
    [message] = response.json()["task"]
    assert message.startswith(f"{DRAG_TASK} requires the drag_and_drop interaction it asks for")
    assert "own browser" in message and "run this task with the engine" in message
    assert Episode.objects.count() == 0 and World.objects.count() == worlds


def test_a_task_of_the_same_suite_without_an_interaction_still_starts(board_client):
    response = board_client.post("/api/episodes", {"task": PLAIN_TASK}, format="json")
    assert response.status_code == 201, response.json()
    assert Episode.objects.get(pk=response.json()["id"]).task.task_id == PLAIN_TASK


def test_the_task_list_says_which_tasks_require_an_interaction(board_client):
    listed = {t["id"]: t["interaction"] for t in board_client.get("/api/tasks").json()}
    assert listed[DRAG_TASK] == ["drag_and_drop"]
    assert listed[PLAIN_TASK] == []


def test_the_service_refuses_it_too_whoever_asks_and_the_engine_still_runs_it(board_client, django_user_model):
    """Not only the view: any caller that starts an own-browser episode (the API's claim) is refused."""
    owner = django_user_model.objects.create_user(username="staff-x", password="pw-123456")
    with pytest.raises(EpisodeError, match="requires the drag_and_drop interaction"):
        episode_create(
            task=DRAG_TASK, agent="x", owner=owner, status=Episode.Status.RUNNING, claimed_by=f"{API_CLAIM}{owner.pk}"
        )
    queued = episode_create(task=DRAG_TASK, agent="oracle", owner=owner)  # for a worker: the engine records actions
    assert queued.status == Episode.Status.QUEUED
