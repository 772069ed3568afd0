"""Server time to render the workspace's main pages for a world of 500+ tickets.

Requests go through Django's test client on the world's own host (the whole
middleware stack, routing and session included); prints median and p95 per page,
with the number of SQL queries of one render.
"""
import statistics
import time

from django.conf import settings
from django.core import signals
from django.core.management.base import BaseCommand
from django.db import close_old_connections, connection
from django.test import Client

from bench.measure import percentile
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete

from ...models import Ticket, User
from ...signin import agent_session


class _QueryCounter(list):
    """An execute wrapper that records each SQL statement of one request."""

    def __call__(self, execute, sql, params, many, context):
        self.append(sql)
        return execute(sql, params, many, context)


class Command(BaseCommand):
    help = "Median and p95 server render time of the views list, ticket page, customer profile and search."

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--variant", default="10k", help="a variant with at least 500 tickets (10k has 650)")
        parser.add_argument("-n", "--requests", type=int, default=40, help="requests per page (after 3 warm-up ones)")

    def handle(self, *args, seed, variant, requests, **options):
        world = world_create(replica="supportdesk", seed=seed, variant=variant)
        try:
            with bound_world(world):
                n_tickets = Ticket.objects.count()
                ticket = self._busiest_ticket()
                customer = User.objects.filter(pk=ticket.requester_id).first()
            # as under a long-lived server process: keep the connection between requests
            signals.request_finished.disconnect(close_old_connections)
            key, _ = agent_session(world)
            client = Client(HTTP_HOST=f"w-{world.token}.localhost:8000")
            client.cookies[settings.SESSION_COOKIE_NAME] = key
            pages = [
                ("views list", "/agent/filters/unsolved"),
                ("ticket page", f"/agent/tickets/{ticket.public_id}"),
                ("customer profile", f"/agent/users/{customer.public_id}"),
                ("search", "/agent/search?q=status%3Aopen%20tags%3Abilling"),
            ]
            self.stdout.write(f"world {variant} seed {seed}: {n_tickets} tickets; {requests} requests per page")
            # Wall time is what a client waits; CPU time (this process: Django, templates, SQLite)
            # is the server's own work, and stays meaningful when other jobs load the machine.
            self.stdout.write(f"{'page':<18}{'median ms':>10}{'p95 ms':>10}{'cpu median':>11}{'queries':>9}")
            for name, path in pages:
                for _ in range(3):
                    self._get(client, path)
                queries = _QueryCounter()
                with connection.execute_wrapper(queries):
                    self._get(client, path)
                times, cpu = [], []
                for _ in range(requests):
                    start, start_cpu = time.perf_counter(), time.process_time()
                    self._get(client, path)
                    times.append((time.perf_counter() - start) * 1000)
                    cpu.append((time.process_time() - start_cpu) * 1000)
                median = statistics.median(times)
                self.stdout.write(
                    f"{name:<18}{median:>10.1f}{percentile(times, 95):>10.1f}{statistics.median(cpu):>11.1f}{len(queries):>9}"
                )
        finally:
            signals.request_finished.connect(close_old_connections)
            world_delete(world=world)

    def _busiest_ticket(self):
        from django.db.models import Count

        return (
            Ticket.objects.filter(merged_into__isnull=True)
            .annotate(n=Count("comments"))
            .order_by("-n", "public_id")
            .first()
        )

    def _get(self, client, path):
        response = client.get(path)
        if response.status_code != 200:
            raise RuntimeError(f"GET {path} answered {response.status_code}")
        return response
