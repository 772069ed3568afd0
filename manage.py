#!/usr/bin/env python
"""Django's command-line entry point for ReplicaGym."""

import os
import sys
from pathlib import Path

# The project package lives in platform/ but is named `replicagym`, so that
# `import platform` keeps giving the standard library's module (docs/architecture.md, "Folders").
sys.path.insert(1, str(Path(__file__).resolve().parent / "platform"))


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "replicagym.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
