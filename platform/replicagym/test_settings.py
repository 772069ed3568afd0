"""Settings for the test suite: the real settings plus what only tests need."""

import os
from pathlib import Path

# Each xdist worker has its own test database, so it gets its own DATA_DIR too: files named after
# a row's id (Playwright traces, uploads) would otherwise collide between two databases' rows. Only
# the worker itself splits: the processes a test starts inherit the mark and use the DATA_DIR they
# are given as it is.
_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker and os.environ.get("REPLICAGYM_DATA_DIR") and "REPLICAGYM_TEST_WORKER_DATA_DIR" not in os.environ:
    os.environ["REPLICAGYM_DATA_DIR"] = os.environ["REPLICAGYM_TEST_WORKER_DATA_DIR"] = str(
        Path(os.environ["REPLICAGYM_DATA_DIR"]) / _worker
    )

from .settings import *  # noqa: E402, F403
from .settings import DATA_DIR, DATABASES  # noqa: E402

# Playwright's sync API runs an event loop in the test thread; Django would
# otherwise refuse ORM calls from it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# No background pool refills: a thread writing worlds would race the test's own database
# work and its teardown. Takes still look in the pool (empty unless a test fills it).
WORLD_POOL_REFILL = "off"
# Episodes vary their picks but play the task's own seed unless a test asks for more: a template
# another test built would otherwise change which world an unrelated test's episode gets.
EPISODE_WORLD_SEEDS = 0

# A file, not memory, so worker processes started by tests share the test database.
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test.sqlite3")}
