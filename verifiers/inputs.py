"""What a verifier reads: the world's state at the start and end, their diff, the final page, the trajectory."""

from dataclasses import dataclass, field
from datetime import datetime

from replicas.worlds.snapshot import diff as snapshot_diff

from .values import parse_datetime


@dataclass(frozen=True)
class VerifierInputs:
    """Everything an assertion may look at; never a database handle.

    `trajectory` steps are dicts `{"index", "action", "error", "url", "fault_events": [...]}`,
    optionally `changed` (the URL, the DOM or the world state changed) and
    `state_changed` (the world state changed); `messages` are what the agent sent
    the user; `params` is the task's answer key; `clock` the world clock at the end.
    """

    initial: dict
    final: dict
    diff: dict | None = None
    final_page: dict = field(default_factory=lambda: {"url": "", "title": "", "html": ""})
    trajectory: list = field(default_factory=list)
    messages: list = field(default_factory=list)
    params: dict = field(default_factory=dict)
    clock: str = ""
    replica: str = ""

    def __post_init__(self):
        if self.diff is None:
            object.__setattr__(self, "diff", snapshot_diff(self.initial, self.final))
        if not self.replica:
            object.__setattr__(self, "replica", self.final.get("replica", ""))

    @property
    def clock_at(self) -> datetime | None:
        return parse_datetime(self.clock) if self.clock else None


def verifier_inputs_for(
    *, world, initial: dict, final: dict, final_page=None, trajectory=(), messages=(), params=None
) -> VerifierInputs:
    """The inputs for an episode that ran in `world`: its state at the start (`initial`) and at
    the end (`final`, the snapshot the episode stores), its final page, steps and messages."""
    return VerifierInputs(
        initial=initial,
        final=final,
        final_page=dict(final_page or {"url": "", "title": "", "html": ""}),
        trajectory=list(trajectory),
        messages=list(messages),
        params=dict(params or {}),
        clock=world.clock.isoformat().replace("+00:00", "Z"),
        # a workspace member's episode is judged on its group's state, whose replica is the group's label
        replica=final.get("replica") or world.replica,
    )
