"""Server time to render the storefront's main pages on a default world (about 5,000 rows).

Requests go through Django's test client on the world's own host (the whole middleware stack,
routing and session included), as a customer with a cart part-way through checkout; prints
median and p95 wall time, median CPU time and the SQL queries of one render, per page.
"""
import statistics
import time

from django.conf import settings
from django.core import signals
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections, connection
from django.test import Client

from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create, world_delete

from ...models import Account, Product
from ...policies import password_for
from ...tasks.params import ready_cart

GOAL_MS = 30.0


class _QueryCounter(list):
    def __call__(self, execute, sql, params, many, context):
        self.append(sql)
        return execute(sql, params, many, context)


def _p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


class Command(BaseCommand):
    help = "Median and p95 server render time of the search, product and checkout pages (goal: medians <= 30 ms)."

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--variant", default="default")
        parser.add_argument("-n", "--requests", type=int, default=40, help="requests per page (after 3 warm-up ones)")

    def handle(self, *args, seed, variant, requests, **options):
        if requests < 1:
            raise CommandError("--requests must be at least 1")
        world = world_create(replica="shop", seed=seed, variant=variant)
        try:
            with bound_world(world):
                key = ready_cart(world)
                account = Account.objects.get(public_id=key["customer"])
                product = Product.objects.order_by("-review_count", "asin").first()
            # as under a long-lived server process: keep the connection between requests
            signals.request_finished.disconnect(close_old_connections)
            client = Client(HTTP_HOST=f"w-{world.token}.localhost:8000")
            client.post("/ap/signin", {"email": account.email, "password": password_for(seed=seed, public_id=account.public_id)})
            if settings.SESSION_COOKIE_NAME not in client.cookies:
                raise CommandError("could not sign in")
            client.post("/checkout/address", {"address": str(key["address"])})
            client.post("/checkout/delivery", {"speed": "standard"})
            client.post("/checkout/payment", {"card": str(key["card"])})
            pages = [
                ("search", "/s?k=wireless"),
                ("search, filtered", "/s?i=home&rating=4&fast=1&s=price-asc"),
                ("product", f"/dp/{product.asin}"),
                ("cart", "/cart"),
                ("checkout address", "/checkout/address"),
                ("checkout delivery", "/checkout/delivery"),
                ("checkout payment", "/checkout/payment"),
                ("checkout review", "/checkout/review"),
            ]
            self.stdout.write(f"world {variant} seed {seed}: {world.rows} rows; {requests} requests per page")
            self.stdout.write(f"{'page':<20}{'median ms':>10}{'p95 ms':>10}{'cpu median':>11}{'queries':>9}")
            misses = []
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
                if median > GOAL_MS:
                    misses.append(name)
                self.stdout.write(f"{name:<20}{median:>10.1f}{_p95(times):>10.1f}{statistics.median(cpu):>11.1f}{len(queries):>9}")
            verdict = "ok" if not misses else "MISS: " + ", ".join(misses)
            self.stdout.write(f"goal: median <= {GOAL_MS:.0f} ms per page: {verdict}")
        finally:
            signals.request_finished.connect(close_old_connections)
            world_delete(world=world)

    def _get(self, client, path):
        response = client.get(path)
        if response.status_code != 200:
            raise CommandError(f"GET {path} answered {response.status_code}")
        return response
