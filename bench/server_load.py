"""The replica server under concurrent load on loopback: requests per second and latency.

A threaded Python client (one keep-alive connection per thread) fetches the support
desk's main pages of one world, signed in as an agent, from a server in another
process. The run is bounded both in requests and in seconds, and only ever talks to
127.0.0.1.
"""
import http.client
import threading
import time
from collections import defaultdict

from django.conf import settings

from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete

from .measure import summary
from .serve import ServerProcess, gunicorn_path

LOOPBACK = "127.0.0.1"


def supportdesk_pages(world) -> list[str]:
    """The pages an agent spends its day on: the ticket views and a few busy tickets."""
    from replicas.supportdesk.models import Ticket

    with bound_world(world):
        numbers = list(Ticket.objects.order_by("-updated_at").values_list("public_id", flat=True)[:4])
    pages = ["/agent/filters/your-unsolved", "/agent/filters/unsolved", "/agent/filters/all"]
    pages += [f"/agent/tickets/{n}" for n in numbers]
    return pages


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
    """`Cookie:` header value of an agent session on the world."""
    from replicas.supportdesk.management.browser import agent_session

    key, _agent = agent_session(world)
    return f"{settings.SESSION_COOKIE_NAME}={key}"


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


def load(*, port: int, host_header: str, cookie: str, pages: list[str], concurrency: int,
         requests: int, seconds: float) -> dict:
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


def bench_server(*, variant: str = "default", seed: int = 7, concurrency: int = 8, requests: int = 2000,
                 seconds: float = 20.0, kinds=("inprocess", "gunicorn")) -> dict:
    world = world_create(replica="supportdesk", seed=seed, variant=variant)
    try:
        pages = supportdesk_pages(world)
        cookie = signed_in_cookie(world)
        out = {"variant": variant, "rows": world.rows, "pages": pages, "servers": {}}
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
                load(port=server.port, host_header=host, cookie=cookie, pages=served,
                     concurrency=2, requests=len(served) * 2, seconds=seconds)
                result = load(port=server.port, host_header=host, cookie=cookie, pages=served,
                              concurrency=concurrency, requests=requests, seconds=seconds)
                out["servers"][kind] = {"server": server.describe(), "pages_not_served": failing, **result}
        return out
    finally:
        world_delete(world=world)
