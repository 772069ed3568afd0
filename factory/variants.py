"""The anchor's side of the variant families (`factory generate ANCHOR --variants N`): N recorded in the anchor folder,
which the build copies into the replica, whose runtime derives the families from it (enterprise/variants.py)."""

from pathlib import Path

from replicas.worlds.enterprise.variants import FAMILIES, families_json


def families_write(anchor_dir: Path, count: int) -> None:
    (Path(anchor_dir) / FAMILIES).write_text(families_json(count))
