"""Small measuring helpers shared by the benchmark sections: timers, summaries, RSS."""
import math
import os
import statistics
import time
from contextlib import contextmanager
from pathlib import Path


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


def _children(pid: int) -> list[int]:
    found = []
    task_dir = Path(f"/proc/{pid}/task")
    try:
        tasks = list(task_dir.iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def process_tree(pid: int | None = None) -> list[int]:
    """`pid` (default: this process) and all its descendants, read from /proc."""
    root = os.getpid() if pid is None else pid
    tree, todo = [], [root]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo += _children(current)
    return tree


def _status_kb(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def rss_mb(pid: int | None = None) -> float:
    """Resident memory of one process, in MiB."""
    return round(_status_kb(os.getpid() if pid is None else pid, "VmRSS") / 1024, 1)


def peak_rss_mb(pid: int | None = None) -> float:
    """Peak resident memory (high-water mark) of one process, in MiB."""
    return round(_status_kb(os.getpid() if pid is None else pid, "VmHWM") / 1024, 1)


def tree_rss_mb(pid: int | None = None) -> float:
    """Resident memory of a process and its descendants (e.g. its Chromium), in MiB.

    Shared pages are counted once per process, so this over-states a multi-process
    browser somewhat; it is the number an operator's `ps` would add up to.
    """
    return round(sum(_status_kb(p, "VmRSS") for p in process_tree(pid)) / 1024, 1)


def tree_pss_mb(pid: int | None = None) -> float:
    """Proportional set size of a process tree in MiB: shared pages split between sharers."""
    total_kb = 0
    for p in process_tree(pid):
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
                    break
        except (OSError, ValueError, IndexError):
            continue
    return round(total_kb / 1024, 1)
