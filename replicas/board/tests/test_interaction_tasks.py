"""The board's drag-and-drop tasks declare the interaction they are about, and are judged on it.

Judged without a browser on the template world: the card moved as the task asks, once
by a drag step and once by a step of another channel that wrote the same rows (the
issue page's status menu, the form posted from the agent's own browser), scored by the
task's current verifier and reward signals. `manage.py verify_tasks board` plays the
issue-page way in Chromium (negative examples of drag-card-to-review and drag-on-slow-board).
"""

import copy
import re

import pytest

from catalogue.packs import load_pack, task_current, task_sync
from replicas.worlds.services import template_get_or_build
from replicas.worlds.snapshot import snapshot
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.interaction import ASSERTION_NAME, accepted_actions, interaction_requirements
from verifiers.placeholders import fill
from verifiers.rewards import reward_signals

INTERACTION_TASKS = {
    "drag-card-to-review",
    "drag-into-sprint-top",
    "drag-on-slow-board",
    "rank-backlog-to-top",
    "rank-card-to-top",
    "regroup-card-by-epic",
    "kanban-pull-within-wip",
    "review-after-card-conflict",
}


@pytest.fixture(scope="module")
def pack(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        return load_pack("board")


@pytest.mark.django_db
def test_every_task_whose_instruction_asks_for_a_drag_declares_it(pack):
    declared = {t.spec["slug"] for t in pack if t.spec.get("interaction")}
    asks = {t.spec["slug"] for t in pack if re.search(r"\bdrag", t.spec["instruction"], re.IGNORECASE)}
    assert declared == asks == INTERACTION_TASKS
    for t in pack:
        for requirement in interaction_requirements(t.spec.get("interaction")):
            # the reference makes the interaction, so the requirement can be met
            assert any(a.split("(")[0] in accepted_actions(requirement["action"]) for a in t.spec["reference_solution"])
            assert requirement["reason"].strip(), t.task_id
    faults = {
        t.spec["slug"]: {f["name"] for f in t.spec["faults"]} for t in pack if t.spec["slug"] in INTERACTION_TASKS
    }
    # a fault armed on the board must be met by the drag, or error_recovery is earned for nothing
    for t in pack:
        if t.spec["slug"] in INTERACTION_TASKS:
            met = {r.get("fault") for r in interaction_requirements(t.spec["interaction"])} - {None}
            assert met == faults[t.spec["slug"]], t.task_id


def _card_moved(task):
    """Inputs of the task's world with its card in review, as the reference leaves it, and the writes that did it."""
    template = template_get_or_build(replica="board", seed=task.spec["seed"], variant=task.spec["variant"])
    initial = snapshot(template)
    final = copy.deepcopy(initial)
    key = task.params["key"]
    final["tables"]["board.issue"][key]["status"] = "In Review"
    writes = [{"table": "board.issue", "id": key, "op": "update"}]
    return initial, final, writes, template.clock.isoformat().replace("+00:00", "Z")


def _steps(task, writing_action, writes):
    login = [fill(a, task.params) for a in task.spec["reference_solution"][:3]]
    steps = [
        {"index": i, "action": a, "error": "", "url": "", "fault_events": [], "writes": []} for i, a in enumerate(login)
    ]
    return steps + [
        {"index": 3, "action": writing_action, "error": "", "url": "", "fault_events": [], "writes": writes}
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "channel",
    [
        "click(\"role=menuitem[name='In Review']\")",  # the issue page's status menu
        "POST /browse/{key}/transition [csrfmiddlewaretoken, status]",  # the form posted directly
    ],
)
def test_the_card_moved_another_way_scores_0_and_the_drag_scores_1(channel):
    task_sync(replica="board")
    task = task_current("board.drag-card-to-review")
    initial, final, writes, clock = _card_moved(task)

    def scored(action):
        inputs = VerifierInputs(
            initial=initial,
            final=final,
            trajectory=_steps(task, action, writes),
            params=task.params,
            clock=clock,
            replica="board",
        )
        verdict = verify(task.verifier, inputs)
        rewards = reward_signals(verdict=verdict, trajectory=inputs.trajectory, reference_steps=4)
        return {a["name"]: a["passed"] for a in verdict.assertions}, rewards["episode_reward"]

    drag = fill(task.spec["reference_solution"][3], task.params)
    held, reward = scored(drag)
    assert all(held.values()) and reward == 1.0
    held, reward = scored(fill(channel, task.params))
    # the same end state, nothing collateral: only the interaction assertion tells them apart
    assert held == {**{name: True for name in held}, ASSERTION_NAME: False} and reward == 0.0
