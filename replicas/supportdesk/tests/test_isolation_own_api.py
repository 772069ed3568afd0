"""The desk serves its own API under /api/ on a world's origin, the prefix the platform's API has on
its own host: a request to it (even for a missing record) is the world's, never reported as a probe
of the platform (tests/verifiers/test_isolation.py checks the probes on the testbed)."""

import logging

import pytest

pytestmark = pytest.mark.django_db


def test_the_desk_pages_and_api_are_not_reported_as_probes(make_world, world_client, caplog):
    world = make_world()
    with caplog.at_level(logging.WARNING, logger="replicagym.isolation"):
        for path in ("/", "/agent/filters/unsolved", "/agent/tickets/1", "/api/v2/billing/orders/ORD-0"):
            assert world_client(world).get(path).status_code in (200, 302, 401, 403, 404)
    assert not [r for r in caplog.records if r.name == "replicagym.isolation"]
