"""The workflows projects use: their statuses, and the conditions and validators a transition must
pass. Pure data and rules (no database), so the seed, the services and the task answer keys read one
definition. Each project has its own workflow, stored in the world (`models.Workflow`, seeded from
`WORKFLOWS` below): AGENT and WEB use the software workflow (with In Review), OPS's kanban the
operations workflow (with Waiting for support instead of In Review).

Like the product's simplified workflow, any status of a workflow may move to any other of it; the
rules are what the project's administrators added to it. A rule is a dict (stored as JSON with the
workflow): `{"type": "condition", "check": "assignee", "to": STATUS, "message": ...}` lets only the
issue's assignee move it to STATUS; `{"type": "validator", "check": "field", "field": "resolution" |
"steps_to_reproduce", "to": STATUS, "issue_types": [...] (optional), "message": ...}` refuses the
move while the field is empty. Messages take `{key}` and `{status}`.
"""

from dataclasses import dataclass

TODO, IN_PROGRESS, IN_REVIEW, WAITING, DONE = "To Do", "In Progress", "In Review", "Waiting for support", "Done"
ALL_STATUSES = (TODO, IN_PROGRESS, IN_REVIEW, WAITING, DONE)  # every status any workflow may use, in JQL ORDER BY order
CATEGORY = {
    TODO: "new",
    IN_PROGRESS: "indeterminate",
    IN_REVIEW: "indeterminate",
    WAITING: "indeterminate",
    DONE: "done",
}
RESOLUTIONS = ("Done", "Won't Do", "Duplicate", "Cannot Reproduce")
PRIORITIES = ("Highest", "High", "Medium", "Low", "Lowest")
TYPES = ("epic", "story", "task", "bug", "subtask")
TYPE_NAMES = {"epic": "Epic", "story": "Story", "task": "Task", "bug": "Bug", "subtask": "Sub-task"}
LINK_KINDS = {  # kind -> (outward phrase, inward phrase)
    "blocks": ("blocks", "is blocked by"),
    "duplicates": ("duplicates", "is duplicated by"),
    "relates": ("relates to", "relates to"),
}
RULE_FIELDS = ("resolution", "steps_to_reproduce")
# what a person reads for a field the history and the notices name (today's product says Parent for Epic Link);
# custom fields and the history's own entries (Rank, Link, Attachment) are already written as labels
FIELD_LABELS = {
    "summary": "Summary",
    "description": "Description",
    "steps_to_reproduce": "Steps to reproduce",
    "status": "Status",
    "priority": "Priority",
    "assignee": "Assignee",
    "reporter": "Reporter",
    "labels": "Labels",
    "components": "Components",
    "fix_versions": "Fix versions",
    "story_points": "Story points",
    "sprint": "Sprint",
    "due_date": "Due date",
    "resolution": "Resolution",
    "epic": "Parent",
    "parent": "Parent",
}


def field_label(field: str) -> str:
    return FIELD_LABELS.get(field, field)


NEEDS_STEPS = {
    "type": "validator",
    "check": "field",
    "field": "steps_to_reproduce",
    "to": IN_PROGRESS,
    "issue_types": ["bug"],
    "message": "{key} can't start: a bug needs Steps to reproduce before it moves to In Progress.",
}
NEEDS_RESOLUTION = {
    "type": "validator",
    "check": "field",
    "field": "resolution",
    "to": DONE,
    "message": "{key} can't be done without a resolution: pick one on the transition screen.",
}
SOFTWARE = "Software workflow"
OPERATIONS = "Operations workflow"
# name -> (statuses in board order, rules); the seed stores one row per workflow and points each project at one
WORKFLOWS = {
    SOFTWARE: (
        (TODO, IN_PROGRESS, IN_REVIEW, DONE),
        (
            {
                "type": "condition",
                "check": "assignee",
                "to": IN_REVIEW,
                "message": "You can't move {key} to In Review: only the assignee can send an issue to review.",
            },
            NEEDS_STEPS,
            NEEDS_RESOLUTION,
        ),
    ),
    OPERATIONS: (
        (TODO, IN_PROGRESS, WAITING, DONE),
        (
            {
                "type": "condition",
                "check": "assignee",
                "to": WAITING,
                "message": "You can't move {key} to Waiting for support: only the assignee can hand an issue "
                "to support.",
            },
            NEEDS_STEPS,
            NEEDS_RESOLUTION,
        ),
    ),
}
PROJECT_WORKFLOWS = {"AGENT": SOFTWARE, "WEB": SOFTWARE, "OPS": OPERATIONS}
# the software workflow's statuses (kept for the code and tests that name the common case)
STATUSES = WORKFLOWS[SOFTWARE][0]


class TransitionRefused(ValueError):
    """The workflow refuses the move; the message is the one the product shows."""


@dataclass(frozen=True)
class Flow:
    """One project's workflow as the rules read it."""

    name: str
    statuses: tuple
    rules: tuple

    @classmethod
    def named(cls, name: str) -> "Flow":
        statuses, rules = WORKFLOWS[name]
        return cls(name, tuple(statuses), tuple(rules))


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


def check_rules(rules) -> None:
    """Raise ValueError when a stored rule is not one the workflow engine knows."""
    for rule in rules:
        if rule.get("type") == "condition" and rule.get("check") == "assignee":
            pass
        elif rule.get("type") == "validator" and rule.get("check") == "field" and rule.get("field") in RULE_FIELDS:
            pass
        else:
            raise ValueError(f"unknown workflow rule {rule!r}")
        if rule.get("to") not in ALL_STATUSES or not rule.get("message"):
            raise ValueError(f"workflow rule without a known target status or a message: {rule!r}")


def transition_check(move: Move, flow: Flow | None = None) -> None:
    """Raise TransitionRefused with the product's message when the move breaks a rule of `flow`
    (the software workflow when none is given)."""
    flow = flow or Flow.named(SOFTWARE)
    if move.target not in flow.statuses:
        raise TransitionRefused(f"{move.target!r} is not a status of this workflow.")
    if move.target == move.status:
        raise TransitionRefused(f"{move.key} is already in {move.status}.")
    for rule in flow.rules:
        if rule["to"] != move.target or (rule.get("issue_types") and move.issue_type not in rule["issue_types"]):
            continue
        if rule["check"] == "assignee":
            broken = move.actor != move.assignee
        else:
            broken = not getattr(move, rule["field"]).strip()
            if rule["field"] == "resolution":
                broken = move.resolution not in RESOLUTIONS
        if broken:
            raise TransitionRefused(rule["message"].format(key=move.key, status=move.target))
