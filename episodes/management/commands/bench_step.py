"""`manage.py bench_step`: an engine step's latency against raw Playwright doing the same work.

One step of the engine = action + settle + observation (bids, AX tree, screenshot).
The floor it is compared with = the same action + `page.screenshot()` +
`page.aria_snapshot()` in a plain Playwright context on the same page. Prints medians,
p95s and the ratio (the goal is at most 1.5x); asserts nothing.
"""
import statistics
import time

from django.core.management.base import CommandError

from bench.measure import percentile
from bench.scenario import bench_pages, bench_replica, signed_in_cookies
from episodes.browser import EpisodeSession, shared_browser, shutdown_browser
from episodes.observation import STAMP_JS
from episodes.server import replica_server
from replicas.worlds.cli import ReplicaGymCommand, replica_arg, seed_arg
from replicas.worlds.routing import world_origin
from replicas.worlds.services import world_create, world_delete


def _first_textbox(axtree: str) -> str | None:
    for line in axtree.splitlines():
        text = line.strip()
        if text.startswith("[") and "] textbox" in text:
            return text[1 : text.index("]")]
    return None


class Command(ReplicaGymCommand):
    user_errors = (LookupError,)
    help = "Median/p95 step latency of the episode engine vs raw Playwright on the same page (prints, asserts nothing)."

    def add_arguments(self, parser):
        parser.add_argument("--steps", type=int, default=30, help="timed steps per side (default 30)")
        parser.add_argument("--seed", type=seed_arg, default=7)
        parser.add_argument("--variant", default="small")
        parser.add_argument("--replica", type=replica_arg, default=None, help="replica to measure (default: the first, by name, declaring a bench task)")
        parser.add_argument("--page", default="", help="path to measure on (default: the replica's first bench page, signed in)")

    def handle(self, *args, steps, seed, variant, replica, page, **options):
        if not 5 <= steps <= 1000:
            raise CommandError("--steps must be from 5 to 1000")
        config = bench_replica(replica or None)
        config.knobs(variant)
        world = world_create(replica=config.label, seed=seed, variant=variant)
        _host, port = replica_server()
        origin = world_origin(world, port)
        path = page or bench_pages(world)[0]
        cookies = signed_in_cookies(world, port)
        shared_browser()  # launch outside the timings
        try:
            session = EpisodeSession.open(origin=origin, start_url=path, instruction="benchmark")
            session.context.add_cookies(cookies)
            result = session.step(f'goto("{path}")')
            if result.error:
                raise CommandError(f"cannot open {path}: {result.error}")
            bid = _first_textbox(result.observation.axtree)
            if bid is None:
                raise CommandError(f"no textbox on {path} to type into")
            self.stdout.write(f"page {path} ({len(result.observation.axtree.splitlines())} AX lines), textbox [{bid}]")

            engine = []
            parts = {k: [] for k in ("action_ms", "settle_ms", "observe_ms", "capture_ms", "bidmap_ms", "flatten_ms")}
            for i in range(steps + 2):
                action = f'fill("{bid}", "note {i}")' if i % 2 == 0 else f'click("{bid}")'
                result = session.step(action)
                if result.error:
                    raise CommandError(f"engine step {action} failed: {result.error}")
                if i >= 2:  # the first steps warm caches on both sides
                    engine.append(result.timings["total_ms"])
                    for key in parts:
                        parts[key].append(result.timings[key])

            raw = self._raw(session, origin + path, bid, steps)
            session.close()
        finally:
            shutdown_browser()
            world_delete(world=world)

        em, rm = statistics.median(engine), statistics.median(raw)
        self.stdout.write(f"engine step  median {em:7.1f} ms   p95 {percentile(engine, 95):7.1f} ms   "
                          + "   ".join(f"{k[:-3]} {statistics.median(v):.1f}" for k, v in parts.items()))
        self.stdout.write(f"raw playwright median {rm:5.1f} ms   p95 {percentile(raw, 95):7.1f} ms   (action + screenshot + aria_snapshot)")
        self.stdout.write(f"ratio        median {em / rm:.2f}x   p95 {percentile(engine, 95) / percentile(raw, 95):.2f}x   (goal: <= 1.5x)")

    def _raw(self, session, url, bid, steps) -> list[float]:
        """The same actions, screenshot and aria snapshot in a plain context with the same cookies."""
        browser = shared_browser()
        context = browser.new_context(viewport={"width": 1280, "height": 800}, storage_state=session.context.storage_state())
        page = context.new_page()
        page.goto(url)
        page.evaluate(STAMP_JS)  # the same bids, so the same element; not timed
        box = page.locator(f'[bid="{bid}"]')
        times = []
        for i in range(steps + 2):
            t0 = time.perf_counter()
            if i % 2 == 0:
                box.fill(f"note {i}")
            else:
                box.click()
            page.screenshot()
            page.aria_snapshot()
            if i >= 2:
                times.append((time.perf_counter() - t0) * 1000)
        context.close()
        return times
