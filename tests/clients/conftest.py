"""A ReplicaGym OpenEnv server on the test database, served in this process, and an agent token for the testbed suite."""

import pytest
from replicagym.accounts.tokens import token_create
from replicagym.gateways.openenv import openenv_app

from tests.gateways.server import asgi_server
from tests.pack_episodes import sync_tasks

TASKS = ["complete-note", "rename-note"]


@pytest.fixture
def secret(transactional_db, django_user_model, tmp_path):
    sync_tasks("testbed", TASKS, tmp_path / "tasks")
    user = django_user_model.objects.create_user(username="trainer", password="pw-123456")
    return token_create(user=user, suites=["testbed"], expires_days=1).secret


@pytest.fixture
def server(secret, monkeypatch):
    """The server's base URL; REPLICAGYM_URL and REPLICAGYM_TOKEN name it and the token, as a trainer's env does."""
    with asgi_server(openenv_app()) as url:
        monkeypatch.setenv("REPLICAGYM_URL", url)
        monkeypatch.setenv("REPLICAGYM_TOKEN", secret)
        yield url
