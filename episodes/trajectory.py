"""Trajectories as JSON lines: a header line, then one line per step.

`trajectory_export` writes an episode; `trajectory_read` reads one back (the replay
agent replays its `action` fields). The format is versioned in the header so a
reader can refuse what it does not understand.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = "replicagym-trajectory"
VERSION = 1


class TrajectoryError(ValueError):
    pass


@dataclass
class Trajectory:
    header: dict
    steps: list[dict] = field(default_factory=list)

    @property
    def actions(self) -> list[str]:
        return [s["action"] for s in self.steps]


def trajectory_lines(episode) -> Iterable[str]:
    """The episode as JSON lines (header first)."""
    task = episode.task
    header = {
        "format": FORMAT,
        "version": VERSION,
        "episode": episode.pk,
        "task": task.task_id,
        "task_version": task.content_hash,
        "replica": task.replica,
        "world_seed": episode.world_seed,
        "variation": episode.variation,  # with world_seed, fixes the episode's answer key (episodes.variation)
        "variant": task.variant,
        "agent": episode.agent,
        "agent_seed": episode.seed,
        "instruction": episode.instance.instruction,
        "start_page": episode.instance.start_page,
        "status": episode.status,
        "messages": episode.messages,
        "final_url": episode.final_url,
        # the episode's outcome, not the verifier's: a right answer after the time limit did not pass
        "passed": episode.passed if episode.is_final else None,
        "rewards": episode.rewards,
        "steps": episode.steps.count(),
    }
    yield json.dumps(header, sort_keys=True, ensure_ascii=False)
    for step in episode.steps.select_related("screenshot").order_by("index"):
        yield json.dumps(
            {
                "index": step.index,
                "action": step.action,
                "parsed": step.parsed,
                "error": step.error,
                "url": step.url,
                "title": step.title,
                # what the action was chosen on, in the episode's observation mode: a trainer's prompt
                "observation": step.observation,
                "target_bid": step.target_bid,
                "timings_ms": {"action": step.action_ms, "settle": step.settle_ms, "observe": step.observe_ms},
                "fault_events": step.fault_events,
                "changed": step.changed,
                "screenshot": step.screenshot.sha256 if step.screenshot else None,
            },
            sort_keys=True,
            ensure_ascii=False,
        )


def trajectory_export(*, episode, path: str | Path | None = None) -> str:
    """Write the episode's trajectory to `path` (if given) and return the text."""
    text = "\n".join(trajectory_lines(episode)) + "\n"
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def trajectory_parse(text: str, *, source: str = "trajectory") -> Trajectory:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise TrajectoryError(f"{source}: empty, expected a header line")
    docs = []
    for number, line in enumerate(lines, start=1):
        try:
            docs.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise TrajectoryError(f"{source}: line {number}: not JSON ({exc.msg})") from None
        if not isinstance(docs[-1], dict):
            raise TrajectoryError(f"{source}: line {number}: expected a JSON object")
    header, steps = docs[0], docs[1:]
    if header.get("format") != FORMAT:
        raise TrajectoryError(f"{source}: line 1: not a {FORMAT} header")
    if header.get("version") != VERSION:
        raise TrajectoryError(
            f"{source}: line 1: version {header.get('version')!r} is not supported (expected {VERSION})"
        )
    for number, step in enumerate(steps, start=2):
        if not isinstance(step.get("action"), str):
            raise TrajectoryError(f"{source}: line {number}: step has no 'action' string")
        if step.get("index") != number - 2:
            raise TrajectoryError(f"{source}: line {number}: step index {step.get('index')!r}, expected {number - 2}")
    return Trajectory(header=header, steps=steps)


def trajectory_read(path: str | Path) -> Trajectory:
    """Read a trajectory file; TrajectoryError names the file and line of any problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TrajectoryError(f"cannot read trajectory {path}: {exc}") from None
    return trajectory_parse(text, source=str(path))
