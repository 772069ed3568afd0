"""The gym API: gymnasium.make("replicagym/<task>"), the env checker where it applies, a BrowserGym-style loop."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils import env_checker
from replicagym.catalogue.packs import task_current

from episodes.gym import ReplicaEnv, UnicodeText, register_envs, register_task
from episodes.models import Episode

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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
    assert obs["url"].endswith("/notes/3") and "[" in obs["axtree"]
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
    episode = Episode.objects.get(pk=info["episode"])
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


def test_gymnasium_env_checker_passes_where_it_applies(env_id):
    env = gymnasium.make(env_id, render_mode="rgb_array").unwrapped
    env_checker.check_action_space(env.action_space)
    env_checker.check_space_limit(env.action_space, "action")
    env_checker.check_observation_space(env.observation_space)
    env_checker.check_space_limit(env.observation_space, "observation")
    env_checker.check_seed_deprecation(env)
    env_checker.check_reset_return_info_deprecation(env)
    env_checker.check_reset_return_type(env)
    env_checker.check_reset_options(env)
    env_checker.env_reset_passive_checker(env)
    env_checker.env_step_passive_checker(env, env.action_space.sample())
    env_checker.check_returned_data_not_reused(env)
    env_checker.env_render_passive_checker(env)
    # Not applicable: check_reset_seed_determinism and check_step_determinism compare two
    # resets' observations for equality, but every reset is a fresh world served on its
    # own origin (the url carries the world's token) and elapsed_time is wall time. What
    # must be deterministic is checked below with those two fields set aside.
    env.close()


def test_two_resets_give_the_same_observation_apart_from_the_world_origin_and_elapsed_time(env_id):
    env = gymnasium.make(env_id).unwrapped
    first, _ = env.reset(seed=1)
    second, _ = env.reset(seed=1)
    env.close()
    origin = lambda url: url.split("/", 3)[3]  # noqa: E731 - the path after http://w-<token>.localhost:port/
    assert first["url"] != second["url"] and origin(first["url"]) == origin(second["url"])
    assert np.array_equal(first["screenshot"], second["screenshot"])
    for key in set(first) - {"url", "screenshot", "elapsed_time", "open_pages_urls"}:
        assert first[key] == second[key], key


def test_unknown_task_and_bad_render_mode_fail_clearly(live_pack):
    with pytest.raises(LookupError, match="unknown task 'testbed.nope'"):
        ReplicaEnv("testbed.nope")
    with pytest.raises(ValueError, match="render_mode must be one of"):
        ReplicaEnv("testbed.open-note", render_mode="human")
