"""Small measuring helpers shared by the benchmark sections: timers, summaries, RSS."""

import math
import resource
import statistics
import time
from contextlib import contextmanager

import psutil

MIB = 1024 * 1024


def percentile(samples: list[float], q: float) -> float:
    """The nearest-rank `q` percentile (0 < q <= 100): the one formula every benchmark reports."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


def summary(samples_ms: list[float]) -> dict:
    """Median, p95 (nearest rank), min, max and count of a list of milliseconds."""
    if not samples_ms:
        return {"n": 0, "median_ms": None, "p95_ms": None, "min_ms": None, "max_ms": None}
    ordered = sorted(samples_ms)
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(percentile(ordered, 95), 2),
        "min_ms": round(ordered[0], 2),
        "max_ms": round(ordered[-1], 2),
    }


class Stopwatch:
    """Collects the durations of repeated blocks: `with watch: ...`."""

    def __init__(self):
        self.samples_ms: list[float] = []

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.samples_ms.append((time.perf_counter() - self._start) * 1000)
        return False

    def summary(self) -> dict:
        return summary(self.samples_ms)


@contextmanager
def elapsed():
    """`with elapsed() as t: ...; t()` gives the block's duration in milliseconds."""
    start = time.perf_counter()
    end = None

    def ms():
        return ((end if end is not None else time.perf_counter()) - start) * 1000

    try:
        yield ms
    finally:
        end = time.perf_counter()


def ratio(a, b) -> float | None:
    if a is None or not b:
        return None
    return round(a / b, 3)


def _tree(pid: int | None) -> list[psutil.Process]:
    """The process and its living descendants (a process that ends while we look is left out)."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def process_tree(pid: int | None = None) -> list[int]:
    """`pid` (default: this process) and all its descendants."""
    return [p.pid for p in _tree(pid)]


def tree_cpu_s(pid: int | None = None) -> float:
    """CPU seconds (user and system) a process tree has used: each living process's own, and that of
    its children it has reaped (a browser's ended renderers, a server's ended workers). Unlike wall time,
    it does not grow when other jobs load the machine."""
    return round(sum(tree_cpu_by_kind_s(pid).values()), 3)


def tree_cpu_by_kind_s(pid: int | None = None) -> dict[str, float]:
    """`tree_cpu_s` split by what each process is (see `_kind`): an ended renderer's CPU is its reaper's,
    Chromium's, and an ended server worker's the replica server's."""
    tree = _tree(pid)
    out: dict[str, float] = {}
    for process in tree:
        try:
            t = process.cpu_times()
        except psutil.Error:  # ended while we looked: its parent has it once reaped
            continue
        kind = _kind(process, tree[0].pid)
        out[kind] = out.get(kind, 0.0) + t.user + t.system + t.children_user + t.children_system
    return {kind: round(seconds, 3) for kind, seconds in sorted(out.items())}


def _memory(process: psutil.Process, field: str) -> int:
    try:
        info = process.memory_full_info() if field == "pss" else process.memory_info()
        return getattr(info, field)
    except psutil.Error:  # ended, or not ours to read
        return 0


def peak_rss_mb() -> float:
    """Peak resident memory (high-water mark) of this process, in MiB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / MIB, 1)  # Linux reports KiB


def tree_rss_mb(pid: int | None = None) -> float:
    """Resident memory of a process and its descendants (e.g. its Chromium), in MiB.

    Shared pages are counted once per process, so this over-states a multi-process
    browser somewhat; it is the number an operator's `ps` would add up to.
    """
    return round(sum(_memory(p, "rss") for p in _tree(pid)) / MIB, 1)


def tree_pss_mb(pid: int | None = None) -> float:
    """Proportional set size of a process tree in MiB: shared pages split between sharers."""
    return round(sum(_memory(p, "pss") for p in _tree(pid)) / MIB, 1)


def _kind(process: psutil.Process, root_pid: int) -> str:
    """What a process of a worker's tree is: the worker itself, its replica server, its browser or the driver."""
    if process.pid == root_pid:
        return "worker"
    try:
        cmdline = " ".join(process.cmdline())
    except psutil.Error:
        return "other"
    if "episodes.engine.server" in cmdline or "gunicorn" in cmdline:
        return "replica server"
    if "chrom" in cmdline:
        return "chromium"
    if "node" in cmdline or "playwright" in cmdline:
        return "playwright driver"
    return "other"


def tree_rss_by_kind_mb(pid: int | None = None) -> dict[str, float]:
    """Resident memory of a process tree in MiB, split by what each process is (see `_kind`)."""
    tree = _tree(pid)
    if not tree:
        return {}
    out: dict[str, float] = {}
    for process in tree:
        kind = _kind(process, tree[0].pid)
        out[kind] = out.get(kind, 0.0) + _memory(process, "rss") / MIB
    return {kind: round(mb, 1) for kind, mb in sorted(out.items())}
