"""Every engine step keeps the observation text its action was chosen on, in the episode's mode, so a
trainer can rebuild its prompts; a group's rollouts hand them back beside the actions."""

import pytest

from episodes.creation import episode_create
from episodes.driver import EpisodeDriver
from episodes.engine.observation import DISPLAY_ORIGIN, render_observation
from episodes.models import Episode, Run
from episodes.rollouts import group_rollout_collect
from tests.pack_episodes import sync_tasks
from verifiers.actions import is_bid, parse_action

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_each_step_keeps_the_text_its_agent_was_given_in_diff_mode_and_a_group_returns_it(tmp_path):
    (task,) = sync_tasks("testbed", ["rename-note"], tmp_path / "pack")
    settings = {"observation": {"mode": "diff", "screenshots": False, "full_every": 2}}
    run = Run.objects.create(task_filter=task.task_id, agent="script", attempts=1, shared_variation=True)
    episode = episode_create(task=task, agent="script", run=run, status=Episode.Status.RUNNING, agent_settings=settings)
    driver = EpisodeDriver(episode)
    obs, previous, given, bids = driver.open(), None, [], []
    for action in episode.instance.reference_solution:
        # what an agent of this mode is shown before it acts, computed here from the observations alone
        given.append(render_observation(obs, "diff", previous, step=obs.step, full_every=2))
        # and the bid the page gave the element a selector names, read here before the step
        parsed = parse_action(action)
        element = parsed.element if parsed.targets_element else None
        if element and not is_bid(element):
            element = driver.session.page.locator(element).first.get_attribute("bid")
        bids.append(element or "")
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
    # selectors are kept with the bid of the element they named, as an agent seeing the page would write it
    selector_steps = [i for i, a in enumerate(episode.instance.reference_solution) if "#" in a or "role=" in a]
    assert selector_steps, "the reference solution names no element by selector: the test would check nothing"
    assert list(episode.steps.order_by("index").values_list("target_bid", flat=True)) == bids
    assert all(is_bid(bids[i]) for i in selector_steps)
    group = group_rollout_collect(run_id=run.pk, timeout=0)
    assert group.episodes[0].observations == kept
    assert group.episodes[0].actions == list(episode.instance.reference_solution)
