"""docker/ stays in step with the code: the compose file names modules and settings that exist."""

import importlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker" / "compose.yaml"


def compose():
    return yaml.safe_load(COMPOSE.read_text())


def test_compose_has_web_two_workers_scheduler_postgres_and_redis():
    assert set(compose()["services"]) == {"web", "worker_a", "worker_b", "scheduler", "postgres", "redis"}


def test_the_two_workers_are_celery_workers_on_hosts_of_their_own():
    """The layout of manage.py multihost: both workers consume the default queue, each under its own host name."""
    services = compose()["services"]
    workers = [services["worker_a"], services["worker_b"]]
    for worker in workers:
        assert worker["command"].startswith("celery -A replicagym worker")
        assert " -Q " not in worker["command"]  # the default queue, where runs launched through the API go
        assert worker["shm_size"] and worker["environment"] == services["web"]["environment"]
        assert set(worker["depends_on"]) == {"postgres", "redis"}
    hostnames = [worker["hostname"] for worker in workers]
    assert len(set(hostnames)) == 2
    for worker, hostname in zip(workers, hostnames, strict=True):
        assert f"--hostname=worker@{hostname}" in worker["command"]  # distinct Celery node names too


def test_every_variable_the_compose_file_sets_is_read_by_the_settings():
    settings_source = (ROOT / "platform" / "replicagym" / "settings.py").read_text()
    read = set(re.findall(r'env(?:str|bool|int|list|path)\(\s*"([A-Z_]+)"', settings_source))
    env = compose()["x-app"]["environment"]
    assert set(env) <= read, set(env) - read


def test_the_modules_the_images_run_exist():
    importlib.import_module("replicagym.wsgi")
    assert importlib.import_module("replicagym.celery").app.main == "replicagym"
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert "requirements.txt" in dockerfile and "replicagym.wsgi" in dockerfile


@pytest.mark.skipif(not shutil.which("docker-compose"), reason="docker-compose is not installed")
def test_docker_compose_config_accepts_the_file():
    result = subprocess.run(
        ["docker-compose", "-f", str(COMPOSE), "config", "--quiet"],
        env={"SECRET_KEY": "x", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
