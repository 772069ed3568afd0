"""The page each step acted on: the screenshot before it and where its target was, for the people who read steps.

The episode viewer (reports) and the annotation review both outline the element an action named on
the page it acted on; the box is stored in screenshot pixels (Step.target_box), drawn in percent.
"""

import struct

from django.conf import settings

from .models import Episode, Screenshot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(shot: Screenshot | None) -> tuple[int, int] | None:
    """(width, height) from the PNG's header, so a target box can be placed in percent of the image."""
    if shot is None:
        return None
    try:
        with (settings.DATA_DIR / shot.path).open("rb") as fh:
            head = fh.read(24)
    except OSError:
        return None
    if len(head) < 24 or not head.startswith(PNG_SIGNATURE):
        return None
    return struct.unpack(">II", head[16:24])


def box_percent(box: dict | None, size: tuple[int, int] | None) -> dict | None:
    """The target box as CSS percentages of the screenshot it is drawn on."""
    if not box or not size or not all(k in box for k in ("x", "y", "width", "height")):
        return None
    width, height = size
    return {
        "left": round(100 * box["x"] / width, 3),
        "top": round(100 * box["y"] / height, 3),
        "width": round(100 * box["width"] / width, 3),
        "height": round(100 * box["height"] / height, 3),
    }


def step_pages(episode: Episode) -> list[tuple]:
    """(step, the screenshot of the page it acted on or None, its target box in percent or None), in order:
    the page before a step is the previous step's screenshot, or the start page's."""
    rows, sizes = [], {}
    before = episode.start_screenshot
    for step in episode.steps.select_related("screenshot").order_by("index"):
        if before is not None and before.pk not in sizes:
            sizes[before.pk] = png_size(before)
        rows.append((step, before, box_percent(step.target_box, sizes.get(before.pk) if before else None)))
        before = step.screenshot or before
    return rows
