"""Fixtures of the fault tests: testbed worlds served with a small test urlconf, one client per world."""

import pytest
from django.test import Client

from replicas.worlds.registry import get_replica
from tests.templates import module_template

testbed_template = module_template("testbed")


@pytest.fixture(autouse=True)
def fault_test_urls(monkeypatch):
    """Serve the test urlconf on testbed worlds."""
    monkeypatch.setattr(get_replica("testbed"), "urls_module", "tests.faults.urls")


@pytest.fixture
def client_for():
    def make(world):
        return Client(HTTP_HOST=f"w-{world.token}.localhost:8000")

    return make


def api_timeout(times=1, requests=1, delay_ms=0, status=504):
    return {
        "name": "api_timeout",
        "params": {"route": "^/api/v2/billing/", "delay_ms": delay_ms, "status": status, "times": times},
        "trigger": {"requests": requests},
    }
