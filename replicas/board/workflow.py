"""The software workflow every project uses: its statuses, and the conditions and validators
a transition must pass. Pure data and rules (no database), so the seed, the services and the
task answer keys read one definition.

Like the product's simplified workflow, any status may move to any other; the rules below are
what the project's administrators added to it.
"""
from dataclasses import dataclass

TODO, IN_PROGRESS, IN_REVIEW, DONE = "To Do", "In Progress", "In Review", "Done"
STATUSES = (TODO, IN_PROGRESS, IN_REVIEW, DONE)
CATEGORY = {TODO: "new", IN_PROGRESS: "indeterminate", IN_REVIEW: "indeterminate", DONE: "done"}
RESOLUTIONS = ("Done", "Won't Do", "Duplicate", "Cannot Reproduce")
PRIORITIES = ("Highest", "High", "Medium", "Low", "Lowest")
TYPES = ("epic", "story", "task", "bug", "subtask")
TYPE_NAMES = {"epic": "Epic", "story": "Story", "task": "Task", "bug": "Bug", "subtask": "Sub-task"}
LINK_KINDS = {  # kind -> (outward phrase, inward phrase)
    "blocks": ("blocks", "is blocked by"),
    "duplicates": ("duplicates", "is duplicated by"),
    "relates": ("relates to", "relates to"),
}


class TransitionRefused(ValueError):
    """The workflow refuses the move; the message is the one the product shows."""


@dataclass(frozen=True)
class Move:
    """What a transition is judged on: the issue's current values, who moves it and what they supply."""

    key: str
    issue_type: str
    status: str
    target: str
    assignee: str | None  # username
    actor: str  # username
    resolution: str  # after the move (supplied on the transition screen, or already set)
    steps_to_reproduce: str


def transition_check(move: Move) -> None:
    """Raise TransitionRefused with the product's message when the move breaks a rule."""
    if move.target not in STATUSES:
        raise TransitionRefused(f"{move.target!r} is not a status of this workflow.")
    if move.target == move.status:
        raise TransitionRefused(f"{move.key} is already in {move.status}.")
    if move.target == IN_REVIEW and move.actor != move.assignee:
        raise TransitionRefused(f"You can't move {move.key} to In Review: only the assignee can send an issue to review.")
    if move.target == IN_PROGRESS and move.issue_type == "bug" and not move.steps_to_reproduce.strip():
        raise TransitionRefused(f"{move.key} can't start: a bug needs Steps to reproduce before it moves to In Progress.")
    if move.target == DONE and move.resolution not in RESOLUTIONS:
        raise TransitionRefused(f"{move.key} can't be done without a resolution: pick one on the transition screen.")
