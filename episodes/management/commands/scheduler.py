"""`manage.py scheduler [--every S] [--once]`: the platform's upkeep loop (bin/start and the compose file run it).

Each tick requeues the episodes of lost workers (or errors them past the limit of
tries), marks finished runs done, ends the API episodes their agents left running past
their time limit (timed out) and collects worlds unused for REPLICAGYM_WORLD_GC_HOURS.
It prints one JSON line per tick that changed something.
"""

import json
import signal
import threading
import traceback
from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand

from episodes.queue.workers import scheduler_tick
from replicas.worlds.cli import one_line_errors, positive_int


class Command(BaseCommand):
    help = "Requeue episodes of lost workers, finish runs and collect unused worlds, every --every seconds."

    def create_parser(self, prog_name, subcommand, **kwargs):
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser):
        parser.add_argument(
            "--every", type=positive_int, default=settings.SCHEDULER_SECONDS, help="seconds between ticks"
        )
        parser.add_argument("--once", action="store_true", help="run one tick and print its outcome")
        parser.add_argument(
            "--stale-seconds",
            type=positive_int,
            default=settings.WORKER_LOST_SECONDS,
            help="heartbeat age after which a worker counts as lost",
        )

    def handle(self, *args, every, once, stale_seconds, **options):
        stale_after = timedelta(seconds=stale_seconds)
        if once:
            self.stdout.write(json.dumps(scheduler_tick(stale_after=stale_after), sort_keys=True))
            return
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        while not stop.is_set():
            try:
                outcome = scheduler_tick(stale_after=stale_after)
            except Exception:  # a database that is away for a moment: the next tick tries again
                self.stderr.write(f"scheduler tick failed:\n{traceback.format_exc()}")
                outcome = {}
            if any(outcome.values()):
                self.stdout.write(json.dumps(outcome, sort_keys=True))
                self.stdout.flush()
            stop.wait(every)
