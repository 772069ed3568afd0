"""The episode loop in a real Chromium: steps, errors that don't end the episode, verdicts, storage, determinism."""

import os

import pytest

from catalogue.packs import task_current
from episodes.blobs import screenshot_store
from episodes.creation import episode_create
from episodes.driver import EpisodeDriver, episode_play
from episodes.models import Episode, Screenshot, Step
from episodes.trajectory import trajectory_export, trajectory_parse
from ops.fleet import chromium_kill
from replicas.worlds.models import World

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def answer(task_id):
    return task_current(task_id).reference_solution


def test_reference_solution_passes_and_is_recorded_with_steps_screenshots_and_rewards(live_pack):
    episode = episode_play(task_id="testbed.report-owner", actions=answer("testbed.report-owner"))
    assert episode.status == "succeeded", (episode.error, episode.verdict)
    steps = list(episode.steps.order_by("index"))
    assert [s.action for s in steps] == answer("testbed.report-owner")
    assert steps[0].url.endswith(f"/notes/{episode.params['note']}") and steps[0].error == ""
    assert all(s.screenshot is not None and s.screenshot.read().startswith(b"\x89PNG") for s in steps)
    assert all(s.action_ms > 0 for s in steps)
    assert steps[1].parsed["name"] == "send_msg_to_user"
    assert steps[0].changed is True  # goto moved the page; action_precision counts it
    assert episode.messages == [f"The owner is {episode.params['owner']}."]
    assert episode.verdict["passed"] is True and episode.rewards["task_completion"] == 1.0
    assert episode.final_state.state_hash == episode.initial_state.state_hash  # reading changes nothing
    assert episode.clock_end > episode.world.template.clock  # the world clock moved with the steps
    assert episode.started_at <= episode.finished_at


def test_a_wrong_answer_fails_with_a_verdict_naming_the_assertion(live_pack):
    episode = episode_play(task_id="testbed.report-owner", actions=['send_msg_to_user("I don\'t know.")'])
    assert episode.status == "failed"
    failed = [a["name"] for a in episode.verdict["assertions"] if not a["passed"]]
    assert failed == ["reports the owner"]
    assert episode.rewards["task_completion"] == 0.0


def test_malformed_action_missing_element_and_other_origin_navigation_become_errors_and_the_episode_goes_on(live_pack):
    actions = ['click("a12"', 'click("a999999")', 'goto("http://example.com/")', *answer("testbed.open-note")]
    episode = episode_play(task_id="testbed.open-note", actions=actions)
    errors = list(episode.steps.order_by("index").values_list("error", flat=True))
    assert len(errors) == 4
    assert "invalid action" in errors[0]
    assert "a999999" in errors[1]
    assert "only pages of this world" in errors[2]
    assert errors[3] == ""
    assert list(episode.steps.order_by("index").values_list("changed", flat=True))[:3] == [False, False, False]
    assert episode.status == "succeeded"
    assert "/login?next=" in episode.steps.get(index=2).url  # still in the world, on its sign-in page


def test_the_episode_ends_on_a_stop_action_when_the_agent_is_done_or_at_the_step_limit(live_pack):
    stopped = episode_play(task_id="testbed.open-note", actions=[*answer("testbed.open-note"), "noop()"])
    assert stopped.steps.count() == 1 and stopped.status == "succeeded"
    assert episode_play(task_id="testbed.open-note", actions=[]).status == "failed"  # done without answering
    limited = episode_play(task_id="testbed.open-note", actions=["noop()"] * 10)
    assert limited.steps.count() == task_current("testbed.open-note").limits["max_steps"]
    assert limited.status == "failed"


def test_time_limit_ends_the_episode_timed_out_with_a_verdict(live_pack):
    task = task_current("testbed.open-note")
    task.spec = {**task.spec, "limits": {"max_steps": 4, "max_seconds": 1e-9}}
    episode = episode_create(task=task, agent="script", status=Episode.Status.RUNNING)
    driver = EpisodeDriver(Episode.objects.get(pk=episode.pk))
    driver.instance, driver.limits = task, task.limits
    driver.open()
    assert driver.out_of_time
    episode = driver.finish(status=Episode.Status.TIMED_OUT, error="episode time limit reached")
    assert episode.status == "timed_out" and episode.verdict is not None and episode.rewards is not None


def test_same_task_and_actions_give_the_same_state_hash_and_byte_identical_screenshots(live_pack):
    params = task_current("testbed.open-note").params
    actions = [
        f'fill("#id_email", "{params["email"]}")',
        f'fill("#id_password", "{params["password"]}")',
        "click(\"role=button[name='Sign in']\")",
        'goto("/notes/1")',
    ]  # the task's limit is 4 steps
    a = episode_play(task_id="testbed.open-note", actions=actions)
    shots = Screenshot.objects.count()
    b = episode_play(task_id="testbed.open-note", actions=actions)
    assert a.world_id != b.world_id
    assert a.final_state_id == b.final_state_id
    sha = lambda ep: list(ep.steps.order_by("index").values_list("screenshot__sha256", flat=True))  # noqa: E731
    assert sha(a) == sha(b) and None not in sha(a)
    assert a.steps.get(index=3).url.endswith(
        "/notes/1"
    )  # signed in: the note, not the sign-in page, not the sign-in page
    assert len(set(sha(a))) == 4  # four different screens, each byte-identical across the two runs
    assert Screenshot.objects.count() == shots  # stored once


def test_screenshots_are_stored_once_by_content_hash(db, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    first = screenshot_store(png=b"\x89PNG fake one")
    again = screenshot_store(png=b"\x89PNG fake one")
    other = screenshot_store(png=b"\x89PNG fake two")
    assert first.pk == again.pk != other.pk
    assert (tmp_path / first.path).read_bytes() == b"\x89PNG fake one"
    assert len(list((tmp_path / "screenshots").rglob("*.png"))) == 2


def test_trajectory_export_reads_back_with_the_same_actions(live_pack):
    actions = ['click("a999999")', *answer("testbed.open-note")]
    episode = episode_play(task_id="testbed.open-note", actions=actions)
    text = trajectory_export(episode=episode)
    lines = text.splitlines()
    assert len(lines) == 1 + len(actions)
    trajectory = trajectory_parse(text)
    assert trajectory.actions == actions
    assert trajectory.header["task"] == "testbed.open-note" and trajectory.header["passed"] is True
    assert (
        trajectory.steps[0]["error"]
        and trajectory.steps[0]["screenshot"] == Step.objects.get(episode=episode, index=0).screenshot.sha256
    )


class ChromiumKiller:
    """Plays the task's reference, after SIGKILLing this process's Chromium at step 2 of each of its first `kills`
    tries.
    """

    def __init__(self, actions, *, kills):
        self.actions, self.kills, self.tries = actions, kills, 0

    def reset(self, task):
        self.tries += 1
        self.n = 0

    def act(self, obs):
        self.n += 1
        if self.n == 2 and self.tries <= self.kills:
            assert chromium_kill(os.getpid()) >= 1  # a real crash: the browser's processes die under the episode
        return self.actions[self.n - 1] if self.n <= len(self.actions) else None


def _run_with(agent):
    """(the finished episode of testbed.report-owner, the world it started in)"""
    from episodes.driver import episode_run

    episode = episode_create(task="testbed.report-owner", agent="script", status=Episode.Status.RUNNING)
    agent.reset(None)
    return episode_run(episode_id=episode.pk, agent=agent), episode.world_id


def test_a_chromium_killed_mid_episode_is_relaunched_and_the_episode_retried_from_a_fresh_world(live_pack):
    # the kill lands before the second step of the first try, with the note open
    goto, report = answer("testbed.report-owner")
    actions = [goto, "noop()", report]
    agent = ChromiumKiller(actions, kills=1)
    episode, first_world = _run_with(agent)
    assert episode.status == "succeeded", episode.error
    assert episode.tries == 2 and agent.tries == 2  # one retry, counted as a try, the agent reset for it
    assert list(episode.steps.order_by("index").values_list("action", flat=True)) == actions  # one set, from 0
    assert episode.world_id != first_world and not World.objects.filter(pk=first_world).exists()
    again = episode_play(task_id="testbed.open-note", actions=answer("testbed.open-note"))
    assert again.status == "succeeded"  # the process's relaunched browser serves the next episode too


def test_an_episode_whose_chromium_crashes_at_every_try_is_errored_after_the_limit_of_tries(live_pack, settings):
    settings.EPISODE_MAX_TRIES = 2
    episode, _ = _run_with(ChromiumKiller([*answer("testbed.report-owner")[:1], "noop()", "noop()"], kills=99))
    assert episode.status == "errored" and episode.tries == 2
    assert episode.error.startswith("browser crashed: ") and episode.error.endswith("; after 2 tries")
    assert episode.steps.count() == 1  # the last try's step before the crash: none of the first try's


def test_a_remote_agent_that_cannot_be_reached_ends_the_episode_failed_saying_why(live_pack):
    from episodes.driver import episode_run
    from episodes.queue.claims import episode_claim

    episode = episode_create(task="testbed.open-note", agent="http:http://127.0.0.1:9/act")  # nothing listens
    assert episode_claim(episode_id=episode.pk, worker="test:1")
    episode = episode_run(episode_id=episode.pk)
    assert episode.status == "failed" and episode.error.startswith("agent: ")
    assert episode.verdict is not None
