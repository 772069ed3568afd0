"""Server time to render the issue board's main pages (goal: board page median at most 30 ms).

Requests go through Django's test client on the world's own host (the whole middleware stack,
routing and session included); prints median and p95 per page, CPU time and the number of SQL
queries of one render.
"""
import statistics
import time
from urllib.parse import quote

from django.conf import settings
from django.core import signals
from django.core.management.base import BaseCommand
from django.db import close_old_connections, connection
from django.test import Client

from bench.measure import percentile
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete

from ...models import Issue

JQL = 'project = AGENT AND status in ("To Do", "In Progress") AND assignee = currentUser() ORDER BY priority DESC'


class _QueryCounter(list):
    def __call__(self, execute, sql, params, many, context):
        self.append(sql)
        return execute(sql, params, many, context)


class Command(BaseCommand):
    help = "Median and p95 server render time of the scrum board, backlog, issue view and a JQL search."

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--variant", default="default")
        parser.add_argument("-n", "--requests", type=int, default=40, help="requests per page (after 3 warm-up ones)")

    def handle(self, *args, seed, variant, requests, **options):
        world = world_create(replica="board", seed=seed, variant=variant)
        try:
            with bound_world(world):
                n_issues = Issue.objects.count()
                issue = Issue.objects.filter(sprint__state="active", project__key="AGENT", issue_type="story").order_by("number").first()
            # as under a long-lived server process: keep the connection between requests
            signals.request_finished.disconnect(close_old_connections)
            client = Client(HTTP_HOST=f"w-{world.token}.localhost:8000")
            client.cookies[settings.SESSION_COOKIE_NAME] = get_replica("board").sign_in(world).session_key
            pages = [("scrum board", "/projects/AGENT/board"), ("backlog", "/projects/AGENT/backlog"),
                     ("issue view", f"/browse/{issue.key}"), ("JQL search", f"/issues?jql={quote(JQL)}")]
            self.stdout.write(f"world {variant} seed {seed}: {n_issues} issues; {requests} requests per page")
            self.stdout.write(f"{'page':<14}{'median ms':>10}{'p95 ms':>10}{'cpu median':>11}{'queries':>9}")
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
                self.stdout.write(f"{name:<14}{statistics.median(times):>10.1f}{percentile(times, 95):>10.1f}"
                                  f"{statistics.median(cpu):>11.1f}{len(queries):>9}")
        finally:
            signals.request_finished.connect(close_old_connections)
            world_delete(world=world)

    def _get(self, client, path):
        response = client.get(path)
        if response.status_code != 200:
            raise RuntimeError(f"{path} answered {response.status_code}")
