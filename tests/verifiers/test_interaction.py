"""Interaction requirements (`written_by`, a task's `interaction`): the rows must be written by the interaction's steps.

A task about dragging a card was solved by posting the underlying form: the same
rows, written by another step. These trajectories are built by hand as the engine
records them (steps carry `writes`, from the world's request log).
"""

import json
import shutil

import pytest

from catalogue.packs import PackError, load_pack
from frontend.verifier_text import describe
from tests.episodes.fixtures import REPLICA, TASKS
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.interaction import (
    ASSERTION_NAME,
    interaction_actions,
    interaction_assertion,
    interaction_errors,
    verifier_with_interaction,
)
from verifiers.spec import SpecError, validate_spec

EMPTY = {"replica": "board", "tables": {}}
CARD = {"table": "board.issue", "id": "AGENT-7", "op": "update"}
CHANGE = {"table": "board.change", "id": "#41", "op": "insert"}
DRAG = "drag_and_drop(\"[data-key='AGENT-7']\", \"[data-drop-status='In Review'] .column__head\")"
LOGIN = [
    'fill("#id_email", "ana@example.test")',
    'fill("#id_password", "pw")',
    "click(\"role=button[name='Log in']\")",
]
SLOW = {"fault": "slow_response", "event": "fired", "index": 0, "seq": 3}


def step(i, action, writes=(), faults=()):
    return {
        "index": i,
        "action": action,
        "error": "",
        "url": "http://w-x.localhost:8000/projects/AGENT/board",
        "fault_events": list(faults),
        "writes": list(writes),
        "state_changed": bool(writes),
    }


def login_then(*rest):
    return [step(i, a) for i, a in enumerate(LOGIN)] + [
        step(len(LOGIN) + i, a, w, f) for i, (a, w, f) in enumerate(rest)
    ]


def judged(trajectory, **requirement):
    requirement = {
        "action": "drag_and_drop",
        "writes": [{"table": "board.issue", "id": "AGENT-7"}],
        "reason": "the instruction says to drag the card",
        **requirement,
    }
    spec = {"assertions": [{"name": "dragged", "kind": "trajectory", "written_by": [requirement]}]}
    return verify(spec, VerifierInputs(initial=EMPTY, final=EMPTY, trajectory=trajectory, replica="board")).assertions[
        0
    ]


def test_the_card_moved_by_a_drag_passes_and_a_pixel_drag_counts_too():
    assert judged(login_then((DRAG, [CARD, CHANGE], ())))["passed"]
    assert judged(login_then(("mouse_drag_and_drop(310, 220, 840, 96)", [CARD], ())))["passed"]


def test_a_pixel_agents_drag_by_hand_counts_and_a_press_released_in_place_does_not():
    by_hand = login_then(
        ("mouse_down(310, 220)", [], ()), ("mouse_move(600, 120)", [], ()), ("mouse_up(840, 96)", [CARD], ())
    )
    assert judged(by_hand)["passed"]
    clicked = login_then(
        ("mouse_down(840, 96)", [], ()), ("mouse_up(841, 97)", [CARD], ())
    )  # a click on the status menu item
    result = judged(clicked)
    assert not result["passed"] and result["detail"].startswith("step 4 (mouse_up) wrote board.issue AGENT-7")
    assert not judged(login_then(("mouse_up(840, 96)", [CARD], ())))["passed"]  # no press before it


@pytest.mark.parametrize(
    "action",
    [
        "click(\"role=menuitem[name='In Review']\")",  # the issue page's status menu
        'goto("/browse/AGENT-7/transition?status=In+Review")',
        "POST /browse/AGENT-7/transition [csrfmiddlewaretoken, status]",  # the form posted from the agent's own browser
        'select_option("#move-AGENT-7", "In Review")',
    ],
)
def test_the_same_rows_written_by_another_step_fail(action):
    result = judged(login_then((action, [CARD, CHANGE], ())))
    assert not result["passed"]
    assert (
        result["detail"].startswith("step 3 (")
        and "wrote board.issue AGENT-7, which must be written by drag_and_drop" in result["detail"]
    )


def test_a_channel_mutant_of_the_reference_fails():
    """The audit's channel mutant: the reference with its drag step's action replaced, its writes kept."""
    reference = login_then((DRAG, [CARD, CHANGE], ()))
    assert judged(reference)["passed"]
    mutant = [dict(s, action="POST /projects/AGENT/board") if s["action"] == DRAG else s for s in reference]
    assert not judged(mutant)["passed"]


def test_a_drag_that_wrote_nothing_does_not_cover_a_write_made_another_way():
    menu = "click(\"role=menuitem[name='In Review']\")"
    # the drag snapped back (refused), then the status menu made the change
    assert not judged(login_then((DRAG, [], ()), (menu, [CARD], ())))["passed"]
    # a drag, and the same row set again another way afterwards
    assert not judged(login_then((DRAG, [CARD], ()), (menu, [CARD], ())))["passed"]
    result = judged(login_then((DRAG, [], ())))
    assert not result["passed"] and result["detail"] == "no drag_and_drop step wrote board.issue AGENT-7"


def test_every_row_of_the_requirement_must_be_dragged():
    other = {"table": "board.issue", "id": "OPS-4", "op": "update"}
    rows = [{"table": "board.issue", "id": "AGENT-7"}, {"table": "board.issue", "id": "OPS-4"}]
    assert judged(login_then((DRAG, [other], ()), (DRAG, [CARD], ())), writes=rows)["passed"]
    assert not judged(login_then((DRAG, [CARD], ())), writes=rows)["passed"]
    menu = "click(\"role=menuitem[name='Waiting for support']\")"
    assert not judged(login_then((menu, [other], ()), (DRAG, [CARD], ())), writes=rows)["passed"]


def test_a_fault_armed_on_the_interactions_page_must_have_fired_by_the_drag():
    assert judged(login_then(("noop()", [], (SLOW,)), (DRAG, [CARD], ())), fault="slow_response")["passed"]
    assert judged(login_then((DRAG, [CARD], (SLOW,))), fault="slow_response")["passed"]  # met during the drag itself
    never = judged(login_then((DRAG, [CARD], ())), fault="slow_response")
    assert not never["passed"] and "never fired" in never["detail"]
    # met only after the card had moved: the drag never met the slow board
    assert not judged(login_then((DRAG, [CARD], ()), ("noop()", [], (SLOW,))), fault="slow_response")["passed"]
    armed_only = {**SLOW, "event": "armed"}
    assert not judged(login_then(("noop()", [], (armed_only,)), (DRAG, [CARD], ())), fault="slow_response")["passed"]


def test_the_args_pattern_narrows_the_interaction_to_its_element():
    dragged_other = "drag_and_drop(\"[data-key='AGENT-9']\", \"[data-drop-status='In Review'] .column__head\")"
    assert judged(login_then((DRAG, [CARD], ())), args="AGENT-7")["passed"]
    assert not judged(login_then((dragged_other, [CARD], ())), args="AGENT-7")["passed"]


def test_a_task_declaring_an_interaction_is_judged_with_one_more_assertion():
    verifier = {
        "assertions": [
            {
                "name": "moved",
                "kind": "state",
                "table": "board.issue",
                "where": {"key": "{key}"},
                "expect": {"count": 1},
            }
        ]
    }
    declared = {"action": "drag_and_drop", "writes": [{"table": "board.issue", "id": "{key}"}], "reason": "drag it"}
    judged_by = verifier_with_interaction(verifier, declared)
    assert [a["name"] for a in judged_by["assertions"]] == ["moved", ASSERTION_NAME]
    assert judged_by["assertions"][1]["written_by"] == [declared]
    assert verifier_with_interaction(verifier, None) is verifier
    assert interaction_actions([declared, {**declared, "action": "select_option"}, declared]) == [
        "drag_and_drop",
        "select_option",
    ]
    validate_spec(judged_by, replica="board", params={"key": "AGENT-7"})


@pytest.mark.parametrize(
    "declared, path, message",
    [
        (
            {"action": "drag", "writes": [{"table": "board.issue", "id": "A-1"}], "reason": "r"},
            ".action",
            "unknown action 'drag'",
        ),
        (
            [{"action": "drag_and_drop", "writes": [{"table": "board.isue", "id": "A-1"}], "reason": "r"}],
            "[0].writes[0].table",
            "unknown model 'board.isue'",
        ),
        ([{"action": "drag_and_drop", "writes": [], "reason": "r"}], "[0].writes", "at least 1 item"),
        (
            [{"action": "drag_and_drop", "writes": [{"table": "board.issue", "id": "A-1"}]}],
            "[0].reason",
            "required key is missing",
        ),
        (
            [{"action": "drag_and_drop", "writes": [{"table": "board.issue"}], "reason": "r"}],
            "[0].writes[0].id",
            "required key is missing",
        ),
        (
            [
                {
                    "action": "drag_and_drop",
                    "writes": [{"table": "board.issue", "id": "A-1"}],
                    "reason": "r",
                    "fault": "(",
                }
            ],
            "[0].fault",
            "bad regular expression",
        ),
        ([], "", "must be one requirement"),
        ("drag_and_drop", "", "must be one requirement"),
    ],
)
def test_a_bad_interaction_is_refused_with_its_path(declared, path, message):
    errors = interaction_errors(declared, replica="board")
    assert len(errors) == 1 and errors[0][0] == path and message in errors[0][1], errors


def test_the_verifier_schema_refuses_a_written_by_without_its_rows():
    spec = {
        "assertions": [{"name": "t", "kind": "trajectory", "written_by": [{"action": "drag_and_drop", "reason": "r"}]}]
    }
    with pytest.raises(SpecError, match=r"assertions\[0\]\.written_by\[0\]\.writes: required key is missing"):
        validate_spec(spec, replica="board")


@pytest.mark.django_db
def test_the_pack_loader_names_the_file_and_path_of_a_bad_interaction(tmp_path):
    folder = tmp_path / "tasks"
    shutil.copytree(TASKS, folder)
    path = folder / "report-owner.json"
    spec = json.loads(path.read_text())
    spec["interaction"] = {"action": "click", "writes": [{"table": "testbed.nope", "id": "{note}"}], "reason": "r"}
    path.write_text(json.dumps(spec))
    with pytest.raises(PackError) as info:
        load_pack(REPLICA, directory=folder)
    assert any(
        e.endswith(
            "report-owner.json: interaction.writes[0].table: unknown model 'testbed.nope' (models: "
            "testbed.member, testbed.note)"
        )
        for e in info.value.errors
    ), info.value.errors
    spec["interaction"] = {"action": "click", "writes": [{"table": "testbed.note", "id": "{nope}"}], "reason": "r"}
    path.write_text(json.dumps(spec))
    with pytest.raises(PackError) as info:
        load_pack(REPLICA, directory=folder)
    assert any("interaction.writes[0].id: placeholder {nope} is not filled by params" in e for e in info.value.errors)


def test_authors_read_the_requirement_on_the_task_page():
    assertion = interaction_assertion(
        [
            {
                "action": "drag_and_drop",
                "writes": [{"table": "board.issue", "id": "AGENT-7"}],
                "fault": "slow_response",
                "reason": "r",
            }
        ]
    )
    assert describe(assertion) == (
        "The trajectory: board.issue AGENT-7 written by drag_and_drop only, the fault slow_response having "
        "fired by then."
    )
