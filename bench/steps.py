"""Episode start and step latency of the engine, against raw Playwright on the same page.

A step is action + settle + observation (AX tree with bids + screenshot). The floor
it is compared with is what Playwright alone needs for the same action plus a
screenshot and an `aria_snapshot()` of the same page, measured in the same run,
interleaved with the engine's steps so both see the same machine load.
"""

import re
import time
from urllib.parse import urlsplit

from episodes.driver import session_open
from episodes.engine.browser import shared_browser
from episodes.engine.server import replica_server
from replicas.worlds.registry import get_replica
from replicas.worlds.services import world_create, world_delete

from .measure import Stopwatch, ratio, summary
from .scenario import bench_pages, bench_replica, scenario_for, scenario_world, signed_in_cookies

TEXTBOX = re.compile(r"^\s*\[(\w+)\] textbox\b", re.MULTILINE)


def step_page(world) -> str:
    """The replica's first bench page: one with a text field the steps type into."""
    return bench_pages(world)[0]


def open_session(*, world, start_page: str, instruction: str = "Benchmark"):
    """The engine's session for `world` (episodes.driver.session_open), signed in.

    Returns (session, signed_in_by_bench): when the engine lands on the replica's sign-in
    page (agents sign in as part of their task), the bench adds a signed-in session
    cookie and opens the start page again, so the steps it times run on the page itself.
    """
    session = session_open(world=world, start_page=start_page, instruction=instruction)
    login_path = get_replica(world.replica).login_path
    if not login_path or urlsplit(session.page.url).path != login_path:
        return session, False
    _host, port = replica_server()
    session.context.add_cookies(signed_in_cookies(world, port))
    session.step(f'goto("{start_page}")')
    return session, True


def bench_episode_start(*, task_id: str | None = None, replica: str | None = None, repeat: int = 10) -> dict:
    """World creation + browser context + first observation, as episode_run starts an episode."""
    scenario = scenario_for(task_id, replica)
    shared_browser()  # a worker's browser is already running when an episode starts
    parts = {"world": Stopwatch(), "open": Stopwatch(), "observe": Stopwatch(), "total": Stopwatch()}
    made = []
    try:
        for i in range(repeat + 1):  # the first one warms caches (and builds the template) and is not counted
            t0 = time.perf_counter()
            world = scenario_world(scenario)
            made.append(world)
            t1 = time.perf_counter()
            session = session_open(world=world, start_page=scenario.start_page, instruction=scenario.instruction)
            t2 = time.perf_counter()
            try:
                session.observe()
                t3 = time.perf_counter()
            finally:
                session.close()
            if i:
                for name, ms in (("world", t1 - t0), ("open", t2 - t1), ("observe", t3 - t2), ("total", t3 - t0)):
                    parts[name].samples_ms.append(ms * 1000)
    finally:
        for world in made:
            world_delete(world=world)
    return {
        "task": scenario.task_id,
        "variant": scenario.variant,
        "start_page": scenario.start_page,
        **{name: watch.summary() for name, watch in parts.items()},
    }


RAW_TIMEOUT_MS = 30_000  # generous: the raw side must never fail where the engine would wait


def _raw_step(page, act):
    """Playwright alone: the action, a screenshot and an ARIA snapshot of the page."""
    act()
    page.screenshot(timeout=RAW_TIMEOUT_MS)
    page.locator("body").aria_snapshot(timeout=RAW_TIMEOUT_MS)


def bench_steps(*, replica: str | None = None, repeat: int = 30, variant: str = "default") -> dict:
    """Engine step vs raw Playwright for in-page actions (fill, click) and a navigation."""
    config = bench_replica(replica)
    world = world_create(replica=config.label, seed=7, variant=variant)
    session = None
    try:
        start_page = step_page(world)
        session, signed_in_by_bench = open_session(world=world, start_page=start_page)
        obs = session.observe()
        found = TEXTBOX.search(obs.axtree)
        if found is None:
            raise RuntimeError(f"no textbox with a bid on {start_page} to step on")
        bid = found.group(1)
        page = session.page
        url = session.origin + start_page
        element = page.locator(f'[bid="{bid}"]')
        kinds = {
            "fill": (
                lambda i: f'fill("{bid}", "Benchmark reply {i}")',
                lambda i: element.fill(f"Benchmark reply {i}", timeout=RAW_TIMEOUT_MS),
            ),
            "click": (lambda i: f'click("{bid}")', lambda i: element.click(timeout=RAW_TIMEOUT_MS)),
            "navigate": (
                lambda i: f'goto("{start_page}")',
                lambda i: page.goto(url, wait_until="load", timeout=RAW_TIMEOUT_MS),
            ),
        }
        engine = {k: Stopwatch() for k in kinds}
        raw = {k: Stopwatch() for k in kinds}
        phases = {"action_ms": [], "settle_ms": [], "observe_ms": []}
        errors = []
        for i in range(repeat + 1):  # round 0 warms up and is not counted
            for kind, (action_text, raw_act) in kinds.items():
                start = time.perf_counter()
                result = session.step(action_text(i))
                engine_ms = (time.perf_counter() - start) * 1000
                if kind == "navigate":  # bids of the new document: find the textbox again
                    element = page.locator(f'[bid="{bid}"]')
                start = time.perf_counter()
                _raw_step(page, lambda: raw_act(i))  # noqa: B023 - called right here, in this iteration
                raw_ms = (time.perf_counter() - start) * 1000
                if kind == "navigate":
                    # the raw goto left an unstamped document: let the engine stamp it again
                    session.observe()
                if result.error:
                    errors.append({"action": action_text(i), "error": result.error[:200]})
                if i == 0:
                    continue
                engine[kind].samples_ms.append(engine_ms)
                raw[kind].samples_ms.append(raw_ms)
                for phase in phases:
                    phases[phase].append(float(result.timings.get(phase, 0.0)))
        all_engine = [ms for w in engine.values() for ms in w.samples_ms]
        all_raw = [ms for w in raw.values() for ms in w.samples_ms]
        by_kind = {
            kind: {
                "engine": engine[kind].summary(),
                "raw": raw[kind].summary(),
                "ratio": ratio(engine[kind].summary()["median_ms"], raw[kind].summary()["median_ms"]),
            }
            for kind in kinds
        }
        eng, rw = summary(all_engine), summary(all_raw)
        return {
            "replica": config.label,
            "variant": variant,
            "page": start_page,
            "signed_in_by_bench": signed_in_by_bench,
            "screenshot_bytes": len(obs.screenshot),
            "axtree_lines": obs.axtree.count("\n") + 1,
            "engine": eng,
            "raw": rw,
            "ratio_to_raw": ratio(eng["median_ms"], rw["median_ms"]),
            "by_kind": by_kind,
            "engine_phases": {phase: summary(values) for phase, values in phases.items()},
            "errors": errors[:10],
        }
    finally:
        if session is not None:
            session.close()
        world_delete(world=world)
