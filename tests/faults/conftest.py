"""Fixtures of the fault tests: worlds served with a small test urlconf, one client per world."""
import pytest
from django.test import Client

from replicas.worlds.models import World
from replicas.worlds.registry import get_replica
from replicas.worlds.services import template_get_or_build, world_delete


@pytest.fixture(scope="module", autouse=True)
def committed_template(django_db_setup, django_db_blocker):
    """The seed-7 "small" template, generated once and committed before the module's tests.

    Every test then gets its worlds as clones (milliseconds) instead of generating
    the template again inside its own transaction (seconds). Transactional tests
    flush the database afterwards, so this runs per module; and the template is
    removed after the module, since other tests expect an empty database.
    """
    with django_db_blocker.unblock():
        template_get_or_build(replica="supportdesk", seed=7, variant="small")
    yield
    with django_db_blocker.unblock():
        for template in World.objects.filter(is_template=True, replica="supportdesk", seed=7, variant="small"):
            world_delete(world=template)


@pytest.fixture(autouse=True)
def fault_test_urls(request, monkeypatch):
    """Serve the test urlconf on worlds, unless the module sets REAL_REPLICA_URLS (end-to-end tests)."""
    if not getattr(request.module, "REAL_REPLICA_URLS", False):
        monkeypatch.setattr(get_replica("supportdesk"), "urls_module", "tests.faults.urls")


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
