"""Configuration is parsed strictly: a bad value stops start-up naming the variable."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from replicagym.env import (
    child_env,
    database_url,
    envbool,
    envint,
    parse_broker_url,
    parse_database_url,
    persisted_secret,
)

ROOT = Path(__file__).resolve().parent.parent


def test_sqlite_urls_resolve_relative_to_the_project_and_use_wal():
    cfg = parse_database_url("DATABASE_URL", "sqlite:///data/x.sqlite3", ROOT)
    assert cfg["NAME"] == str(ROOT / "data/x.sqlite3")
    assert "journal_mode=WAL" in cfg["OPTIONS"]["init_command"]
    assert parse_database_url("DATABASE_URL", "sqlite:////tmp/x.db", ROOT)["NAME"] == "/tmp/x.db"


def test_postgres_urls_are_split_into_their_parts():
    cfg = parse_database_url("DATABASE_URL", "postgres://u:p%40ss@db.local:6543/gym", ROOT)
    assert (cfg["USER"], cfg["PASSWORD"], cfg["HOST"], cfg["PORT"], cfg["NAME"]) == (
        "u",
        "p@ss",
        "db.local",
        "6543",
        "gym",
    )


@pytest.mark.parametrize(
    "url", ["mysql://x/y", "postgres://host:99999999/db", "postgres://host/", "sqlite://", "nonsense"]
)
def test_bad_database_urls_name_the_variable(url):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        parse_database_url("DATABASE_URL", url, ROOT)


@pytest.mark.parametrize(
    "conf",
    [
        {"USER": "u@x", "PASSWORD": "p@ss:/w", "HOST": "db.local", "PORT": "6543", "NAME": "gym"},
        {"USER": "postgres", "PASSWORD": "", "HOST": "", "PORT": "", "NAME": "test_gym"},
    ],
)
def test_a_postgres_database_url_reads_back_as_the_same_database(conf):
    url = database_url(conf={"ENGINE": "django.db.backends.postgresql", **conf})
    back = parse_database_url("DATABASE_URL", url, ROOT)
    expected = {**conf, "HOST": conf["HOST"] or "127.0.0.1", "PORT": conf["PORT"] or "5432"}
    assert {key: back[key] for key in conf} == expected


def test_a_database_url_can_name_the_server_as_another_host_reaches_it():
    conf = {"ENGINE": "django.db.backends.postgresql", "USER": "u", "PASSWORD": "", "HOST": "", "PORT": "", "NAME": "g"}
    assert database_url(host="10.0.0.1", port=15432, conf=conf) == "postgres://u@10.0.0.1:15432/g"


def test_a_sqlite_database_url_names_the_file_absolutely_and_another_engine_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = database_url(conf={"ENGINE": "django.db.backends.sqlite3", "NAME": "x.sqlite3"})
    assert parse_database_url("DATABASE_URL", url, ROOT)["NAME"] == str(tmp_path / "x.sqlite3")
    with pytest.raises(ImproperlyConfigured, match="mysql"):
        database_url(conf={"ENGINE": "django.db.backends.mysql", "NAME": "x"})


@pytest.mark.django_db
def test_a_child_process_runs_on_this_process_s_settings_database_and_data_dir(settings):
    from django.db import connection

    # the settings fixture overrides settings in place, which then name no module: the process's own is used
    env = child_env(REPLICAGYM_SERVE_URL="", EXTRA=3)
    assert env["EXTRA"] == "3" and env["DJANGO_SETTINGS_MODULE"] == os.environ["DJANGO_SETTINGS_MODULE"]
    probe = (
        "import django, json; django.setup(); from django.conf import settings; from django.db import connection; "
        "print(json.dumps([connection.settings_dict['NAME'], str(settings.DATA_DIR), settings.SERVE_URL]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd="/", capture_output=True, text=True, timeout=120, check=True
    )
    # the test database, not the one DATABASE_URL named when this process started
    assert json.loads(out.stdout) == [str(connection.settings_dict["NAME"]), str(settings.DATA_DIR), ""]


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


def _settings(env, tmp_path):
    """Some settings as a fresh process computes them from `env` (no Django start-up needed)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("REPLICAGYM_") and k not in ("SECRET_KEY", "DEBUG")}
    full.update({"REPLICAGYM_DATA_DIR": str(tmp_path), "PYTHONPATH": "platform"}, **env)
    code = (
        "import json; from replicagym import settings as s; print(json.dumps({n: getattr(s, n, None) for n in ("
        "'DEBUG', 'CSRF_COOKIE_HTTPONLY', 'SESSION_COOKIE_HTTPONLY', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE',"
        "'SECURE_HSTS_SECONDS', 'SECURE_PROXY_SSL_HEADER', 'WORLD_SECRET')}))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True)
    return result if result.returncode else json.loads(result.stdout)


PRODUCTION = {"REPLICAGYM_PRODUCTION": "true", "SECRET_KEY": "a-production-key-of-enough-length-0123456789"}


def test_production_mode_refuses_to_start_with_debug_on(tmp_path):
    result = _settings({**PRODUCTION, "DEBUG": "true"}, tmp_path)
    assert result.returncode != 0 and "DEBUG must be off" in result.stderr


def test_production_mode_hides_the_cookies_from_scripts_and_sends_hsts_over_https(tmp_path):
    plain = _settings({**PRODUCTION}, tmp_path)
    assert plain["DEBUG"] is False and plain["CSRF_COOKIE_HTTPONLY"] and plain["SESSION_COOKIE_HTTPONLY"]
    assert plain["SECURE_HSTS_SECONDS"] >= 365 * 24 * 3600
    assert (
        not plain["SESSION_COOKIE_SECURE"] and plain["SECURE_PROXY_SSL_HEADER"] is None
    )  # served over http: cookies must still travel
    https = _settings({**PRODUCTION, "REPLICAGYM_HTTPS": "true"}, tmp_path)
    assert https["SESSION_COOKIE_SECURE"] and https["CSRF_COOKIE_SECURE"]
    assert https["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]


def test_the_world_secret_is_generated_once_and_kept_across_restarts_unless_set(tmp_path):
    first, again = _settings({}, tmp_path), _settings({}, tmp_path)
    assert len(first["WORLD_SECRET"]) >= 32 and first["WORLD_SECRET"] == again["WORLD_SECRET"]
    assert (tmp_path / "world-secret").stat().st_mode & 0o077 == 0  # readable by its owner only
    assert (
        _settings({"REPLICAGYM_WORLD_SECRET": "from-the-environment"}, tmp_path)["WORLD_SECRET"]
        == "from-the-environment"
    )
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert _settings({}, other)["WORLD_SECRET"] != first["WORLD_SECRET"]  # another installation, another secret


def test_a_persisted_secret_survives_and_an_empty_file_is_refused(tmp_path):
    path = tmp_path / "secret"
    value = persisted_secret(path)
    assert persisted_secret(path) == value
    path.write_text("")
    with pytest.raises(ImproperlyConfigured, match="is empty"):
        persisted_secret(path)
