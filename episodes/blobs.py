"""Content-addressed storage: a world state (Snapshot) or a screenshot (Screenshot) is stored once per hash.

Two workers may store the same content at the same moment: the unique hash decides,
and the loser reads the winner's row.
"""

import hashlib
import os
import tempfile
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction

from replicas.worlds.models import World
from replicas.worlds.snapshot import state_hash
from replicas.worlds.workspaces import episode_snapshot

from .models import Screenshot, Snapshot


def snapshot_store(*, doc: dict, known_hash: str | None = None) -> Snapshot:
    digest = known_hash or state_hash(doc)
    try:
        with transaction.atomic():
            return Snapshot.objects.get_or_create(state_hash=digest, defaults={"doc": doc})[0]
    except IntegrityError:  # another worker stored the same state at the same moment
        return Snapshot.objects.get(state_hash=digest)


def world_snapshot_store(world: World, *, initial: bool = False) -> Snapshot:
    # A fresh clone holds its template's state, whose hash is known: skip the read if stored
    # (a workspace member's hash is its own, not the group's the episode stores).
    if initial and world.state_hash and world.workspace_id is None:
        found = Snapshot.objects.filter(state_hash=world.state_hash).first()
        if found is not None:
            return found
    return snapshot_store(doc=episode_snapshot(world))


def screenshot_store(*, png: bytes) -> Screenshot:
    """Store a PNG once per content hash (file under DATA_DIR/screenshots/, row per hash)."""
    digest = hashlib.sha256(png).hexdigest()
    found = Screenshot.objects.filter(sha256=digest).first()
    if found is not None:
        return found
    rel = Path("screenshots") / digest[:2] / f"{digest}.png"
    target = settings.DATA_DIR / rel
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        # write then rename, so a reader never sees half a file even with two writers
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(png)
        os.replace(tmp, target)
    try:
        with transaction.atomic():
            return Screenshot.objects.get_or_create(sha256=digest, defaults={"path": str(rel), "size": len(png)})[0]
    except IntegrityError:
        return Screenshot.objects.get(sha256=digest)
