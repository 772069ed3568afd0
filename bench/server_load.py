"""The replica server under concurrent load on loopback: requests per second and latency.

A threaded Python client (one keep-alive connection per thread) fetches the bench
replica's pages (ReplicaConfig.bench_pages) of one world, signed in, from a server in another
process: the one episodes are served by (`engine`, judged by the checks) and production's
gunicorn command. The run is bounded both in requests and in seconds, and only ever talks
to 127.0.0.1.
"""

import http.client
import threading
import time
from collections import defaultdict

from django.conf import settings

from replicas.worlds.services import world_create, world_delete

from .measure import summary
from .scenario import bench_pages, bench_replica, signed_in_user
from .serve import ServerProcess, gunicorn_path

LOOPBACK = "127.0.0.1"


def probe(*, port: int, host_header: str, cookie: str, pages: list[str]) -> tuple[list[str], dict]:
    """Split `pages` into those that answer 200 and the others (with their status)."""
    good, bad = [], {}
    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=30)
    try:
        for path in pages:
            conn.request("GET", path, headers={"Host": host_header, "Cookie": cookie})
            response = conn.getresponse()
            response.read()
            if response.status == 200:
                good.append(path)
            else:
                bad[path] = response.status
    finally:
        conn.close()
    return good, bad


def signed_in_cookie(world) -> str:
    """`Cookie:` header value of a signed-in session on the world (empty without sign-in)."""
    user = signed_in_user(world)
    return f"{settings.SESSION_COOKIE_NAME}={user.session_key}" if user is not None else ""


def _worker(port, host_header, cookie, pages, offset, budget, deadline, results, lock):
    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=30)
    i = offset
    try:
        while time.monotonic() < deadline:
            with lock:
                if budget[0] <= 0:
                    return
                budget[0] -= 1
            path = pages[i % len(pages)]
            i += 1
            start = time.perf_counter()
            try:
                conn.request("GET", path, headers={"Host": host_header, "Cookie": cookie})
                response = conn.getresponse()
                response.read()
                status = response.status
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                status = type(exc).__name__
            ms = (time.perf_counter() - start) * 1000
            with lock:
                results.append((path, status, ms))
    finally:
        conn.close()


def load(
    *, port: int, host_header: str, cookie: str, pages: list[str], concurrency: int, requests: int, seconds: float
) -> dict:
    """Fetch `pages` round-robin from `concurrency` threads until `requests` or `seconds` run out."""
    if concurrency < 1 or requests < 1 or seconds <= 0:
        raise ValueError("concurrency and requests must be at least 1, seconds positive")
    results: list[tuple[str, object, float]] = []
    lock = threading.Lock()
    budget = [requests]
    start = time.perf_counter()
    deadline = time.monotonic() + seconds
    threads = [
        threading.Thread(target=_worker, args=(port, host_header, cookie, pages, n, budget, deadline, results, lock))
        for n in range(concurrency)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    by_page = defaultdict(list)
    errors = defaultdict(int)
    for path, status, ms in results:
        if status == 200:
            by_page[path].append(ms)
        else:
            errors[f"{path} -> {status}"] += 1
    ok = [ms for samples in by_page.values() for ms in samples]
    return {
        "concurrency": concurrency,
        "requests": len(results),
        "ok": len(ok),
        "errors": dict(errors),
        "seconds": round(wall, 2),
        "rps": round(len(ok) / wall, 1) if wall else None,
        "latency": summary(ok),
        "pages": {path: summary(samples) for path, samples in sorted(by_page.items())},
    }


def bench_server(
    *,
    replica: str | None = None,
    variant: str = "default",
    seed: int = 7,
    concurrency: int = 8,
    requests: int = 2000,
    seconds: float = 20.0,
    kinds=("engine", "gunicorn"),
) -> dict:
    config = bench_replica(replica)
    world = world_create(replica=config.label, seed=seed, variant=variant)
    try:
        pages = bench_pages(world)
        cookie = signed_in_cookie(world)
        out = {"replica": config.label, "variant": variant, "rows": world.rows, "pages": pages, "servers": {}}
        for kind in kinds:
            if kind == "gunicorn" and gunicorn_path() is None:
                out["servers"][kind] = {"skipped": "gunicorn is not installed"}
                continue
            with ServerProcess(kind) as server:
                host = f"w-{world.token}.{settings.WORLD_DOMAIN}:{server.port}"
                served, failing = probe(port=server.port, host_header=host, cookie=cookie, pages=pages)
                if not served:
                    raise RuntimeError(f"no page of the world answers 200: {failing}")
                # warm-up: templates compiled, connections opened, caches filled; not counted
                load(
                    port=server.port,
                    host_header=host,
                    cookie=cookie,
                    pages=served,
                    concurrency=2,
                    requests=len(served) * 2,
                    seconds=seconds,
                )
                result = load(
                    port=server.port,
                    host_header=host,
                    cookie=cookie,
                    pages=served,
                    concurrency=concurrency,
                    requests=requests,
                    seconds=seconds,
                )
                out["servers"][kind] = {"server": server.describe(), "pages_not_served": failing, **result}
        return out
    finally:
        world_delete(world=world)
