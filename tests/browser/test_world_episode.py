"""Episode sessions on real testbed worlds, served by the engine's own in-process server."""

import pytest

from episodes.engine.browser import EpisodeSession
from episodes.engine.server import replica_server
from replicas.worlds.registry import get_replica
from replicas.worlds.routing import world_origin
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _owner_credentials(world) -> tuple[str, str]:
    user = get_replica(world.replica).sign_in(world, "owner")
    return user.login, user.password


def _run(world, actions: list[str]) -> tuple[list[bytes], list[str], str]:
    _host, port = replica_server()
    # A generous settle cap: on a loaded machine a page must still finish loading
    # before the picture is taken, or the two runs would photograph different moments.
    session = EpisodeSession.open(
        origin=world_origin(world, port), start_url="/notes", instruction="Look around", settle_cap_ms=15_000
    )
    try:
        shots, errors = [session.observe().screenshot], []
        for action in actions:
            result = session.step(action)
            assert result.timings["settled"], f"{action} did not settle: {result.timings}"
            shots.append(result.observation.screenshot)
            errors.append(result.error)
    finally:
        session.close()
    with bound_world(world):
        return shots, errors, state_hash(snapshot(world))


def test_same_seed_and_actions_give_identical_screenshots_and_final_state(browser):
    first = world_create(replica="testbed", seed=7, variant="small")
    second = world_create(replica="testbed", seed=7, variant="small")
    email, password = _owner_credentials(first)
    actions = [
        "fill(\"role=textbox[name='Email']\", " + repr(email).replace("'", '"') + ")",
        "fill(\"role=textbox[name='Password']\", " + repr(password).replace("'", '"') + ")",
        "click(\"role=button[name='Sign in']\")",
        'goto("/notes/2")',
        "scroll(0, 400)",
        "go_back()",
        'click("9999")',
    ]
    shots_a, errors_a, hash_a = _run(first, actions)
    shots_b, errors_b, hash_b = _run(second, actions)
    assert errors_a == errors_b
    assert errors_a[:6] == [""] * 6 and errors_a[6].startswith("click: no element matches bid '9999'")
    for index, (a, b) in enumerate(zip(shots_a, shots_b, strict=True)):
        assert a == b, f"screenshots differ at step {index}"
    assert hash_a == hash_b


def test_world_session_cannot_reach_the_platform_or_another_world(browser):
    world = world_create(replica="testbed", seed=7, variant="small")
    other = world_create(replica="testbed", seed=7, variant="small")
    _host, port = replica_server()
    origin = world_origin(world, port)
    session = EpisodeSession.open(origin=origin, start_url="/", instruction="Stay inside")
    try:
        for url in (
            f"http://localhost:{port}/admin/",
            f"http://127.0.0.1:{port}/healthz",
            world_origin(other, port) + "/",
        ):
            result = session.step(f'goto("{url}")')
            assert result.error.startswith(f"goto('{url}') was refused"), result.error
            assert result.observation.url.startswith(origin + "/")
        assert [b["url"] for b in session.blocked_requests] == [
            f"http://localhost:{port}/admin/",
            f"http://127.0.0.1:{port}/healthz",
            world_origin(other, port) + "/",
        ]
        assert session.step('goto("/login")').error == ""
    finally:
        session.close()
