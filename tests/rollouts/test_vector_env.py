"""Vector envs: gymnasium.make_vec over N episodes, each in its own spawned process with its own Chromium."""

import os

import gymnasium
import numpy as np
import pytest

from catalogue.packs import task_current
from episodes.gym import register_task, replica_vector_env
from episodes.models import Episode
from tests.episodes.fixtures import sync_test_pack

# Every wait on the worker processes is bounded: AsyncVectorEnv waits forever by default, and a worker
# stuck on a loaded machine hung the whole CI run (18 minutes on one test) instead of failing it.
WAIT_S = 240


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_make_vec_with_2_environments_steps_them_in_parallel_processes():
    sync_test_pack()
    env_id = register_task("testbed.open-note")
    envs = gymnasium.make_vec(env_id, num_envs=2)
    episodes = []
    try:
        assert isinstance(envs, gymnasium.vector.AsyncVectorEnv) and envs.num_envs == 2
        envs.reset_async(seed=0)
        obs, infos = envs.reset_wait(timeout=WAIT_S)
        assert obs["goal"] == ("Open note #3 and tell me its status.",) * 2
        assert obs["screenshot"].shape == (2, 800, 1280, 3) and obs["screenshot"].dtype == np.uint8
        # info holds what the seed chose, the same in every process; the episodes are the gym's two in the database
        assert infos["task"].tolist() == ["testbed.open-note"] * 2 and len(set(infos["world_seed"])) == 1
        episodes = list(Episode.objects.filter(agent="gym").values_list("pk", flat=True))
        assert len(episodes) == 2
        # one episode per worker process, none in this one: two Chromiums stepping at once
        workers = {Episode.objects.get(pk=pk).claimed_by for pk in episodes}
        assert len(workers) == 2 and f"gym:{os.getpid()}" not in workers

        envs.step_async(("noop()",) * 2)
        obs, rewards, terminated, truncated, infos = envs.step_wait(timeout=WAIT_S)
        assert not terminated.any() and not truncated.any() and (rewards == 0.0).all()
        assert tuple(obs["step"]) == (1, 1)
        status = task_current("testbed.open-note").params["status"]
        envs.step_async((f'send_msg_to_user("Note #3 is {status}.")', 'send_msg_to_user("no idea")'))
        obs, rewards, terminated, truncated, infos = envs.step_wait(timeout=WAIT_S)
        assert terminated.all() and not truncated.any()
        assert rewards[0] > 0.5 and rewards[1] == 0.0
    finally:
        envs.close(terminate=True)
    ended = Episode.objects.filter(pk__in=episodes)
    assert sorted(ended.values_list("status", flat=True)) == ["failed", "succeeded"]
    assert all(e.steps.count() == 2 for e in ended)


@pytest.mark.django_db
def test_a_vector_env_refuses_a_bad_size():
    sync_test_pack()
    for bad in (0, 65, True, "4"):
        with pytest.raises(ValueError, match="num_envs must be a whole number from 1 to 64"):
            replica_vector_env(task="testbed.open-note", num_envs=bad)
