"""`pytest --cpu-report PATH`: each test's wall seconds and the CPU seconds its processes used, and the files that
cost most, printed at the end of the run (bin/test passes it for both passes).

The suite is bound by the CPU on this machine's 2 cores (issue 28): what a pass costs is its CPU, and a file's
wall time says little while another file runs beside it. A test's CPU is that of the process running it and of
every process below it (Chromium, Playwright's driver, the replica server, Celery workers): their user and system
seconds, with those of children they have reaped, read before and after the test. A process that leaves the tree
before it is reaped (a worker killed on purpose, one in a session of its own whose parent died) or that the test
only talks to (PostgreSQL's backends) is not counted: the report's total is a floor, and the machine's busy
seconds that bin/test prints for the pass are the whole bill.

Each xdist worker appends one JSON line a test to `PATH.<worker>`; the controller reads them all at the end.
"""

import json
import time
from collections import defaultdict
from pathlib import Path

import pytest

from bench.measure import tree_cpu_s

TOP_FILES = 15


def pytest_addoption(parser):
    parser.addoption(
        "--cpu-report",
        metavar="PATH",
        help="write each test's wall and CPU seconds to PATH.<worker> (JSON lines) and print the costliest files",
    )


def _worker(config) -> str | None:
    """This process's xdist worker id; None in the controller or a run without xdist. Read from the config, not
    from PYTEST_XDIST_WORKER: a pytest run started by a test inherits its worker's variable."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput["workerid"] if workerinput else None


def _own_file(config) -> Path | None:
    path = config.getoption("cpu_report")
    if not path:
        return None
    return Path(f"{path}.{_worker(config) or 'main'}")


def pytest_sessionstart(session):
    """A report of this run only: the controller (or a run without xdist) removes the files of an earlier one."""
    path = session.config.getoption("cpu_report")
    if path and _worker(session.config) is None:
        base = Path(path)
        base.parent.mkdir(parents=True, exist_ok=True)
        for old in base.parent.glob(base.name + ".*"):
            old.unlink()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    own = _own_file(item.config)
    if own is None:
        yield
        return
    cpu, wall = tree_cpu_s(), time.perf_counter()
    yield
    line = {"test": item.nodeid, "wall_s": round(time.perf_counter() - wall, 2), "cpu_s": round(tree_cpu_s() - cpu, 2)}
    with own.open("a") as out:
        out.write(json.dumps(line) + "\n")


def file_costs(lines: list[dict]) -> list[tuple[str, int, float, float]]:
    """(file, tests, CPU seconds, wall seconds) of each test file, the costliest CPU first."""
    by_file = defaultdict(lambda: [0, 0.0, 0.0])
    for line in lines:
        cost = by_file[line["test"].split("::")[0]]
        cost[0] += 1
        cost[1] += line["cpu_s"]
        cost[2] += line["wall_s"]
    return sorted(((name, *cost) for name, cost in by_file.items()), key=lambda row: (-row[2], row[0]))


def pytest_terminal_summary(terminalreporter, config):
    path = config.getoption("cpu_report")
    if not path or _worker(config) is not None:
        return
    base = Path(path)
    lines = [
        json.loads(text)
        for own in sorted(base.parent.glob(base.name + ".*"))
        for text in own.read_text().splitlines()
        if text
    ]
    if not lines:
        return
    rows = file_costs(lines)
    write = terminalreporter.write_line
    terminalreporter.section(f"CPU of the tests' processes: {sum(r[2] for r in rows):.0f} s over {len(lines)} tests")
    write(f"{'CPU s':>7} {'wall s':>7} {'tests':>5}  file (the {min(TOP_FILES, len(rows))} costliest of {len(rows)})")
    for name, tests, cpu, wall in rows[:TOP_FILES]:
        write(f"{cpu:7.0f} {wall:7.0f} {tests:5d}  {name}")
    write(f"each test's figures: {base}.<worker>")
