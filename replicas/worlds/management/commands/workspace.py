"""`manage.py workspace create|snapshot|advance|delete|gc`: workspaces (groups of worlds sharing people) from the
command line.
"""

import json
import time
from datetime import timedelta

from django.core.management.base import CommandError

from replicas.worlds.cli import OneLineParser, ReplicaGymCommand, seed_arg
from replicas.worlds.models import Workspace
from replicas.worlds.registry import get_replica
from replicas.worlds.routing import world_origin
from replicas.worlds.services import InvalidWorldRequest
from replicas.worlds.snapshot import canonical_json
from replicas.worlds.workspaces import (
    InvalidWorkspaceOffer,
    workspace_clock_advance,
    workspace_create,
    workspace_delete,
    workspace_gc,
    workspace_sign_ins,
    workspace_snapshot,
    workspace_state_hash,
    workspace_worlds,
)


class Command(ReplicaGymCommand):
    help = "Create, inspect, advance and delete workspaces: worlds of several replicas sharing people and one clock."

    user_errors = (LookupError, InvalidWorldRequest, InvalidWorkspaceOffer)

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True, parser_class=OneLineParser)
        create = sub.add_parser("create", help="create a workspace (clones of the cached workspace template)")
        create.add_argument("--replicas", required=True, help="comma-separated replica names: supportdesk,board,shop")
        create.add_argument("--seed", type=seed_arg, required=True)
        create.add_argument("--variant", default="default")
        snap = sub.add_parser("snapshot", help="print a workspace's canonical state as JSON")
        snap.add_argument("workspace")
        advance = sub.add_parser("advance", help="move a workspace's clock (every member world)")
        advance.add_argument("workspace")
        advance.add_argument("--seconds", type=float, required=True)
        delete = sub.add_parser("delete", help="delete a workspace and its worlds")
        delete.add_argument("workspace")
        gc = sub.add_parser("gc", help="delete workspaces unused for a while and outdated templates")
        gc.add_argument("--hours", type=int, default=24)

    def handle(self, *args, action, **options):
        getattr(self, f"do_{action}")(**options)

    def _emit(self, doc):
        self.stdout.write(json.dumps(doc, sort_keys=True, ensure_ascii=False))

    def _workspace(self, token: str) -> Workspace:
        workspace = Workspace.objects.filter(token=token, is_template=False).first()
        if workspace is None:
            raise CommandError(f"unknown workspace {token!r}")
        return workspace

    def do_create(self, *, replicas, seed, variant, **_):
        start = time.perf_counter()
        workspace = workspace_create(replicas=replicas, seed=seed, variant=variant)
        ms = (time.perf_counter() - start) * 1000
        worlds = workspace_worlds(workspace)
        self._emit(
            {
                "workspace": workspace.token,
                "clock": worlds[0].clock.isoformat(),
                "worlds": [
                    {
                        "replica": w.replica,
                        "world": w.token,
                        "origin": world_origin(w),
                        "sign_in": world_origin(w) + (get_replica(w.replica).login_path or "/"),
                    }
                    for w in worlds
                ],
                "sign_ins": workspace_sign_ins(workspace),
                # computed from the new worlds' rows, not copied from the template
                "state_hash": workspace_state_hash(workspace_snapshot(workspace)),
                "ms": round(ms, 2),
            }
        )

    def do_snapshot(self, *, workspace, **_):
        self.stdout.write(canonical_json(workspace_snapshot(self._workspace(workspace))))

    def do_advance(self, *, workspace, seconds, **_):
        if seconds < 0:
            raise CommandError("--seconds must be 0 or more: the world clock never goes back")
        clock = workspace_clock_advance(workspace=self._workspace(workspace), seconds=seconds)
        self._emit({"workspace": workspace, "clock": clock.isoformat()})

    def do_delete(self, *, workspace, **_):
        workspace_delete(workspace=self._workspace(workspace))

    def do_gc(self, *, hours, **_):
        if hours < 0:
            raise CommandError(f"--hours must be 0 or more, not {hours}")
        self._emit(workspace_gc(older_than=timedelta(hours=hours)))
