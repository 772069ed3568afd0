"""What the episode engine calls: world_step() before each step, fault_events() after; and determinism."""

import pytest

from replicas.worlds.clock import world_clock_advance
from replicas.worlds.faults import fault_events, recovery_rate, world_step
from replicas.worlds.snapshot import snapshot, state_hash
from tests.faults.conftest import api_timeout

pytestmark = pytest.mark.django_db

BILLING = "/api/v2/billing/refunds"


def test_a_step_trigger_fires_at_that_step_and_not_before(make_world, client_for):
    world = make_world(faults=[{"name": "server_error", "params": {"route": "^/p/"}, "trigger": {"step": 2}}])
    client = client_for(world)
    codes = []
    for index in range(4):
        world_step(world=world, index=index)
        codes.append(client.get("/p/x").status_code)
    assert codes == [200, 200, 500, 200]
    assert [(e["event"], e["at_step"], e["at_request"]) for e in fault_events(world=world)] == [
        ("fired", 2, 3),
        ("recovered", 3, 4),
    ]


def test_a_clock_trigger_fires_once_the_world_clock_reaches_it(make_world, client_for):
    world = make_world(faults=[{"name": "interstitial", "trigger": {"clock": "+10m"}}])
    client = client_for(world)
    world_step(world=world, index=0)
    assert b"rg-interstitial" not in client.get("/").content
    world_clock_advance(world=world, seconds=599)
    world_step(world=world, index=1)
    assert b"rg-interstitial" not in client.get("/").content
    world_clock_advance(world=world, seconds=1)
    world_step(world=world, index=2)
    assert b"rg-interstitial" in client.get("/").content
    [fired] = fault_events(world=world)
    assert fired["at_step"] == 2 and fired["clock"] == world.clock.isoformat().replace("+00:00", "Z")


def test_fault_events_since_returns_only_newer_events(make_world, client_for):
    world = make_world(faults=[api_timeout(times=2)])
    client = client_for(world)
    client.get(BILLING)
    first = fault_events(world=world)
    client.get(BILLING)
    client.get(BILLING)
    newer = fault_events(world=world, since=first[-1]["seq"])
    assert [e["seq"] for e in newer] == [2, 3] and [e["event"] for e in newer] == ["fired", "recovered"]


@pytest.mark.parametrize("bad", [-1, "3", None, True])
def test_engine_hooks_refuse_bad_numbers(world, bad):
    with pytest.raises(ValueError):
        fault_events(world=world, since=bad)
    world.faults = [{"name": "interstitial"}]
    with pytest.raises(ValueError):
        world_step(world=world, index=bad)


def test_worlds_without_faults_cost_the_engine_nothing(world, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert world_step(world=world, index=0) == []


def run_episode(make_world, client_for, faults):
    """One scripted agent: the same actions each time, with the engine's hooks around them."""
    world = make_world(faults=faults)
    client = client_for(world)
    trajectory = []
    actions = [
        ("get", "/"),
        ("get", BILLING),
        ("get", BILLING),
        ("post", "/login"),
        ("get", "/p/ticket"),
        ("get", "/account"),
        ("get", BILLING),
    ]
    for index, (method, path) in enumerate(actions):
        world_step(world=world, index=index)
        since = trajectory[-1]["since"] if trajectory else 0
        status = getattr(client, method)(path).status_code
        events = fault_events(world=world, since=since)
        trajectory.append(
            {"index": index, "status": status, "fault_events": events, "since": events[-1]["seq"] if events else since}
        )
        world_clock_advance(world=world, seconds=30)
    return trajectory, state_hash(snapshot(world))


def test_same_task_seed_faults_and_actions_give_the_same_trajectory_and_final_state(make_world, client_for):
    faults = [
        api_timeout(times=1),
        {"name": "interstitial", "params": {"kind": "survey"}, "trigger": {"step": 4}},
        {"name": "session_expiry", "trigger": {"requests": 6}},
        {"name": "legacy_format", "params": {"count": 3}},
        {"name": "stale_record", "trigger": {"step": 5}},
    ]
    first, hash_1 = run_episode(make_world, client_for, faults)
    second, hash_2 = run_episode(make_world, client_for, faults)
    assert first == second and hash_1 == hash_2
    fired = [(t["index"], e["fault"], e["event"]) for t in first for e in t["fault_events"]]
    assert fired == [
        (0, "legacy_format", "applied"),  # at creation: read with the first step
        (1, "api_timeout", "fired"),
        (2, "api_timeout", "recovered"),
        (4, "interstitial", "fired"),
        (5, "stale_record", "fired"),
        (5, "session_expiry", "fired"),
    ]
    assert recovery_rate([e for t in first for e in t["fault_events"]]) == 1 / 3
