"""Configuration is parsed strictly: a bad value stops start-up naming the variable."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from replicagym.env import envbool, envint, parse_broker_url, parse_database_url

ROOT = Path(__file__).resolve().parent.parent


def test_sqlite_urls_resolve_relative_to_the_project_and_use_wal():
    cfg = parse_database_url("DATABASE_URL", "sqlite:///data/x.sqlite3", ROOT)
    assert cfg["NAME"] == str(ROOT / "data/x.sqlite3")
    assert "journal_mode=WAL" in cfg["OPTIONS"]["init_command"]
    assert parse_database_url("DATABASE_URL", "sqlite:////tmp/x.db", ROOT)["NAME"] == "/tmp/x.db"


def test_postgres_urls_are_split_into_their_parts():
    cfg = parse_database_url("DATABASE_URL", "postgres://u:p%40ss@db.local:6543/gym", ROOT)
    assert (cfg["USER"], cfg["PASSWORD"], cfg["HOST"], cfg["PORT"], cfg["NAME"]) == ("u", "p@ss", "db.local", "6543", "gym")


@pytest.mark.parametrize("url", ["mysql://x/y", "postgres://host:99999999/db", "postgres://host/", "sqlite://", "nonsense"])
def test_bad_database_urls_name_the_variable(url):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        parse_database_url("DATABASE_URL", url, ROOT)


def test_bad_broker_urls_name_the_variable():
    assert parse_broker_url("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    with pytest.raises(ImproperlyConfigured, match="CELERY_BROKER_URL"):
        parse_broker_url("CELERY_BROKER_URL", "kafka://x")


def test_booleans_and_integers_are_strict(monkeypatch):
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG"):
        envbool("FLAG", False)
    monkeypatch.setenv("FLAG", "yes")
    assert envbool("FLAG", False) is True
    monkeypatch.setenv("N", "ten")
    with pytest.raises(ImproperlyConfigured, match="N="):
        envint("N", 1)
    monkeypatch.setenv("N", "0")
    with pytest.raises(ImproperlyConfigured, match="at least 1"):
        envint("N", 1, minimum=1)


def _check(env):
    full = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DATABASE_URL", "REPLICAGYM_PRODUCTION")}
    full.update(env, DJANGO_SETTINGS_MODULE="replicagym.settings")
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=full, capture_output=True, text=True)


def test_production_mode_refuses_to_start_without_a_secret_key():
    result = _check({"REPLICAGYM_PRODUCTION": "true"})
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_a_bad_value_stops_start_up_with_a_message_naming_the_variable():
    result = _check({"DATABASE_URL": "mysql://nope/db"})
    assert result.returncode != 0
    assert "DATABASE_URL" in result.stderr


def test_import_platform_is_the_standard_library_inside_django():
    import platform

    assert Path(platform.__file__).parent == Path(os.__file__).parent
    assert platform.system() == "Linux"
