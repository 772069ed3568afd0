"""Dense checkpoints in an episode (issue 32): with them on, the step that reaches a milestone reports it
(its index and its share of the credit) in the gym's info and reward and keeps it on the Step; off by default."""

import json

import gymnasium
import pytest

from catalogue.packs import pack_dir, task_current, task_sync
from episodes.creation import EpisodeError, episode_create
from episodes.gym import register_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def milestone_task(tmp_path, live_pack):
    """testbed's complete-note with a checkpoint on its one state assertion, as a pack of its own."""
    spec = json.loads((pack_dir("testbed") / "complete-note.json").read_text())
    spec["verifier"]["checkpoints"] = [{"name": "marked done", "points": 2, "assertions": ["the note is done"]}]
    (tmp_path / "complete-note.json").write_text(json.dumps(spec))
    task_sync(replica="testbed", directory=tmp_path)
    return task_current("testbed.complete-note")


def _play(env_id: str, **kwargs):
    env = gymnasium.make(env_id, **kwargs)
    env.reset(seed=0)
    task = env.unwrapped.episode.instance
    steps = []
    for action in [*task.reference_solution, 'send_msg_to_user("Done.")']:
        _obs, reward, terminated, truncated, info = env.step(action)
        steps.append((reward, info))
        if terminated or truncated:
            break
    episode = env.unwrapped.episode
    env.close()
    return steps, episode


def test_the_step_that_reaches_a_milestone_reports_it_and_pays_its_share(milestone_task):
    steps, episode = _play(register_task("testbed.complete-note"), dense_checkpoints=True)
    saved = 4  # fill, fill, sign in, check: the Save click writes the note
    assert [info["checkpoints_new"] for _reward, info in steps] == [[], [], [], [], [0], []]
    assert [reward for reward, _info in steps[:-1]] == [0.0, 0.0, 0.0, 0.0, pytest.approx(0.5)]
    # the last step adds the episode's own reward; the checkpoint is not paid twice
    assert steps[-1][0] == pytest.approx(episode.rewards["episode_reward"]) and episode.status == "succeeded"
    stored = list(episode.steps.order_by("index").values_list("checkpoints", flat=True))
    assert stored[saved] == {"new": [0], "reward": pytest.approx(0.5)}
    assert all(s == {"new": [], "reward": 0.0} for i, s in enumerate(stored) if i != saved)
    # the agent's side learns indices and rewards: never the milestone's name or its assertions
    assert "marked done" not in json.dumps([info for _r, info in steps])
    assert episode.verdict["checkpoints"] == [{"name": "marked done", "points": 2, "reached": True}]


def test_off_by_default_nothing_is_evaluated_or_reported(milestone_task):
    steps, episode = _play(register_task("testbed.complete-note"))
    assert all("checkpoints_new" not in info for _reward, info in steps)
    assert [reward for reward, _info in steps[:-1]] == [0.0] * 5
    assert set(episode.steps.values_list("checkpoints", flat=True)) == {None}


def test_the_setting_is_refused_unless_true_or_false(milestone_task):
    with pytest.raises(EpisodeError, match="dense_checkpoints"):
        episode_create(task=milestone_task, agent="oracle", agent_settings={"dense_checkpoints": "yes"})
    with pytest.raises(ValueError, match="dense_checkpoints"):
        gymnasium.make(register_task("testbed.complete-note"), dense_checkpoints=1)
