"""`manage.py worker [--queue NAME]`: one worker process of the embedded default's queue (the episode rows).

Start as many as you want episodes at once (bin/start starts two). SIGTERM or
Ctrl-C stops it after the episode at hand; a worker killed outright leaves that
episode to the scheduler, which puts it back in the queue. With a broker
(CELERY_BROKER_URL=redis://... or amqp://...), run `celery -A replicagym worker` instead.
"""

import signal
import threading

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from episodes.queue.workers import worker_loop
from episodes.runs import DEFAULT_QUEUE
from replicas.worlds.cli import one_line_errors


class Command(BaseCommand):
    help = "Claim and run queued episodes of the embedded default's queue until stopped."

    def create_parser(self, prog_name, subcommand, **kwargs):
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser):
        parser.add_argument(
            "--queue", default=DEFAULT_QUEUE, help=f"the queue to take episodes from (default {DEFAULT_QUEUE})"
        )

    def handle(self, *args, queue, **options):
        if settings.EPISODE_QUEUE != "database":
            raise CommandError(
                f"episodes go through the broker {settings.CELERY_BROKER_URL.split('://')[0]}://: "
                "run `celery -A replicagym worker` instead"
            )
        if not queue.strip() or len(queue) > 200:
            raise CommandError(f"--queue must be a name of 1 to 200 characters, not {queue!r}")
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        ran = worker_loop(queue=queue, stop=stop)
        self.stdout.write(f"worker stopped after {ran} episode(s)")
