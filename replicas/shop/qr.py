"""The return's drop-off code, drawn as a QR-style SVG: a 25 x 25 module grid with the three finder
squares, the timing lines and the alignment square of a version-2 QR code, and data modules from a
SHA-256 stream of the text. It is deterministic (the same return draws the same code) but not a
scannable QR code: the counter in this store reads the return's id printed under it."""

import hashlib

SIZE = 25
MODULE = 8  # px per module
QUIET = 4  # modules of white margin


def _finder(x0: int, y0: int, size: int) -> dict[tuple[int, int], bool]:
    """A square of `size` (7: a finder, 5: the alignment mark): dark ring, light ring, dark centre."""
    cells = {}
    for dy in range(size):
        for dx in range(size):
            ring = min(dx, dy, size - 1 - dx, size - 1 - dy)
            cells[(x0 + dx, y0 + dy)] = ring != 1 if size == 7 else ring in (0, 2)
    return cells


def _fixed() -> dict[tuple[int, int], bool]:
    fixed = {}
    for x0, y0 in ((0, 0), (SIZE - 7, 0), (0, SIZE - 7)):
        # each finder with its light separator row and column
        for dy in range(-1, 8):
            for dx in range(-1, 8):
                if 0 <= x0 + dx < SIZE and 0 <= y0 + dy < SIZE:
                    fixed[(x0 + dx, y0 + dy)] = False
        fixed.update(_finder(x0, y0, 7))
    for i in range(8, SIZE - 8):
        fixed[(i, 6)] = fixed[(6, i)] = i % 2 == 0
    fixed.update(_finder(SIZE - 9, SIZE - 9, 5))
    return fixed


FIXED = _fixed()


def modules(text: str) -> list[list[bool]]:
    stream, counter = b"", 0
    while len(stream) * 8 < SIZE * SIZE:
        stream += hashlib.sha256(f"{counter}:{text}".encode()).digest()
        counter += 1
    bits = [(byte >> k) & 1 for byte in stream for k in range(8)]
    return [[FIXED.get((x, y), bool(bits[y * SIZE + x])) for x in range(SIZE)] for y in range(SIZE)]


def qr_svg(text: str, label: str = "") -> str:
    side = (SIZE + 2 * QUIET) * MODULE
    path = "".join(
        f"M{(x + QUIET) * MODULE} {(y + QUIET) * MODULE}h{MODULE}v{MODULE}h-{MODULE}z"
        for y, row in enumerate(modules(text))
        for x, dark in enumerate(row)
        if dark
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {side} {side}" width="{side}" height="{side}" '
        f'role="img" aria-label="{label or "Drop-off code"}"><rect width="{side}" height="{side}" fill="#fff"/>'
        f'<path d="{path}" fill="#0f1111"/></svg>'
    )
