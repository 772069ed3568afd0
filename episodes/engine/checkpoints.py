"""Checkpoints evaluated as the episode goes: a dense reward a trainer may turn on (issue 32).

The final verdict scores every checkpoint (verifiers.engine). During the episode, after each
step, `CheckpointWatch` evaluates only the milestones not reached yet whose assertions read a
table the step wrote (the request log's writes), so a step that wrote nothing they read costs
nothing. A milestone is watched this way when every assertion it names reads world rows
(`state`, `diff`, and `for_each`/`conditional` made of them); one that reads the agent's answer,
the page or a registered check is scored by the final verdict only.

What the agent's side may learn is the dense reward and which milestones (by their index in the
spec) were newly reached: never a name, an assertion or a detail, as `verifiers.agent_view`
keeps verdicts. A milestone once reached stays reached here, as a dense reward is paid once; the
final verdict judges the end state on its own.
"""

from dataclasses import dataclass

from replicas.worlds.workspaces import episode_snapshot
from verifiers.engine import verify
from verifiers.inputs import verifier_inputs_for
from verifiers.spec import fill_params

ROW_KINDS = {"state", "diff"}
EVERY_TABLE = "*"  # a diff assertion over the whole diff ("nothing else changed")


def assertion_tables(assertion: dict) -> set[str] | None:
    """The tables an assertion reads (EVERY_TABLE: any), or None when it reads anything but world rows."""
    kind = assertion["kind"]
    if kind in ROW_KINDS:
        return {assertion.get("table", EVERY_TABLE)}
    if kind == "for_each":
        nested = assertion["assert"]
    elif kind == "conditional":
        nested = [assertion["when"], *assertion.get("then", []), *assertion.get("else", [])]
    else:
        return None
    tables = set()
    for part in nested:
        read = assertion_tables(part)
        if read is None:
            return None
        tables |= read
    return tables


@dataclass
class _Milestone:
    index: int
    points: float
    assertions: list[str]
    tables: set[str]


class CheckpointWatch:
    """The milestones of one episode's filled verifier spec, watched step by step."""

    def __init__(self, *, spec: dict, params: dict, initial: dict):
        spec = fill_params(spec, params, strict=False)
        self.spec, self.params, self.initial = spec, params, initial
        checkpoints = spec.get("checkpoints", [])
        self.total = float(sum(c.get("points", 1) for c in checkpoints))
        by_name = {a["name"]: a for a in spec["assertions"]}
        self.pending: list[_Milestone] = []
        for index, checkpoint in enumerate(checkpoints):
            read = [assertion_tables(by_name[name]) for name in checkpoint["assertions"]]
            if all(tables is not None for tables in read):
                tables = set().union(*read)
                self.pending.append(_Milestone(index, checkpoint.get("points", 1), checkpoint["assertions"], tables))
        self.reached: list[int] = []

    @property
    def watched(self) -> bool:
        return bool(self.pending)

    def after_step(self, *, world, writes: list[dict]) -> dict:
        """`{"new": [index, ...], "reward": float}` for the milestones the step reached (a step's `writes`)."""
        written = {w["table"] for w in writes}
        due = [m for m in self.pending if m.tables & written or (EVERY_TABLE in m.tables and written)]
        if not due:
            return {"new": [], "reward": 0.0}
        names = {name for m in due for name in m.assertions}
        # only the assertions of the milestones due, on the world as it stands (with the allowed changes
        # "nothing else changed" reads); the final verdict judges the whole spec
        partial = {"assertions": [a for a in self.spec["assertions"] if a["name"] in names]}
        if "allowed_changes" in self.spec:
            partial["allowed_changes"] = self.spec["allowed_changes"]
        inputs = verifier_inputs_for(
            world=world, initial=self.initial, final=episode_snapshot(world), params=self.params
        )
        held = {r["name"] for r in verify(partial, inputs).assertions if r["passed"]}
        new = [m for m in due if set(m.assertions) <= held]
        for m in new:
            self.pending.remove(m)
            self.reached.append(m.index)
        # the dense share of the partial-completion formula: 0.5 x points / all points (verifiers.engine)
        return {"new": [m.index for m in new], "reward": 0.5 * sum(m.points for m in new) / self.total}
