"""The episode viewer: its steps on a timeline, the final world diff, each assertion's verdict; downloads.

Staff only (authors and admins): the diff and the assertion details are the answer key's
shadow, which agents must never see (they get verifiers.agent_view through the API).
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from episodes.models import Episode, Screenshot, Step
from episodes.step_pages import step_pages
from episodes.trajectory import trajectory_export
from replicagym.accounts.roles import Role, role_required
from replicas.worlds.registry import replicas
from replicas.worlds.snapshot import diff


def _app_names() -> dict[str, str]:
    """Replica name -> the name people know it by (its AppConfig's verbose_name)."""
    return {name: str(config.verbose_name) for name, config in replicas().items()}


def step_tabs(step: Step, apps: dict[str, str]) -> list[dict]:
    """The tabs open after `step` (Step.tabs), each with its app's name and where it was: the path on its app's
    world, the whole URL elsewhere; [] when the step kept no tabs."""
    out = []
    for index, tab in enumerate(step.tabs or []):
        if not isinstance(tab, dict):
            continue
        url = str(tab.get("url") or "")
        app = str(tab.get("app") or "")
        parts = urlsplit(url)
        where = (parts.path or "/") + (f"?{parts.query}" if parts.query else "") if app else url
        out.append(
            {
                "index": index,
                "app": app,
                "name": apps.get(app, app),
                "where": where,
                "active": tab.get("active") is True,
            }
        )
    return out


def box_in_picture(box: dict | None) -> bool:
    """Whether a target box (in percent of its screenshot) overlaps the picture: an element below the fold before
    the action scrolled to it is outside, and its outline would be drawn over whatever follows the picture."""
    return (
        box is not None
        and box["left"] < 100
        and box["top"] < 100
        and box["left"] + box["width"] > 0
        and box["top"] + box["height"] > 0
    )


def timeline(episode: Episode) -> list[dict]:
    """Each step with the page it acted on (the screenshot before it: the previous step's, or the start page's),
    the tabs open after it (which app was focused), and the checkpoints it reached when the episode watched them
    (episodes.engine.checkpoints), by name: staff see names."""
    names = [c["name"] for c in (episode.instance.verifier.get("checkpoints") or [])]
    apps = _app_names()
    rows = []
    for step, before, box in step_pages(episode):
        tabs = step_tabs(step, apps)
        rows.append(
            {
                "step": step,
                "before": before,
                "box": box if box_in_picture(box) else None,
                "box_outside": box is not None and not box_in_picture(box),
                "axtree_lines": step.axtree_change.splitlines() if step.axtree_change else [],
                "total_ms": round(step.action_ms + step.settle_ms + step.observe_ms, 1),
                "checkpoints": [names[i] for i in (step.checkpoints or {}).get("new", []) if i < len(names)],
                # a strip of tabs only when there is more than one to tell apart; the focused app's name always
                "tabs": tabs if len(tabs) > 1 else [],
                "focused": next((t for t in tabs if t["active"]), None),
            }
        )
    return rows


def checkpoint_summary(episode: Episode, steps: list[dict]) -> list[dict]:
    """Each of the task's checkpoints, in order: its points, whether the verdict counts it reached, and the step
    that first reached it when the episode watched them (None otherwise, or if never reached)."""
    spec = episode.instance.verifier.get("checkpoints") or []
    judged = {c.get("name"): c for c in (episode.verdict or {}).get("checkpoints") or [] if isinstance(c, dict)}
    first: dict[str, int] = {}
    for row in steps:
        for name in row["checkpoints"]:
            first.setdefault(name, row["step"].index)
    return [
        {
            "name": c["name"],
            "points": c.get("points", 1),
            "reached": judged[c["name"]].get("reached") is True if c["name"] in judged else None,
            "step": first.get(c["name"]),
        }
        for c in spec
    ]


def world_diff(episode: Episode) -> dict | None:
    if episode.initial_state is None or episode.final_state is None:
        return None
    return diff(episode.initial_state.doc, episode.final_state.doc)


def _episode(episode_id) -> Episode:
    return get_object_or_404(
        Episode.objects.select_related("task", "run", "world", "initial_state", "final_state", "start_screenshot"),
        pk=episode_id,
    )


def trace_file(episode: Episode):
    """The episode's Playwright trace, if one was recorded and is still on disk."""
    if not episode.trace_path:
        return None
    path = (settings.DATA_DIR / episode.trace_path).resolve()
    if not path.is_relative_to(settings.DATA_DIR.resolve()) or not path.is_file():
        return None
    return path


@role_required(Role.AUTHOR)
@require_GET
def episode_view(request, episode_id):
    episode = _episode(episode_id)
    seconds = (
        (episode.finished_at - episode.started_at).total_seconds()
        if episode.started_at and episode.finished_at
        else None
    )
    steps = timeline(episode)
    return render(
        request,
        "reports/episode.html",
        {
            "episode": episode,
            "steps": steps,
            "checkpoints": checkpoint_summary(episode, steps),
            "partial_completion": (episode.verdict or {}).get("partial_completion"),
            "diff": world_diff(episode),
            "assertions": (episode.verdict or {}).get("assertions", []),
            "collateral": (episode.verdict or {}).get("collateral", []),
            "seconds": seconds,
            "has_trace": trace_file(episode) is not None,
            "rewards": sorted((episode.rewards or {}).items()),
        },
    )


@role_required(Role.AUTHOR)
@require_GET
def episode_trajectory(request, episode_id):
    episode = _episode(episode_id)
    response = HttpResponse(trajectory_export(episode=episode), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="episode-{episode.pk}-{episode.task.task_id}.jsonl"'
    return response


@role_required(Role.AUTHOR)
@require_GET
def episode_trace(request, episode_id):
    path = trace_file(_episode(episode_id))
    if path is None:
        raise Http404("no Playwright trace was recorded for this episode")
    return FileResponse(
        path.open("rb"), as_attachment=True, filename=f"episode-{episode_id}-trace.zip", content_type="application/zip"
    )


@role_required(Role.AUTHOR)
@require_GET
def screenshot(request, sha256):
    shot = get_object_or_404(Screenshot, sha256=sha256)
    try:
        handle = (settings.DATA_DIR / shot.path).open("rb")
    except OSError:
        raise Http404("the screenshot's file is gone") from None
    response = FileResponse(handle, content_type="image/png")
    response["Cache-Control"] = "private, max-age=86400, immutable"  # named by its content hash
    return response
