"""A ReplicaGym OpenEnv server on the test database, served in this process, and an agent token for the testbed
suite.
"""

import asyncio

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


def run_async(coroutine):
    """asyncio.run(coroutine) in a thread of its own: an earlier browser test of this xdist worker may have left
    Playwright's sync loop marked running in the main thread, where asyncio.run refuses to start."""
    import threading

    outcome = {}

    def target():
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
