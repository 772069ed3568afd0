"""Screenshots compared as a person would: the same bytes, or the same picture up to Chromium's raster noise.

Chromium rasterizes a page in tiles on several threads, and the same settled page can come out with a few
antialiased edge pixels one or two levels apart (seen in CI: 55 pixels of a 1280x800 ticket page, by at most
3 levels summed over R, G and B). Anything an agent could see differs by far more: a moved, added or
recoloured element changes thousands of pixels by tens of levels.
"""

import io

import numpy as np
from PIL import Image

NOISE_LEVEL = 8  # the largest difference of one pixel, summed over R, G and B, that counts as raster noise
NOISE_SHARE = 0.001  # at most this share of the pixels may differ, each by no more than NOISE_LEVEL


def picture_difference(a: bytes, b: bytes) -> str:
    """Empty when two PNG screenshots show the same picture; otherwise what differs."""
    if a == b:
        return ""
    first, second = (np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16) for png in (a, b))
    if first.shape != second.shape:
        return f"sizes differ: {first.shape} and {second.shape}"
    diff = np.abs(first - second).sum(axis=2)
    changed, worst = int(np.count_nonzero(diff)), int(diff.max())
    if worst <= NOISE_LEVEL and changed <= NOISE_SHARE * diff.size:
        return ""
    return f"{changed} pixels differ, by up to {worst} levels"
