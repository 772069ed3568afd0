"""A task's interaction requirement: the UI interaction (a drag and drop on the board) that must make the task's writes.

A task about an interaction is not done when the same rows are written another way
(the issue page's status menu, the form posted directly): the task file declares it as
`interaction`, and the task's verifier gets one trajectory assertion (`written_by`) that
reads which step wrote each row (steps carry `writes`, from the world's request log).
"""

import json
import re

from .actions import action_parts, parse_action
from .spec import fill_params, spec_errors

ASSERTION_NAME = "the change was made by the interaction the instruction asks for"

# The same interaction made on an element or at coordinates: a pixel agent drags with
# mouse_drag_and_drop what a DOM agent drags with drag_and_drop.
PIXEL_TWIN = {
    "drag_and_drop": "mouse_drag_and_drop",
    "click": "mouse_click",
    "dblclick": "mouse_dblclick",
    "upload_file": "mouse_upload_file",
}


def interaction_requirements(declared) -> list[dict]:
    """A task's `interaction` as a list: the task file may give one requirement or a list of them."""
    if not declared:
        return []
    return [declared] if isinstance(declared, dict) else list(declared)


def interaction_assertion(requirements: list[dict]) -> dict:
    """The trajectory assertion that checks a task's interaction requirements."""
    return {
        "name": ASSERTION_NAME,
        "kind": "trajectory",
        "description": "Each row must be written by a step of the named action, and by no step of another; "
        "with `fault`, the fault must have fired by the time of that step.",
        "written_by": requirements,
    }


def verifier_with_interaction(verifier: dict, declared) -> dict:
    """The verifier an episode of the task is judged by: the task's own, plus its interaction check if it declares
    one.
    """
    requirements = interaction_requirements(declared)
    if not requirements:
        return verifier
    return {**verifier, "assertions": [*verifier.get("assertions", []), interaction_assertion(requirements)]}


def interaction_errors(declared, *, replica: str, params: dict | None = None) -> list[tuple[str, str]]:
    """Problems of a task's `interaction` as (path under it, message): "[0].writes[0].table", "unknown model ...".

    Checked as the trajectory assertion it becomes, so the task file and the verifier
    agree on what a requirement is; with `params` the placeholders are filled first.
    """
    if not isinstance(declared, (dict, list)) or not declared:
        return [("", "must be one requirement {action, writes, reason} or a non-empty list of them")]
    requirements = interaction_requirements(declared)
    if params is not None:
        requirements = fill_params(requirements, params)
    prefix = "assertions[0].written_by"
    out = []
    for path, message in spec_errors({"assertions": [interaction_assertion(requirements)]}, replica=replica):
        rest = path[len(prefix) :] if path.startswith(prefix) else ""
        # one requirement given as an object has no [0] in the task file
        out.append((rest.removeprefix("[0]") if isinstance(declared, dict) else rest, message))
    return out


def interaction_actions(declared) -> list[str]:
    """The action names a task's interaction requirements name, each once, in order (pixel twins not included)."""
    names = []
    for requirement in interaction_requirements(declared):
        if isinstance(requirement, dict) and requirement.get("action") not in names:
            names.append(requirement.get("action"))
    return names


def accepted_actions(action: str) -> set[str]:
    """The action names that make the interaction `action`: itself and its pixel twin."""
    return {action, PIXEL_TWIN[action]} if action in PIXEL_TWIN else {action}


# A press released this far (in CSS pixels, across plus down) from where it began is a drag, as
# the board's script (board.js) and the browsers' own drag threshold take it, not a click.
DRAG_MIN_PX = 5


def _step_actions(steps: list[dict]) -> list[tuple[str, str]]:
    """(name, arguments) of each step; a mouse_up that ends a press begun elsewhere is the drag it makes.

    A pixel agent may drag by hand (mouse_down, mouse_move, mouse_up): the drop, and with
    it the write, comes with the mouse_up, which is named mouse_drag_and_drop here. A
    mouse_up where its press began is a click, and stays a mouse_up.
    """
    out, pressed = [], None
    for step in steps:
        name, args = action_parts(step.get("action", ""))
        if name == "mouse_down":
            pressed = parse_action(step["action"])
        elif name == "mouse_up" and pressed is not None:
            released = parse_action(step["action"])
            if abs(released.x - pressed.x) + abs(released.y - pressed.y) >= DRAG_MIN_PX:
                name = "mouse_drag_and_drop"
            pressed = None
        out.append((name, args))
    return out


def _row(write) -> tuple[str, str] | None:
    if not isinstance(write, dict):
        return None
    return str(write.get("table")), str(write.get("id"))


def _show(rows) -> str:
    return ", ".join(f"{table} {key}" for table, key in sorted(rows))


def written_by(requirement: dict, steps: list[dict], fault_met) -> tuple[bool, str]:
    """Whether the requirement's rows were each written by a step of its action and by no other step.

    `fault_met(position)` says whether the requirement's fault fired at a step at or
    before that position of the trajectory. A step of another action that wrote one
    of the rows fails it, even when an interaction step wrote it too: the row must
    come out of the interaction, not be set another way before or after it.
    """
    action = requirement["action"]
    accepted = accepted_actions(action)
    wanted = {(w["table"], str(w["id"])) for w in requirement["writes"]}
    written_at: dict[tuple, int] = {}
    for pos, (step, (name, args)) in enumerate(zip(steps, _step_actions(steps), strict=True)):
        rows = {r for r in map(_row, step.get("writes") or []) if r in wanted}
        if not rows:
            continue
        if name not in accepted or ("args" in requirement and re.search(requirement["args"], args) is None):
            shown = name or json.dumps(str(step.get("action", ""))[:80])
            return (
                False,
                f"step {step.get('index', pos)} ({shown}) wrote {_show(rows)}, which must be written by {action}",
            )
        for row in rows:
            written_at[row] = pos
    missing = wanted - written_at.keys()
    if missing:
        return False, f"no {action} step wrote {_show(missing)}"
    if "fault" in requirement and not fault_met(max(written_at.values())):
        return False, f"the fault {requirement['fault']!r} never fired by the {action} that wrote {_show(wanted)}"
    return True, f"{_show(wanted)} written by {action}"
