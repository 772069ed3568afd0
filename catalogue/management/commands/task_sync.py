"""`manage.py task_sync [REPLICA ...]`: load task packs into the catalogue (all installed packs by default)."""

import json

from django.core.management.base import CommandError

from catalogue.packs import PackError, task_sync, task_sync_all
from episodes.variation import variation_templates_build
from replicas.worlds.cli import ReplicaGymCommand


class Command(ReplicaGymCommand):
    help = "Validate task packs and upsert their tasks and suites into the catalogue."

    user_errors = (LookupError,)

    def add_arguments(self, parser):
        parser.add_argument("replicas", nargs="*", help="replica names (default: every installed pack)")
        parser.add_argument(
            "--no-templates",
            action="store_true",
            help="do not build the templates of the variation pool (REPLICAGYM_EPISODE_WORLD_SEEDS)",
        )

    def handle(self, *args, replicas, no_templates, **options):
        try:
            summaries = [task_sync(replica=r) for r in replicas] if replicas else task_sync_all()
        except PackError as exc:
            # several lines here on purpose: one per bad file and JSON path
            raise CommandError(f"invalid task pack:\n{exc}") from None
        for summary in summaries:
            self.stdout.write(json.dumps(summary, sort_keys=True))
        if not no_templates:
            # the variation pool's templates, so episodes start on any of its seeds without building one
            built = variation_templates_build()
            if built:
                self.stdout.write(json.dumps({"templates_built": len(built)}))
