"""Child processes of the benchmark (servers, workers) that must see this process's database."""

import sys
from pathlib import Path

from django.conf import settings
from replicagym.env import child_env

# the bench's children start with the project's one child environment (replicagym.env.child_env)
__all__ = ["ROOT", "child_env", "python"]

ROOT = Path(settings.BASE_DIR)


def python() -> str:
    return sys.executable
