"""`manage.py sweep_episodes [--stale-seconds N]`: put episodes of lost workers back in their queue, or error them."""

import json
from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand

from episodes.queue.workers import episodes_recover
from replicas.worlds.cli import one_line_errors

from .scheduler import positive_int


class Command(BaseCommand):
    help = (
        "Requeue (or, past the limit of tries, error) running episodes whose worker stopped sending "
        "heartbeats; finish their runs."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser):
        parser.add_argument(
            "--stale-seconds",
            type=positive_int,
            default=settings.WORKER_LOST_SECONDS,
            help="heartbeat age after which a running episode's worker counts as lost",
        )

    def handle(self, *args, stale_seconds, **options):
        self.stdout.write(json.dumps(episodes_recover(stale_after=timedelta(seconds=stale_seconds)), sort_keys=True))
