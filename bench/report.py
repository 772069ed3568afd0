"""Runs the benchmark sections, collects one JSON report, and renders its short table."""

import os
import platform
import time
import traceback
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from django.conf import settings
from django.db import connection

from .browsergym_side import bench_browsergym
from .checkpoints import CHECKPOINT_GOAL, bench_checkpoints
from .memory import bench_memory
from .observations import bench_observations
from .render import bench_render
from .server_load import bench_server
from .steps import bench_episode_start, bench_steps
from .throughput import OBS_GOAL, bench_throughput
from .workspace import bench_workspace
from .world_pool import TAKE_TARGET_MS, bench_world_pool
from .world_reset import RESET_TARGETS_MS, bench_world_reset

SECTIONS = (
    "reset",
    "pool",
    "workspace",
    "start",
    "step",
    "render",
    "throughput",
    "server",
    "memory",
    "browsergym",
    "observations",
    "checkpoints",
)


@dataclass(frozen=True)
class BenchOptions:
    repeat: int = 20
    variants: list = field(default_factory=lambda: ["default", "10k", "100k"])
    step_repeat: int = 30
    requests: int = 3000
    render_requests: int = 40
    server_seconds: float = 20.0
    concurrency: int = 8
    world_variant: str = "default"
    servers: list = field(default_factory=lambda: ["engine", "gunicorn"])
    workers: list = field(default_factory=lambda: [1, 2, 4])
    episodes: int = 8
    throughput_seconds: float = 240.0
    memory_episodes: int = 4
    checkpoint_episodes: int = 3
    browsergym_repeat: int = 3
    obs: str | None = None  # an observation mode the throughput section runs next to full mode
    obs_tasks: int | None = None  # tasks per replica of the observations section (None: every one)
    replica: str | None = None  # None: the first replica (by name) that declares a bench_task
    task: str | None = None  # None: the replica's bench_task, or its first task with a solution
    quick: bool = False

    @classmethod
    def preset(cls, *, quick: bool) -> "BenchOptions":
        if not quick:
            return cls()
        return cls(
            repeat=5,
            variants=["default", "10k"],
            step_repeat=10,
            requests=400,
            render_requests=10,
            server_seconds=5.0,
            workers=[1, 2],
            episodes=3,
            throughput_seconds=90.0,
            memory_episodes=2,
            checkpoint_episodes=2,
            browsergym_repeat=1,
            obs_tasks=4,
            quick=True,
        )

    def override(self, **values) -> "BenchOptions":
        given = {k: v for k, v in values.items() if v is not None}
        if "repeat" in given:
            given.setdefault("step_repeat", given["repeat"])
            given.setdefault("render_requests", given["repeat"])
        return replace(self, **given)


def _environment() -> dict:
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "database": connection.vendor,
        "chromium": settings.CHROMIUM_PATH,
    }


def _run_one(name: str, options: BenchOptions) -> dict:
    if name == "reset":
        return bench_world_reset(replica=options.replica, variants=options.variants, repeat=options.repeat)
    if name == "pool":
        return bench_world_pool(replica=options.replica, variants=options.variants, repeat=options.repeat)
    if name == "workspace":
        return bench_workspace(repeat=options.repeat)
    if name == "start":
        return bench_episode_start(task_id=options.task, replica=options.replica, repeat=options.step_repeat)
    if name == "step":
        return bench_steps(replica=options.replica, repeat=options.step_repeat, variant=options.world_variant)
    if name == "render":
        return bench_render(replica=options.replica, variant=options.world_variant, requests=options.render_requests)
    if name == "throughput":
        return bench_throughput(
            task_id=options.task,
            replica=options.replica,
            workers=options.workers,
            episodes=options.episodes,
            seconds=options.throughput_seconds,
            obs=options.obs,
        )
    if name == "server":
        return bench_server(
            replica=options.replica,
            variant=options.world_variant,
            kinds=options.servers,
            concurrency=options.concurrency,
            requests=options.requests,
            seconds=options.server_seconds,
        )
    if name == "memory":
        return bench_memory(task_id=options.task, replica=options.replica, episodes=options.memory_episodes)
    if name == "browsergym":
        return bench_browsergym(task_id=options.task, replica=options.replica, repeat=options.browsergym_repeat)
    if name == "observations":
        return bench_observations(tasks=options.obs_tasks)
    if name == "checkpoints":
        return bench_checkpoints(task_id=options.task, replica=options.replica, episodes=options.checkpoint_episodes)
    raise ValueError(f"unknown section {name!r}")


def run_sections(sections, options: BenchOptions, progress=lambda line: None, save=lambda report: None) -> dict:
    """Run each section in order; a failing section is recorded with its error, not fatal.

    `save(report)` is called after every section, so a long run that is stopped half-way
    still leaves the numbers of the sections it finished.
    """
    report = {"environment": _environment(), "options": {k: v for k, v in options.__dict__.items()}, "sections": {}}
    for name in sections:
        progress(f"bench: {name} ...")
        start = time.perf_counter()
        try:
            result = _run_one(name, options)
        except Exception as exc:  # one broken section must not lose the others' numbers
            result = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=8)}
        result["section_s"] = round(time.perf_counter() - start, 1)
        report["sections"][name] = result
        progress(f"bench: {name} done in {result['section_s']} s" + (" (FAILED)" if "error" in result else ""))
        report["checks"] = checks(report["sections"])
        save(report)
    return report


# The episode engine's targets (issue #17), each printed by checks() against its measure.
START_MEDIAN_MS = 400.0
SERVER_P95_MS = 60.0
WORKER_RSS_MB = 500.0
EPISODES_PER_MIN_2 = 30.0


def _get(doc, *path):
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def checks(sections: dict) -> list[dict]:
    """The performance goals, each as measured / target / verdict (only for sections that ran)."""
    out = []

    def add(name, value, target, ok):
        if value is not None:
            out.append({"check": name, "value": value, "target": target, "passed": bool(ok)})

    # reset goals (issue #17 item 6) depend on the backend the section ran on
    reset_targets = RESET_TARGETS_MS.get(_get(sections, "reset", "backend"), RESET_TARGETS_MS["sqlite"])
    for variant, limit in reset_targets.items():
        median = _get(sections, "reset", "variants", variant, "median_ms")
        add(f"reset median at {variant} (ms)", median, f"<= {limit}", median is not None and median <= limit)
    for variant, v in (_get(sections, "pool", "variants") or {}).items():
        median = _get(v, "take", "median_ms")
        add(
            f"pool take median at {variant} (ms)",
            median,
            f"<= {TAKE_TARGET_MS}",
            median is not None and median <= TAKE_TARGET_MS,
        )
    pages = _get(sections, "render", "pages") or {}
    if pages:  # the replica issues' goal: every bench page renders in at most 30 ms (median) on a default world
        slowest = max(pages, key=lambda page: pages[page]["median_ms"])
        median = pages[slowest]["median_ms"]
        add(f"render median of the slowest page, {slowest} (ms)", median, "<= 30.0", median <= 30.0)
    raw_ratio = _get(sections, "step", "ratio_to_raw")
    add("step / raw Playwright step", raw_ratio, "<= 1.5", raw_ratio is not None and raw_ratio <= 1.5)
    bg_ratio = _get(sections, "browsergym", "ratio_step")
    add("our step / BrowserGym step", bg_ratio, "<= 0.333", bg_ratio is not None and bg_ratio <= 1 / 3)
    grows = _get(sections, "throughput", "grows_up_to_cores")
    add("throughput grows with workers up to the core count", grows, "true", grows)
    # the episode engine's goals (issue #17): start, the server episodes use, a worker's memory, throughput
    start = _get(sections, "start", "total", "median_ms")
    add("episode start median (ms)", start, f"<= {START_MEDIAN_MS}", start is not None and start <= START_MEDIAN_MS)
    served = _get(sections, "server", "servers", "engine")
    if isinstance(served, dict) and "latency" in served:
        p95 = served["latency"]["p95_ms"]
        add(
            f"replica server p95 at {served['concurrency']} concurrent clients (ms)",
            p95,
            f"<= {SERVER_P95_MS}",
            p95 is not None and served["concurrency"] >= 8 and p95 <= SERVER_P95_MS,
        )
    rss = _get(sections, "memory", "worker_peak_rss_mb")
    add("worker peak RSS (MiB)", rss, f"<= {WORKER_RSS_MB}", rss is not None and rss <= WORKER_RSS_MB)
    two = _get(sections, "throughput", "by_workers", "2", "episodes_per_min")
    add(
        "oracle episodes per minute with 2 workers",
        two,
        f">= {EPISODES_PER_MIN_2}",
        two is not None and two >= EPISODES_PER_MIN_2,
    )
    obs = _get(sections, "throughput", "obs")
    if obs:
        ratio = _get(obs, "by_workers", "2", "ratio")
        add(
            f"{obs['mode']} mode / full mode episodes per minute with 2 workers",
            ratio,
            f">= {OBS_GOAL}",
            ratio is not None and ratio >= OBS_GOAL,
        )
    for label, v in (_get(sections, "observations", "replicas") or {}).items():
        add(
            f"{label}: text mode characters on the median page (% of full)",
            v["text_pct_of_full"],
            f"<= {_get(sections, 'observations', 'text_goal_pct')}",
            v["text_goal_met"],
        )
    added = _get(sections, "checkpoints", "added_to_step_median")
    add(
        "dense checkpoints: added to a step's median time",
        added,
        f"<= {CHECKPOINT_GOAL}",
        added is not None and added <= CHECKPOINT_GOAL,
    )
    return out


def _fmt(value, unit=""):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}{unit}" if abs(value) >= 10 else f"{value:.2f}{unit}"
    return f"{value}{unit}"


def table(report: dict) -> str:
    """A short human summary of the report."""
    s = report["sections"]
    lines = [f"ReplicaGym bench ({report['environment']['database']}, {report['environment']['cores']} cores)"]

    def row(label, *cells):
        lines.append(f"  {label:<44}" + "".join(f"{c:>14}" for c in cells))

    for name, result in s.items():
        if "error" in result:
            lines.append(f"{name}: FAILED: {result['error']}")
            continue
        lines.append(f"{name}:")
        if name in ("reset", "workspace"):  # the same shape: variants of rows, median, p95
            row("variant (rows)", "median", "p95")
            for variant, v in result["variants"].items():
                if "skipped" in v:
                    row(variant, "skipped")
                else:
                    row(f"{variant} ({v['rows']} rows)", _fmt(v["median_ms"], " ms"), _fmt(v["p95_ms"], " ms"))
        elif name == "pool":
            row("world part of a start (rows)", "take med", "clone med", "take p95", "refill med")
            for variant, v in result["variants"].items():
                if "skipped" in v:
                    row(variant, "skipped")
                else:
                    row(
                        f"{variant} ({v['rows']} rows)",
                        _fmt(v["take"]["median_ms"], " ms"),
                        _fmt(v["clone"]["median_ms"], " ms"),
                        _fmt(v["take"]["p95_ms"], " ms"),
                        _fmt(v["refill"]["median_ms"], " ms"),
                    )
        elif name == "start":
            row(
                "world + context + first observation",
                _fmt(_get(result, "total", "median_ms"), " ms"),
                _fmt(_get(result, "total", "p95_ms"), " ms"),
            )
            for part in ("world", "open", "observe"):
                row(
                    f"  {part}", _fmt(_get(result, part, "median_ms"), " ms"), _fmt(_get(result, part, "p95_ms"), " ms")
                )
        elif name == "checkpoints":
            row(f"{result['task']} ({result['episodes']} episodes)", "median", "p95")
            for label, key in (("step", "step"), ("checkpoint watch", "watch"), ("step + watch", "step_with_watch")):
                row(label, _fmt(result[key]["median_ms"], " ms"), _fmt(result[key]["p95_ms"], " ms"))
            row("added to the step median", _fmt(result["added_to_step_median"]))
            row(
                "milestones reached" + (" (made up: the task has none)" if result["synthetic_checkpoints"] else ""),
                _fmt(result["milestones_reached"]),
            )
        elif name == "step":
            row("", "median", "p95")
            row(
                "engine step (action+settle+obs)",
                _fmt(_get(result, "engine", "median_ms"), " ms"),
                _fmt(_get(result, "engine", "p95_ms"), " ms"),
            )
            row(
                "raw Playwright (action+shot+aria)",
                _fmt(_get(result, "raw", "median_ms"), " ms"),
                _fmt(_get(result, "raw", "p95_ms"), " ms"),
            )
            row("ratio engine / raw", _fmt(result.get("ratio_to_raw"), "x"))
        elif name == "render":
            row(f"page ({result['replica']}, {result['variant']})", "median", "p95", "cpu median", "queries")
            for path, v in result["pages"].items():
                row(
                    path if len(path) <= 44 else path[:41] + "...",
                    _fmt(v["median_ms"], " ms"),
                    _fmt(v["p95_ms"], " ms"),
                    _fmt(v["cpu_median_ms"], " ms"),
                    _fmt(v["queries"]),
                )
            for path, why in result.get("failed", {}).items():
                row(path if len(path) <= 44 else path[:41] + "...", f"FAILED: {why.split(' answered ')[-1]}")
        elif name == "throughput":
            row("workers (episodes passed / run)", "episodes/min", "episode med")
            for w, v in result.get("by_workers", {}).items():
                row(
                    f"{w} ({v.get('passed')}/{v.get('episodes')} passed)",
                    _fmt(v.get("episodes_per_min")),
                    _fmt(_get(v, "episode", "median_ms"), " ms"),
                )
            obs = result.get("obs")
            if obs:
                mode = obs["mode"]
                row(f"workers: full vs {mode} mode, no screenshots", "full ep/min", f"{mode} ep/min", "ratio")
                for w, v in obs["by_workers"].items():
                    row(
                        f"{w} ({v['full']['episodes']} + {v[mode]['episodes']} episodes, {obs['order']})",
                        _fmt(v["full"]["episodes_per_min"]),
                        _fmt(v[mode]["episodes_per_min"]),
                        _fmt(v["ratio"], "x"),
                    )
                for w, v in obs["by_workers"].items():
                    if v.get("cpu_ratio") is not None:
                        row(
                            f"{w}: CPU s/episode (worker, browser, server)",
                            _fmt(v["full"]["cpu_s_per_episode"], " s"),
                            _fmt(v[mode]["cpu_s_per_episode"], " s"),
                            _fmt(v["cpu_ratio"], "x"),
                        )
                met = {True: "met", False: "NOT met", None: "not measured (no 2-worker round)"}[obs["goal_met"]]
                row(f"goal: >= {obs['goal']}x full with 2 workers: {met}")
        elif name == "observations":
            row(f"chars/observation (diff: whole every {result['full_every']})", "full", "text", "diff")
            for label, v in result["replicas"].items():
                c = v["chars"]
                row(
                    f"{label} ({v['observations']} obs, {v['tasks']} tasks) median",
                    *(_fmt(c[m]["median"]) for m in ("full", "text", "diff")),
                )
                row("  p95", *(_fmt(c[m]["p95"]) for m in ("full", "text", "diff")))
                row("  % of full (of medians)", "", _fmt(v["text_pct_of_full"], "%"), _fmt(v["diff_pct_of_full"], "%"))
                row(
                    "  median page's own share of full",
                    "",
                    *(f"{v['median_page_share_pct'][m]}%" for m in ("text", "diff")),
                )
                unseen = sum(len(a) for a in v["targets_unseen_in_text"].values())
                row(f"  reference targets missing from text mode: {unseen}")
        elif name == "server":
            row("server", "req/s", "p95")
            for kind, v in result["servers"].items():
                if "skipped" in v:
                    row(kind, "skipped")
                else:
                    row(
                        f"{kind} (c={v['concurrency']}, {v['ok']}/{v['requests']} ok)",
                        _fmt(v["rps"]),
                        _fmt(v["latency"]["p95_ms"], " ms"),
                    )
        elif name == "memory":
            row("peak RSS of a worker process", _fmt(result.get("worker_peak_rss_mb"), " MiB"))
            for kind, mb in (result.get("worker_peak_rss_by_kind_mb") or {}).items():
                row(f"  {kind}", _fmt(mb, " MiB"))
            row("per concurrent episode (PSS)", _fmt(result.get("per_episode_mb"), " MiB"))
        elif name == "browsergym":
            row("", "ours", "BrowserGym", "ratio")
            row(
                "step median",
                _fmt(_get(result, "ours", "step", "median_ms"), " ms"),
                _fmt(_get(result, "browsergym", "step", "median_ms"), " ms"),
                _fmt(result.get("ratio_step"), "x"),
            )
            row(
                "episode (reset + steps)",
                _fmt(_get(result, "ours", "episode", "median_ms"), " ms"),
                _fmt(_get(result, "browsergym", "episode", "median_ms"), " ms"),
                _fmt(result.get("ratio_episode"), "x"),
            )
    if report.get("checks"):
        lines.append("checks:")
        for c in report["checks"]:
            mark = "ok  " if c["passed"] else "MISS"
            lines.append(f"  [{mark}] {c['check']}: {_fmt(c['value'])} (target {c['target']})")
    return "\n".join(lines)
