"""`manage.py world create|snapshot|diff|delete|gc|list|pool`: worlds from the command line (reset timings:
`manage.py bench --only reset`).
"""

import json
import time
from datetime import timedelta

from django.core.management.base import CommandError

from replicas.worlds.cli import OneLineParser, ReplicaGymCommand, seed_arg
from replicas.worlds.models import World
from replicas.worlds.pool import pool_fill, pool_status
from replicas.worlds.routing import world_url
from replicas.worlds.services import (
    InvalidWorldRequest,
    world_create,
    world_delete,
    world_gc,
    world_generate,
)
from replicas.worlds.snapshot import canonical_json, diff, snapshot, state_hash


class Command(ReplicaGymCommand):
    help = "Create, inspect, compare and delete worlds."

    user_errors = (LookupError, InvalidWorldRequest)

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True, parser_class=OneLineParser)
        create = sub.add_parser("create", help="create a world (a clone of the cached template)")
        self._world_key(create)
        create.add_argument("--fresh", action="store_true", help="generate from scratch instead of cloning")
        snap = sub.add_parser("snapshot", help="print a world's canonical state as JSON")
        snap.add_argument("world")
        d = sub.add_parser("diff", help="print the diff from world A to world B as JSON")
        d.add_argument("a")
        d.add_argument("b")
        delete = sub.add_parser("delete", help="delete a world and its rows")
        delete.add_argument("world")
        gc = sub.add_parser("gc", help="delete worlds unused for a while and outdated templates")
        gc.add_argument("--hours", type=int, default=None)
        sub.add_parser("list", help="list worlds as JSON lines")
        pool = sub.add_parser("pool", help="the warm pool: 'status' (ready worlds per key) or 'fill' a key's pool")
        pool.add_argument("pool_action", choices=["status", "fill"])
        pool.add_argument("--replica")
        pool.add_argument("--seed", type=seed_arg)
        pool.add_argument("--variant", default="default")
        pool.add_argument("--size", type=int, default=None, help="worlds to keep ready (default: WORLD_POOL_SIZE)")

    def _world_key(self, parser):
        parser.add_argument("--replica", required=True)
        parser.add_argument("--seed", type=seed_arg, required=True)
        parser.add_argument("--variant", default="default")

    def handle(self, *args, action, **options):
        getattr(self, f"do_{action}")(**options)

    def _emit(self, doc):
        self.stdout.write(json.dumps(doc, sort_keys=True, ensure_ascii=False))

    def _world(self, token: str) -> World:
        world = World.objects.filter(token=token.removeprefix("w-"), is_template=False, pooled=False).first()
        if world is None:
            raise CommandError(f"unknown world {token!r}")
        return world

    def do_create(self, *, replica, seed, variant, fresh, **_):
        start = time.perf_counter()
        if fresh:
            world = world_generate(replica=replica, seed=seed, variant=variant)
        else:
            world = world_create(replica=replica, seed=seed, variant=variant)
        ms = (time.perf_counter() - start) * 1000
        self._emit(
            {
                "world": world.token,
                "url": world_url(world),
                "rows": world.rows,
                # computed from the new world's rows, not copied from the template
                "state_hash": state_hash(snapshot(world)),
                "ms": round(ms, 2),
            }
        )

    def do_snapshot(self, *, world, **_):
        self.stdout.write(canonical_json(snapshot(self._world(world))))

    def do_diff(self, *, a, b, **_):
        self._emit(diff(snapshot(self._world(a)), snapshot(self._world(b))))

    def do_delete(self, *, world, **_):
        world_delete(world=self._world(world))

    def do_gc(self, *, hours, **_):
        self._emit(world_gc(older_than=timedelta(hours=hours) if hours is not None else None))

    def do_list(self, **_):
        for w in World.objects.filter(is_template=False, pooled=False).order_by("id"):
            self._emit(
                {"world": w.token, "replica": w.replica, "seed": w.seed, "variant": w.variant, "url": world_url(w)}
            )

    def do_pool(self, *, pool_action, replica, seed, variant, size, **_):
        if pool_action == "status":
            for row in pool_status():
                self._emit(row)
            return
        if replica is None or seed is None:
            raise CommandError("world pool fill needs --replica and --seed")
        if size is not None and size < 0:
            raise CommandError(f"--size must be 0 or more, not {size}")
        added = pool_fill(replica=replica, seed=seed, variant=variant, size=size)
        self._emit({"replica": replica, "seed": seed, "variant": variant, "added": added})
