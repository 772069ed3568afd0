"""Publish the JSON Schemas built from code (docs/schemas/fault.schema.json), or check they are current.

The fault library is the one definition of every fault; its schema is published as a
file because the validator and the authoring UI both read the file. `--check` exits 1
when the published file differs from what the library says (bin/test runs it).
"""

import json

from django.core.management.base import CommandError

from replicas.worlds.cli import ReplicaGymCommand
from replicas.worlds.faults.schema import FILENAME, fault_schema
from replicas.worlds.schema_errors import SCHEMA_DIR

GENERATED = {FILENAME: fault_schema}


def schema_text(build) -> str:
    return json.dumps(build(), indent=2, ensure_ascii=False) + "\n"


class Command(ReplicaGymCommand):
    help = "Write the generated JSON Schemas under docs/schemas/ (--write) or check they are current (--check)."

    def add_arguments(self, parser):
        mode = parser.add_mutually_exclusive_group(required=True)
        mode.add_argument("--write", action="store_true", help="write the files")
        mode.add_argument("--check", action="store_true", help="fail when a published file is out of date")

    def handle(self, *args, write=False, check=False, **options):
        stale = []
        for filename, build in GENERATED.items():
            path = SCHEMA_DIR / filename
            text = schema_text(build)
            current = path.read_text() if path.exists() else ""
            if current == text:
                self.stdout.write(f"{filename}: current")
            elif write:
                path.write_text(text)
                self.stdout.write(f"{filename}: written")
            else:
                stale.append(filename)
        if stale:
            raise CommandError(f"out of date: {', '.join(stale)} (run manage.py schemas --write)")
