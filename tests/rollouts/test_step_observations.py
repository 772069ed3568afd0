"""Every engine step keeps the observation text its action was chosen on, in the episode's mode, so a
trainer can rebuild its prompts; a group's rollouts hand them back beside the actions."""

import pytest

from episodes.creation import episode_create
from episodes.driver import EpisodeDriver
from episodes.models import Episode, Run
from episodes.observation import DISPLAY_ORIGIN, render_observation
from episodes.rollouts import group_rollout_collect
from tests.pack_episodes import sync_tasks

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_each_step_keeps_the_text_its_agent_was_given_in_diff_mode_and_a_group_returns_it(tmp_path):
    (task,) = sync_tasks("testbed", ["rename-note"], tmp_path / "pack")
    settings = {"observation": {"mode": "diff", "screenshots": False, "full_every": 2}}
    run = Run.objects.create(task_filter=task.task_id, agent="script", attempts=1, shared_variation=True)
    episode = episode_create(
        task=task, agent="script", run=run, status=Episode.Status.RUNNING, agent_settings=settings
    )
    driver = EpisodeDriver(episode)
    obs, previous, given = driver.open(), None, []
    for action in episode.instance.reference_solution:
        # what an agent of this mode is shown before it acts, computed here from the observations alone
        given.append(render_observation(obs, "diff", previous, step=obs.step, full_every=2))
        previous = obs.axtree
        obs, _stop = driver.step(action)
    episode = driver.finish()
    assert episode.status == "succeeded", (episode.error, episode.verdict)
    kept = list(episode.steps.order_by("index").values_list("observation", flat=True))
    assert kept == given and len(kept) >= 3
    # the mode is the episode's: the whole page at steps 0 and 2, only what changed at step 1
    assert "\nPage:\n" in kept[0] and "\nPage:\n" in kept[2]
    assert "Page changes since the last step" in kept[1]
    assert all(text.startswith(f"URL: {DISPLAY_ORIGIN}/") and "localhost" not in text for text in kept)
    group = group_rollout_collect(run_id=run.pk, timeout=0)
    assert group.episodes[0].observations == kept
    assert group.episodes[0].actions == list(episode.instance.reference_solution)
