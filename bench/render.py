"""Server render time of the bench replica's pages (ReplicaConfig.bench_pages), in this process.

Each page is fetched signed in through Django's test client on the world's own host, so
the whole middleware stack, routing and session count, but no network and no second
process: this is the server's own cost of a page. Per page: median and p95 wall time,
median CPU time of this process (Django, templates, the database driver: meaningful
even when other jobs load the machine) and the SQL queries of one render. A page that
does not render is reported with its status under `failed` (the replica's bench_pages
needs fixing) and the others are still measured; the section fails when none renders.
"""

import statistics
import time
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signals
from django.db import close_old_connections, connection
from django.test import Client

from replicas.worlds.routing import world_origin
from replicas.worlds.services import world_create, world_delete

from .measure import percentile
from .scenario import bench_pages, bench_replica, signed_in_user

WARM_UP = 3  # renders per page before timing: template and query caches are filled


class _QueryCounter(list):
    """An execute wrapper recording each SQL statement of one request."""

    def __call__(self, execute, sql, params, many, context):
        self.append(sql)
        return execute(sql, params, many, context)


class PageError(RuntimeError):
    """A bench page that does not render (answers other than 200)."""


def _get(client: Client, path: str) -> None:
    response = client.get(path)
    if response.status_code != 200:
        raise PageError(f"GET {path} answered {response.status_code}, not 200")


def bench_render(*, replica: str | None = None, variant: str = "default", requests: int = 40, seed: int = 7) -> dict:
    """Median/p95 wall ms, median CPU ms and SQL queries of each bench page of one world."""
    if requests < 1:
        raise ValueError("requests must be at least 1")
    config = bench_replica(replica)
    config.knobs(variant)  # an unknown variant is refused before a world is made
    world = world_create(replica=config.label, seed=seed, variant=variant)
    # as under a long-lived server process: the connection stays open between requests
    signals.request_finished.disconnect(close_old_connections)
    try:
        pages = bench_pages(world)
        client = Client(HTTP_HOST=urlsplit(world_origin(world)).netloc)
        user = signed_in_user(world)
        if user is not None:
            client.cookies[settings.SESSION_COOKIE_NAME] = user.session_key
        out = {
            "replica": config.label,
            "variant": variant,
            "seed": seed,
            "requests": requests,
            "pages": {},
            "failed": {},
        }
        for path in pages:
            try:
                for _ in range(WARM_UP):
                    _get(client, path)
            except PageError as exc:
                out["failed"][path] = str(exc)
                continue
            queries = _QueryCounter()
            with connection.execute_wrapper(queries):
                _get(client, path)
            wall, cpu = [], []
            for _ in range(requests):
                start, start_cpu = time.perf_counter(), time.process_time()
                _get(client, path)
                wall.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - start_cpu) * 1000)
            out["pages"][path] = {
                "median_ms": round(statistics.median(wall), 2),
                "p95_ms": round(percentile(wall, 95), 2),
                "cpu_median_ms": round(statistics.median(cpu), 2),
                "queries": len(queries),
            }
        if not out["pages"]:
            raise PageError(f"no bench page of {config.label} renders: {'; '.join(out['failed'].values())}")
        return out
    finally:
        signals.request_finished.connect(close_old_connections)
        world_delete(world=world)
