"""The gym API: gymnasium.make("replicagym/<task>"), the env checker where it applies, a BrowserGym-style loop."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils import env_checker

from catalogue.packs import task_current, task_files
from episodes.engine.observation import DISPLAY_ORIGIN
from episodes.gym import ReplicaEnv, UnicodeText, register_envs, register_task, world_seed_for
from replicas.worlds.registry import replicas
from tests.pack_episodes import sync_tasks

# sqlite_only: the gym API over the engine; the engine's episodes are tested on both backends (test_engine.py)
pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def env_id(live_pack):
    return register_task("testbed.open-note")


def test_installed_packs_register_one_env_id_per_task_file():
    ids = register_envs()
    assert all(i.startswith("replicagym/") for i in ids)
    assert all(i in gymnasium.registry for i in ids)


def test_unicode_text_space_accepts_any_text_up_to_its_length():
    space = UnicodeText(5)
    assert "Zoë €" in space and "abcdef" not in space and 3 not in space


def test_browsergym_style_loop_drives_the_env_with_unchanged_action_strings(env_id):
    """The loop a BrowserGym agent runs: obs dict in, action string out, until terminated or truncated."""
    env = gymnasium.make(env_id)
    obs, info = env.reset(seed=0)
    assert obs["goal"] == "Open note #3 and tell me its status."
    assert obs["url"].startswith(f"{DISPLAY_ORIGIN}/") and obs["url"].endswith("/notes/3") and "[" in obs["axtree"]
    status = task_current("testbed.open-note").params["status"]
    plan = iter(['click("a999999")', f'send_msg_to_user("Note #3 is {status}.")'])
    done, rewards = False, []
    while not done:
        action = next(plan)
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        done = terminated or truncated
    env.close()
    assert terminated and not truncated
    assert rewards[0] == 0.0 and rewards[-1] > 0.5
    assert info["status"] == "succeeded" and info["verdict"]["passed"] is True
    episode = env.unwrapped.episode
    assert list(episode.steps.values_list("action", flat=True)) == [
        'click("a999999")',
        f'send_msg_to_user("Note #3 is {status}.")',
    ]
    assert episode.steps.get(index=0).error  # the missing element was the last action error, the episode went on


def test_step_limit_truncates(env_id):
    env = gymnasium.make(env_id)
    env.reset()
    for _ in range(task_current("testbed.open-note").limits["max_steps"]):
        obs, reward, terminated, truncated, info = env.step("noop()")
    assert truncated and not terminated and reward == 0.0 and info["status"] == "failed"
    with pytest.raises(RuntimeError, match="call reset"):
        env.step("noop()")
    env.close()


# one quick task of every replica: the checker resets each about ten times
CHOSEN = {
    "testbed": "complete-note",
    "supportdesk": "report-order-total",
    "shop": "report-deal-price",
    "board": "rank-card-to-top",
}
# a task of every replica with a pack: the one chosen above, or the first task file of a replica added later
# (a compiled one: factory/), so no replica goes unchecked for want of a list entry
CHECKED_TASKS = [f"{r}.{CHOSEN.get(r) or task_files(r)[0].stem}" for r in sorted(replicas()) if task_files(r)]


@pytest.mark.parametrize("task_id", CHECKED_TASKS)
def test_gymnasium_check_env_passes_unchanged_on_a_task_of_every_replica(task_id, transactional_db, tmp_path):
    replica, slug = task_id.split(".")
    sync_tasks(replica, [slug], tmp_path / "tasks")
    env = gymnasium.make(register_task(task_id), render_mode="rgb_array").unwrapped
    with warnings.catch_warnings():
        # the checker only warns of observations or infos "equal although similar": those fail here too
        warnings.simplefilter("error")
        env_checker.check_env(env)
    env.close()


def test_two_resets_with_one_seed_give_equal_observations_and_infos_on_two_worlds(env_id):
    env = gymnasium.make(env_id).unwrapped
    first, first_info = env.reset(seed=1)
    first_world = env.episode.world
    second, second_info = env.reset(seed=1)
    env.close()
    assert env.episode.world != first_world  # a fresh world, on an origin of its own
    assert first["url"] == second["url"] and first["url"].startswith(f"{DISPLAY_ORIGIN}/")
    assert first["open_pages_urls"] == (first["url"],)
    assert np.array_equal(first["screenshot"], second["screenshot"])
    for key in set(first) - {"screenshot"}:
        assert first[key] == second[key], key
    assert (
        first_info
        == second_info
        == {"task": "testbed.open-note", "world_seed": 7, "variation": first_info["variation"]}
    )
    assert "elapsed_time" not in first  # wall time: the episode record has it


def test_reset_seed_chooses_the_world_seed_from_the_pool(live_pack, settings):
    settings.EPISODE_WORLD_SEEDS = 3
    task = task_current("testbed.open-note")  # its own seed is 7: the pool is 1, 2, 3, 7
    assert [world_seed_for(task, s) for s in range(6)] == [1, 2, 3, 7, 1, 2]
    env = gymnasium.make(register_task("testbed.open-note")).unwrapped
    _, info = env.reset(seed=2)
    assert info["world_seed"] == 3 and env.episode.world.seed == 3
    _, again = env.reset(seed=2)
    assert again == info  # the same world seed and the same picks
    _, other = env.reset(seed=3)
    assert other["world_seed"] == 7 and other["variation"] != info["variation"]
    env.close()
    with pytest.raises(ValueError, match="seed must be a whole number"):
        world_seed_for(task, -1)


def test_unknown_task_and_bad_render_mode_fail_clearly(live_pack):
    with pytest.raises(LookupError, match="unknown task 'testbed.nope'"):
        ReplicaEnv("testbed.nope")
    with pytest.raises(ValueError, match="render_mode must be one of"):
        ReplicaEnv("testbed.open-note", render_mode="human")
