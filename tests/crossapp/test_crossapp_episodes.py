"""Cross-app episodes (issue 32): a task of the crossapp pack is played in a workspace, one app per tab.

Every task's reference solution passes in a real browser (judged on the group's state, with no
undeclared mutant surviving), doing nothing and each negative example that only answers otherwise fail;
the agent switches tabs and reaches no origin outside its workspace; dense checkpoints are reported at the
step that reaches them, whichever app that step wrote to.
"""

import pytest

from catalogue.packs import WORKSPACE_PACK, load_pack, task_current
from episodes.agents import ScriptedAgent, task_info
from episodes.creation import API_CLAIM, EpisodeError, episode_create
from episodes.driver import episode_run
from episodes.engine.server import replica_server
from episodes.models import Episode
from episodes.runs import run_create, run_episodes_create
from episodes.verdict import verdict_compute
from replicas.worlds.routing import world_origin
from replicas.worlds.workspaces import workspace_create, workspace_world
from tests.pack_episodes import audit_holes, reference_play, rewards_answering, shares, sync_tasks, why

TABS_TASK = f"{WORKSPACE_PACK}.escalate-ticket-to-work-item"  # desk (tab 0) and board (tab 1)


@pytest.mark.django_db
def test_every_task_names_a_workspace_with_checkpoints_a_reference_and_negatives():
    pack = load_pack(WORKSPACE_PACK)
    assert len(pack) >= 20
    # desk and board, desk and shop, all three; several armed with faults on a member
    groups = {tuple(sorted(t.spec["workspace"]["replicas"])) for t in pack}
    assert {("board", "supportdesk"), ("shop", "supportdesk"), ("board", "shop", "supportdesk")} <= groups
    assert sum(bool(t.spec["workspace"].get("faults")) for t in pack) >= 5
    for task in pack:
        assert len(task.spec["workspace"]["replicas"]) >= 2 and "replica" not in task.spec, task.task_id
        assert task.spec["verifier"]["checkpoints"], task.task_id
        assert task.spec["reference_solution"] and task.spec["negative_examples"], task.task_id
        # the reference works in more than one tab: a task one app could do alone is no cross-app task
        assert any(a.startswith("tab_focus(") for a in task.spec["reference_solution"]), task.task_id
        apps = {a["table"].split(".")[0] for a in task.spec["verifier"]["assertions"] if "table" in a}
        assert len(apps) >= 2, f"{task.task_id} asserts on {apps} only"


@pytest.mark.django_db
def test_a_cross_app_task_takes_no_other_seed_or_variation():
    with pytest.raises(EpisodeError, match="cross-app task"):
        episode_create(task=TABS_TASK, agent="oracle", seed=3)
    with pytest.raises(EpisodeError, match="cross-app task"):
        episode_create(task=TABS_TASK, agent="oracle", variation=5)
    with pytest.raises(EpisodeError, match="cross-app task"):  # nor is it played in the agent's own browser
        episode_create(task=TABS_TASK, agent="external", status=Episode.Status.RUNNING, claimed_by=f"{API_CLAIM}1")


@pytest.mark.django_db
def test_a_varying_run_plays_a_cross_app_task_on_its_own_workspace():
    """A run varies its tasks by default; a cross-app task in it keeps its seed and picks instead of failing the run."""
    task = task_current(TABS_TASK)
    run = run_create(task_filter=TABS_TASK, agent="oracle", attempts=2, seed=12345)
    assert run.seed == 12345
    episodes = run_episodes_create(run_id=run.pk, enqueue=False)
    assert [(e.world_seed, e.variation, e.params) for e in episodes] == [(task.spec["seed"], None, task.params)] * 2


# browser tests, each playing a share of the pack of about equal cost; on PostgreSQL, a sample that holds
# every assertion kind of the pack (see tests/pack_episodes.py). Each plays the references only: doing nothing and
# a negative that only answers otherwise are judged on the reference's episode, and a negative that acts otherwise
# needs an episode of its own, which `manage.py verify_tasks` plays (issue 28: the suite has no room for them).
SHARES = shares(WORKSPACE_PACK)
NOTHING_SHOWN = {"url": "", "title": "", "html": ""}


@pytest.mark.browser
@pytest.mark.parametrize("index", range(len(SHARES)))
def test_references_pass_and_nothing_or_other_answers_fail_in_a_real_browser(transactional_db, tmp_path, index):
    failures = []
    for task in sync_tasks(WORKSPACE_PACK, SHARES[index], tmp_path / "tasks"):
        done = reference_play(task)
        rewards = done.rewards or {}
        if rewards.get("task_completion") != 1.0 or rewards.get("collateral") != 1.0:
            failures.append(f"{task.task_id}: {why(done)}")
            continue
        # judged on the group: the stored final state holds every app's tables, and every milestone was reached
        assert done.final_state.doc["replica"] == ",".join(sorted(task.spec["workspace"]["replicas"]))
        assert all(c["reached"] for c in done.verdict["checkpoints"]), task.task_id
        failures += audit_holes(task, done)
        # doing nothing: the group's state as the episode found it, no answer, a blank page
        _, nothing = verdict_compute(
            episode=done, final_doc=done.initial_state.doc, messages=[], final_page=NOTHING_SHOWN
        )
        if nothing["task_completion"] != 0.0:
            failures.append(f"{task.task_id}: doing nothing passes")
        for example in task.negative_examples:
            answered = rewards_answering(done, task.reference_solution, example["actions"])
            if answered is not None and answered["task_completion"] != 0.0:
                failures.append(f"{task.task_id}: {example['name']} passes, judged on the reference episode's steps")
    assert not failures, "\n".join(failures)


# sqlite_only: the browser's confinement to the workspace's origins; the episode machinery under it runs on both
# backends in the test above
@pytest.mark.browser
@pytest.mark.sqlite_only
def test_tabs_switch_between_apps_and_reach_nothing_outside_the_workspace(transactional_db):
    task = task_current(TABS_TASK)
    episode = episode_create(task=task, agent="script", status=Episode.Status.RUNNING)
    desk, board = (workspace_world(episode.world.workspace, r) for r in ("supportdesk", "board"))
    assert episode.world == desk
    _host, port = replica_server()
    # another workspace's board is served by the same server, but it is not this agent's
    outsider = workspace_world(workspace_create(replicas=["supportdesk", "board"], seed=7, variant="small"), "board")
    actions = [
        "tab_focus(1)",
        'goto("http://example.org/")',
        f'goto("{world_origin(outsider, port)}/")',
        'goto("/browse")',
        "tab_close()",
    ]
    agent = ScriptedAgent(actions)
    agent.reset(task_info(task))
    steps = list(episode_run(episode_id=episode.pk, agent=agent).steps.order_by("index"))
    desk_origin, board_origin = world_origin(desk, port), world_origin(board, port)
    assert steps[0].url.startswith(board_origin) and not steps[0].error  # the board's tab, signed out: its login
    for step in steps[1:3]:
        assert "was refused" in step.error and step.url.startswith(board_origin), (step.action, step.error)
    assert steps[3].url.startswith(board_origin + "/") and not steps[3].error  # a path resolves on the active app
    assert steps[4].url.startswith(desk_origin + "/") and not steps[4].error  # closing the board's tab leaves the desk
    # each step keeps the tabs open after it, named by app, the focused one marked (the episode viewer shows them)
    assert [(t["app"], t["active"]) for t in steps[0].tabs] == [("supportdesk", False), ("board", True)]
    assert steps[3].tabs[1]["url"].startswith(board_origin + "/browse")
    assert [(t["app"], t["active"]) for t in steps[4].tabs] == [("supportdesk", True)]
