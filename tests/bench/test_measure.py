"""Memory figures of the benchmarks come from psutil: a process tree, its RSS and PSS, this process's peak."""

import subprocess
import sys

from bench.measure import peak_rss_mb, process_tree, tree_pss_mb, tree_rss_by_kind_mb, tree_rss_mb


def test_a_child_process_counts_in_the_tree_and_its_memory():
    alone = tree_rss_mb()
    child = subprocess.Popen([sys.executable, "-c", "x = bytearray(64 * 1024 * 1024); import time; time.sleep(30)"])
    try:
        for _ in range(100):  # until the child holds its 64 MiB
            if child.pid in process_tree() and tree_rss_mb() > alone + 50:
                break
            subprocess.run(["sleep", "0.1"])
        assert child.pid in process_tree()
        assert tree_rss_mb() > alone + 50
        assert tree_pss_mb() > 50
    finally:
        child.kill()
        child.wait()
    assert child.pid not in process_tree()
    assert tree_rss_mb(child.pid) == 0  # a process that ended holds nothing
    assert peak_rss_mb() > 0


def test_a_tree_splits_its_rss_by_kind_of_process():
    # a child whose command line names the engine's replica server counts as the server
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "episodes.engine.server"])
    try:
        for _ in range(100):
            if "replica server" in tree_rss_by_kind_mb():
                break
            subprocess.run(["sleep", "0.1"])
        by_kind = tree_rss_by_kind_mb()
        assert by_kind["worker"] > 10 and by_kind["replica server"] > 1
        assert abs(sum(by_kind.values()) - tree_rss_mb()) < 20  # the same processes, read a moment apart
    finally:
        child.kill()
        child.wait()
