"""What an agent is told in a cross-app episode never gives the answer key away (issue 32).

The single-app version is tests/episodes/test_agent_facing_verdicts.py; a cross-app task is refused in the
agent's own browser, so here every task of the crossapp pack is played through the gym env's step path (the
engine's step with the browser parts left out): a step that reaches nothing, then a wrong finish. No value of
the task's answer key the agent was not given (task id, title, instruction, start page) may appear in the step
info, the final info (verdict and rewards) or the task info an agent is reset with; dense checkpoints come as
indices, and a step that reaches one says so at that step, naming no assertion. Staff keep the detail.
"""

import json
import re

import pytest

from catalogue.packs import WORKSPACE_PACK, load_pack, task_current
from episodes.agents import task_info
from episodes.creation import episode_create
from episodes.driver import EpisodeDriver
from episodes.engine.checkpoints import CheckpointWatch
from episodes.gym import ReplicaEnv
from episodes.models import Episode
from replicas.worlds.scoping import bound_world
from replicas.worlds.workspaces import workspace_world
from tests.episodes.browserless import BrowserlessSession
from tests.episodes.test_agent_facing_verdicts import JUNK, leaks, secrets_of


def _gym(task, *, dense: bool) -> ReplicaEnv:
    """A gym env on a fresh episode of `task` in its workspace, its driver on a session without a browser."""
    env = ReplicaEnv(task.task_id, dense_checkpoints=dense)
    env.episode = episode_create(
        task=task,
        agent="gym",
        status=Episode.Status.RUNNING,
        claimed_by="gym:test",
        agent_settings={"dense_checkpoints": True} if dense else None,
    )
    env.driver = EpisodeDriver(env.episode)
    env.driver.session = BrowserlessSession()
    if dense:  # as EpisodeDriver.open() arms it (open() would start a browser)
        env.driver.checkpoint_watch = CheckpointWatch(
            spec=env.driver.instance.verifier, params=env.episode.params, initial=env.episode.initial_state.doc
        )
    return env


@pytest.mark.django_db
def test_no_step_info_or_verdict_of_a_cross_app_episode_reveals_the_answer_key():
    tasks = [task_current(t.task_id) for t in load_pack(WORKSPACE_PACK)]
    assert len(tasks) >= 3
    for task in tasks:
        instance = task.with_params(task.params)
        secrets = secrets_of(task, instance, task.params)
        assert secrets, f"{task.task_id}: an answer key the instruction gives away entirely tests nothing here"
        env = _gym(task, dense=True)
        _obs, reward, terminated, _truncated, info = env.step("noop()")
        assert not terminated and reward == 0.0 and info["checkpoints_new"] == [], task.task_id
        steps = [("step info", info)]
        _obs, reward, terminated, _truncated, info = env.step(f"send_msg_to_user({json.dumps(JUNK)})")
        assert terminated and reward == 0.0, task.task_id
        assert info["verdict"] == {"passed": False} and info["status"] == "failed", task.task_id
        for where, payload in [*steps, ("final info", info), ("agent task info", task_info(instance))]:
            assert leaks(payload, secrets) == [], f"{task.task_id}: {where} reveals the answer key"
        stored = Episode.objects.get(pk=env.episode.pk).verdict
        assert any(a["detail"] for a in stored["assertions"]), "staff keep the detail"
        assert [c["reached"] for c in stored["checkpoints"]] == [False] * len(task.spec["verifier"]["checkpoints"])


@pytest.mark.django_db
def test_a_checkpoint_reached_in_another_app_is_reported_by_index_only(monkeypatch):
    """The escalation task's first milestone is a comment on the board (the second tab): the step that writes it
    reports checkpoint 0 and its dense reward, and nothing in that info names the work item or the comment."""
    from replicas.board.models import Comment, Issue, Person

    task = task_current(f"{WORKSPACE_PACK}.escalate-ticket-to-work-item")
    params = task.params
    secrets = secrets_of(task, task.with_params(params), params)
    assert params["work_item"] in secrets
    env = _gym(task, dense=True)
    board = workspace_world(env.episode.world.workspace, "board")
    body = f"Another customer report: support ticket #{params['ticket']}."

    def comment_on_board(world, since):
        """The board's request log as the step's request would leave it: the comment, written by the agent."""
        if world.pk != board.pk:
            return []
        with bound_world(board):
            if Comment.objects.filter(body=body).exists():
                return []
            issue = Issue.objects.get(key=params["work_item"])
            author = Person.objects.get(username=params["agent_username"])
            top = max(Comment.objects.values_list("public_id", flat=True), default=0)
            Comment.objects.create(public_id=top + 1, issue=issue, author=author, body=body, created_at=board.clock)

        class Logged:
            seq = 1
            writes = [{"table": "board.comment", "op": "added", "key": str(top + 1)}]

        return [Logged()]

    monkeypatch.setattr("episodes.driver.logged_requests", lambda *, world, since: comment_on_board(world, since))
    monkeypatch.setattr("episodes.driver.request_doc", lambda request: {"writes": request.writes})
    _obs, reward, terminated, _truncated, info = env.step("tab_focus(1)")
    assert not terminated and info["checkpoints_new"] == [0]
    milestones = len(task.spec["verifier"]["checkpoints"])  # reported, escalated per the runbook, noted
    assert reward == pytest.approx(0.5 * 1 / milestones)  # half the credit is the milestones', this one of three
    assert leaks(info, secrets) == [] and not re.search(r"report|comment|board\.", json.dumps(info), re.I)
