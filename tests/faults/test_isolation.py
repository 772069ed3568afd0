"""Faults are per world: one armed in a world never fires in another served at the same time."""

import http.client
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from replicas.worlds.faults import fault_events
from replicas.worlds.models import FaultState


@pytest.mark.django_db
def test_interleaved_requests_to_two_worlds_count_and_fire_separately(make_world, client_for):
    a = make_world(faults=[{"name": "server_error", "params": {"route": "^/p/"}, "trigger": {"requests": 2}}])
    b = make_world(faults=[{"name": "interstitial", "trigger": {"requests": 3}}])
    plain = make_world()
    ca, cb, cp = client_for(a), client_for(b), client_for(plain)
    seen = []
    for _ in range(3):
        seen.append((ca.get("/p/x").status_code, cb.get("/p/x").status_code, cp.get("/p/x").status_code))
    assert seen == [(200, 200, 200), (500, 200, 200), (200, 200, 200)]
    assert b"rg-interstitial" in cb.get("/").content
    assert b"rg-interstitial" not in ca.get("/").content and b"rg-interstitial" not in cp.get("/").content
    assert [e["fault"] for e in fault_events(world=a)] == ["server_error", "server_error"]
    assert [e["fault"] for e in fault_events(world=b)] == ["interstitial"]
    assert fault_events(world=plain) == [] and not FaultState.objects.filter(world=plain).exists()


def get(port, world, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Host": f"w-{world.token}.localhost:{port}"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_concurrent_requests_to_two_worlds_on_a_live_server_keep_faults_apart(make_world, live_server):
    port = int(live_server.url.rsplit(":", 1)[1])
    a = make_world(
        faults=[{"name": "server_error", "params": {"route": "^/p/", "times": 3}, "trigger": {"requests": 5}}]
    )
    b = make_world(faults=[{"name": "api_timeout", "params": {"route": "^/api/", "delay_ms": 0, "times": 2}}])
    jobs = [(a, "/p/x"), (b, "/p/x")] * 12 + [(b, "/api/v2/billing/x")] * 4
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda job: (job[0].token, job[1], get(port, *job)), jobs))
    counts = Counter(results)
    assert counts[(a.token, "/p/x", 500)] == 3 and counts[(a.token, "/p/x", 200)] == 9
    assert counts[(b.token, "/p/x", 200)] == 12  # a's server_error never reaches b
    assert counts[(b.token, "/api/v2/billing/x", 504)] == 2 and counts[(b.token, "/api/v2/billing/x", 200)] == 2
    for world, requests in ((a, 12), (b, 16)):
        events = fault_events(world=world)
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert FaultState.objects.get(world=world).requests == requests
    assert Counter(e["event"] for e in fault_events(world=a)) == {"fired": 3, "recovered": 1}
    assert {e["fault"] for e in fault_events(world=b)} == {"api_timeout"}
    assert sorted(e["detail"]["occurrence"] for e in fault_events(world=a) if e["event"] == "fired") == [1, 2, 3]
