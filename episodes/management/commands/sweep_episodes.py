"""`manage.py sweep_episodes [--stale-seconds N]`: mark episodes of dead workers errored."""
import json
from datetime import timedelta

from django.core.management.base import BaseCommand

from episodes.services import episode_sweep
from episodes.tasks import SWEEP_STALE_AFTER
from replicas.worlds.cli import one_line_errors


def positive_int(text):
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {value}")
    return value


class Command(BaseCommand):
    help = "Mark running episodes whose worker stopped sending heartbeats as errored."

    def create_parser(self, prog_name, subcommand, **kwargs):
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser):
        parser.add_argument("--stale-seconds", type=positive_int, default=int(SWEEP_STALE_AFTER.total_seconds()),
                            help="heartbeat age after which a running episode counts as abandoned")

    def handle(self, *args, stale_seconds, **options):
        swept = episode_sweep(stale_after=timedelta(seconds=stale_seconds))
        self.stdout.write(json.dumps({"errored": swept}))
