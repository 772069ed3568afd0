"""Settings for the test suite: the real settings plus what only tests need."""
import os

from .settings import *  # noqa: F403
from .settings import DATA_DIR, DATABASES

# Playwright's sync API runs an event loop in the test thread; Django would
# otherwise refuse ORM calls from it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# No background pool refills: a thread writing worlds would race the test's own database
# work and its teardown. Takes still look in the pool (empty unless a test fills it).
WORLD_POOL_REFILL = "off"

# A file, not memory, so worker processes started by tests share the test database.
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test.sqlite3")}
