"""Child processes of the benchmark (servers, workers) that must see this process's database."""

import os
import sys
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

ROOT = Path(settings.BASE_DIR)


def database_url() -> str:
    """The DATABASE_URL of the database this process is connected to (the test one in tests)."""
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(s['NAME']).resolve()}"
    if connection.vendor == "postgresql":
        auth = quote(s.get("USER") or "", safe="")
        if s.get("PASSWORD"):
            auth += ":" + quote(s["PASSWORD"], safe="")
        host = s.get("HOST") or "127.0.0.1"
        port = f":{s['PORT']}" if s.get("PORT") else ""
        return f"postgres://{auth}@{host}{port}/{s['NAME']}"
    raise RuntimeError(f"the benchmark cannot hand a {connection.vendor} database to child processes")


def child_env(**extra) -> dict:
    """Environment of a child Django process: same settings module, same database."""
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = os.environ.get("DJANGO_SETTINGS_MODULE", "replicagym.settings")
    env["DATABASE_URL"] = database_url()
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "platform"), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep
    )
    env.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    env.update({k: str(v) for k, v in extra.items()})
    return env


def python() -> str:
    return sys.executable
