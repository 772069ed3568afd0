"""The project's reports, as the product draws them: a sprint's burndown and the velocity of its last
sprints, both read from the world's history (status and sprint changes) on the world clock, and drawn
as inline SVG by the page itself (no chart library: nothing is fetched, screenshots stay stable)."""

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from replicas.worlds.clock import now

from . import workflow as W
from .models import Change, Issue, Project, Sprint

VELOCITY_SPRINTS = 7  # the product's velocity chart shows the last seven sprints


def _points(issue: Issue) -> int:
    return issue.story_points or 0


def done_at(issue: Issue, changes: list[Change], moment: datetime) -> bool:
    """Whether the issue was Done at `moment`, by its status history: the last change up to then says,
    or before any change the status the first change left; with no change at all, today's status."""
    before = [c for c in changes if c.created_at <= moment]
    if before:
        return before[-1].to_value == W.DONE
    if changes:
        return changes[0].from_value == W.DONE
    return issue.status == W.DONE and (issue.resolved_at is None or issue.resolved_at <= moment)


@dataclass
class Burndown:
    sprint: Sprint
    days: list[date]  # each day of the sprint, up to today
    remaining: list[int]  # story points not done at the end of each day
    total: int  # story points in the sprint at its start line
    length: int  # days from start to end


def burndown(sprint: Sprint) -> Burndown:
    """Story points of the sprint's work items (sub-tasks carry none) left at the end of each day."""
    issues = list(sprint.issues.exclude(issue_type="subtask"))
    history: dict[int, list[Change]] = {}
    for change in Change.objects.filter(issue__in=issues, field="status").order_by("created_at", "public_id"):
        history.setdefault(change.issue_id, []).append(change)
    start = sprint.start or now()
    end = sprint.completed_at or sprint.end or now()
    length = max(1, (end.date() - start.date()).days)
    last = min(end, now())
    midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
    days = [(midnight + timedelta(days=n)).date() for n in range(max(0, (last.date() - start.date()).days) + 1)]
    # each day's figure is read at its end (today's: now)
    ends = [min(midnight + timedelta(days=n + 1), last) for n in range(len(days))]
    remaining = [sum(_points(i) for i in issues if not done_at(i, history.get(i.id, []), e)) for e in ends]
    return Burndown(sprint, days, remaining, sum(_points(i) for i in issues), length)


@dataclass
class VelocityRow:
    sprint: Sprint
    committed: int
    completed: int


def velocity(project: Project) -> list[VelocityRow]:
    """The last closed sprints, oldest first: what each completed (its work items Done in it) and what
    it had committed (those plus what its completion carried to another sprint or the backlog)."""
    sprints = list(project.sprints.filter(state=Sprint.State.CLOSED).order_by("-number")[:VELOCITY_SPRINTS])
    rows = []
    for sprint in reversed(sprints):
        completed = sum(_points(i) for i in sprint.issues.exclude(issue_type="subtask").filter(status=W.DONE))
        carried_ids = set(
            Change.objects.filter(field="sprint", from_value=sprint.name, issue__project=project).values_list(
                "issue_id", flat=True
            )
        )
        carried = Issue.objects.filter(id__in=carried_ids).exclude(sprint=sprint).exclude(issue_type="subtask")
        rows.append(VelocityRow(sprint, completed + sum(_points(i) for i in carried), completed))
    return rows


# --- drawing ---------------------------------------------------------------------------------------

WIDTH, HEIGHT, PAD = 720, 320, 44


def _scale(value: float, top: float) -> float:
    return HEIGHT - PAD - (HEIGHT - 2 * PAD) * (value / top if top else 0)


def _day_label(day: datetime) -> str:
    return f"{day.day} {day:%b}"


def burndown_svg(chart: Burndown) -> dict:
    """Coordinates for the template's SVG: the guideline, the remaining-work steps, the axis ticks."""
    top = max([chart.total, *chart.remaining, 1])
    span = WIDTH - 2 * PAD

    def x(day_index: float) -> float:
        return PAD + span * min(day_index, chart.length) / chart.length

    steps, previous = [], None
    for n, value in enumerate(chart.remaining):
        y = _scale(value, top)
        if previous is not None:
            steps.append(f"{x(n):.1f},{previous:.1f}")
        steps.append(f"{x(n):.1f},{y:.1f}")
        previous = y
    ticks = [{"y": _scale(top * k / 4, top), "label": round(top * k / 4)} for k in range(5)]
    days = (
        [
            {"x": x(n), "label": _day_label(chart.sprint.start + timedelta(days=n))}
            for n in range(0, chart.length + 1, max(1, chart.length // 7))
        ]
        if chart.sprint.start
        else []
    )
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "guide": f"{x(0):.1f},{_scale(chart.total, top):.1f} {x(chart.length):.1f},{_scale(0, top):.1f}",
        "line": " ".join(steps),
        "ticks": ticks,
        "days": days,
        "left": PAD,
        "right": WIDTH - PAD,
        "bottom": HEIGHT - PAD,
    }


def velocity_svg(rows: list[VelocityRow]) -> dict:
    top = max([1, *(r.committed for r in rows), *(r.completed for r in rows)])
    slot = (WIDTH - 2 * PAD) / max(1, len(rows))
    bar = min(28, slot / 3)
    bars = []
    for n, row in enumerate(rows):
        left = PAD + slot * n + slot / 2 - bar
        bars.append(
            {
                "row": row,
                "committed": {
                    "x": left,
                    "y": _scale(row.committed, top),
                    "h": HEIGHT - PAD - _scale(row.committed, top),
                },
                "completed": {
                    "x": left + bar,
                    "y": _scale(row.completed, top),
                    "h": HEIGHT - PAD - _scale(row.completed, top),
                },
                "label_x": PAD + slot * n + slot / 2,
            }
        )
    ticks = [{"y": _scale(top * k / 4, top), "label": round(top * k / 4)} for k in range(5)]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "bars": bars,
        "bar": bar,
        "ticks": ticks,
        "left": PAD,
        "right": WIDTH - PAD,
        "bottom": HEIGHT - PAD,
    }
