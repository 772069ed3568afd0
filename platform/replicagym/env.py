"""Typed readers for configuration from the environment, and the environment handed to child processes.

Each reader raises ImproperlyConfigured naming the variable, so a bad value stops
start-up with a message instead of surfacing later as an odd failure.
"""

import os
import secrets
import time
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def envstr(name: str, default: str = "") -> str:
    """The variable's value; set but empty counts as unset."""
    return os.environ.get(name) or default


def envbool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true/false, 1/0, yes/no)")


def envint(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    return value


def envlist(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def envpath(name: str, default: Path) -> Path:
    raw = os.environ.get(name)
    return Path(raw).expanduser().resolve() if raw else default


def parse_database_url(name: str, url: str, base_dir: Path) -> dict:
    """Turn `sqlite:///path` or `postgres://user:pw@host:port/db` into a DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        # sqlite:///relative/path (from the project folder) or sqlite:////absolute/path
        if not url.startswith("sqlite:///") or parts.query:
            raise ImproperlyConfigured(f"{name}={url!r}: write sqlite:///relative or sqlite:////absolute")
        db_path = unquote(url[len("sqlite:///") :])
        if not db_path:
            raise ImproperlyConfigured(f"{name}={url!r} names no SQLite file")
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(base_dir / db_path),
            # WAL lets the web process read while a worker writes; IMMEDIATE takes the
            # write lock at BEGIN so concurrent writers wait instead of failing mid-way.
            "OPTIONS": {
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 30,
            },
        }
    if parts.scheme in ("postgres", "postgresql", "pgsql"):
        db = unquote(parts.path.lstrip("/"))
        if not db:
            raise ImproperlyConfigured(f"{name}={url!r} names no database")
        options = dict(parse_qsl(parts.query))
        try:
            port = parts.port
        except ValueError:
            raise ImproperlyConfigured(f"{name}={url!r} has a bad port") from None
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": db,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(port or ""),
            "OPTIONS": options,
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    raise ImproperlyConfigured(f"{name}={url!r}: unsupported scheme {parts.scheme!r} (use sqlite:/// or postgres://)")


def database_url(*, host: str | None = None, port: int | None = None, conf: dict | None = None) -> str:
    """The DATABASE_URL of the database this process is connected to (the test database in tests), which
    `parse_database_url` reads back; `conf` is a DATABASES entry instead of the connection's settings.

    `host`/`port` name the same server as another host reaches it (multihost's forwarder).
    """
    conf = connection.settings_dict if conf is None else conf
    engine = conf["ENGINE"]
    if engine.endswith("sqlite3"):
        return f"sqlite:///{Path(conf['NAME']).resolve()}"  # sqlite:////abs/path
    if engine.endswith("postgresql"):
        # user and password quoted whole: an @, : or / in them would otherwise end the part early
        auth = quote(conf.get("USER") or "", safe="")
        if conf.get("PASSWORD"):
            auth += ":" + quote(conf["PASSWORD"], safe="")
        where = f"{host or conf.get('HOST') or '127.0.0.1'}:{port or conf.get('PORT') or 5432}"
        return f"postgres://{auth}@{where}/{quote(conf['NAME'], safe='')}"
    raise ImproperlyConfigured(f"no DATABASE_URL names a {engine} database: a child process cannot be given it")


def child_env(**overrides) -> dict:
    """The environment of a Django process started from this tree: this one's, on the same settings module,
    database and data dir; `overrides` (DATABASE_URL, REPLICAGYM_*, ...) win, as text.

    Benchmark children, episode workers (killtest, multihost) and the engine's replica server all start
    this way, so a child never runs on another database than its parent (in tests: the test database).
    """
    root = Path(settings.BASE_DIR)
    env = dict(os.environ)
    env.update(
        {
            # settings overridden in place (override_settings, a test's settings fixture) name no module
            "DJANGO_SETTINGS_MODULE": settings.SETTINGS_MODULE
            or os.environ.get("DJANGO_SETTINGS_MODULE", "replicagym.settings"),
            "DATABASE_URL": database_url(),
            "REPLICAGYM_DATA_DIR": str(settings.DATA_DIR),
            "PYTHONPATH": os.pathsep.join([str(root), str(root / "platform"), env.get("PYTHONPATH", "")]).rstrip(
                os.pathsep
            ),
            # children that run episodes drive Playwright's sync API, which runs an event loop
            "DJANGO_ALLOW_ASYNC_UNSAFE": "true",
        }
    )
    env.update({key: str(value) for key, value in overrides.items()})
    return env


def parse_broker_url(name: str, url: str) -> str:
    scheme = urlsplit(url).scheme
    if scheme not in ("redis", "rediss", "amqp", "amqps", "filesystem", "memory"):
        raise ImproperlyConfigured(f"{name}={url!r}: unsupported broker scheme {scheme!r} (use redis:// or amqp://)")
    return url


def persisted_secret(path: Path) -> str:
    """A random secret kept in `path`, made on first use, so it survives restarts.

    Several processes may start at once: the file is created with O_EXCL and whoever
    loses the race reads the winner's secret.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # the winner may not have written it yet
            value = path.read_text().strip()
            if value:
                return value
            time.sleep(0.01)
        raise ImproperlyConfigured(f"{path} is empty: delete it, or set the secret in the environment") from None
    value = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w") as handle:
        handle.write(value + "\n")
    return value
