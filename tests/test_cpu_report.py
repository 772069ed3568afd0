"""`pytest --cpu-report`: each test's CPU, with that of the processes it starts, and the costliest files."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cpu_report import file_costs

ROOT = Path(__file__).resolve().parent.parent

BURNING_TESTS = """
import subprocess, sys

LOOP = "import sys, time\\nend = time.process_time() + float(sys.argv[1])\\nwhile time.process_time() < end: pass"

def _burn(seconds):
    subprocess.run([sys.executable, "-c", LOOP, str(seconds)], check=True)

def test_a_child_burns():
    _burn(0.8)

def test_idle():
    pass
"""


def test_a_tests_cpu_holds_its_child_processes_and_the_files_are_summed_over_the_workers(tmp_path):
    (tmp_path / "test_burn.py").write_text(BURNING_TESTS)
    (tmp_path / "test_other.py").write_text(BURNING_TESTS.replace("_burn(0.8)", "_burn(0.2)"))
    report = tmp_path / "out" / "cpu.jsonl"
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "cpu.jsonl.gw9").write_text('{"test": "an earlier run", "wall_s": 1, "cpu_s": 99}\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", os.devnull, "--rootdir", str(tmp_path), "-p", "tests.cpu_report"]
        + ["-p", "no:django", "-p", "no:cacheprovider", "-n", "2", "--cpu-report", str(report), str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = {
        json.loads(text)["test"].split("/")[-1]: json.loads(text)
        for own in (tmp_path / "out").glob("cpu.jsonl.*")
        for text in own.read_text().splitlines()
    }
    assert set(lines) == {f"test_{f}.py::test_{t}" for f in ("burn", "other") for t in ("a_child_burns", "idle")}
    assert lines["test_burn.py::test_a_child_burns"]["cpu_s"] >= 0.7  # the child's, which the test only waited for
    assert lines["test_other.py::test_a_child_burns"]["cpu_s"] >= 0.15
    assert lines["test_burn.py::test_idle"]["cpu_s"] < 0.15
    summary = result.stdout[result.stdout.index("CPU of the tests' processes") :]
    assert "over 4 tests" in summary and "99" not in summary  # the earlier run's file was removed
    rows = [line.split() for line in summary.splitlines()[2:4]]
    assert [(row[2], Path(row[-1]).name) for row in rows] == [("2", "test_burn.py"), ("2", "test_other.py")]


def test_files_are_ordered_by_cpu_with_their_tests_and_wall_summed():
    lines = [
        {"test": "a.py::x", "cpu_s": 1.0, "wall_s": 5.0},
        {"test": "b.py::y[1]", "cpu_s": 2.0, "wall_s": 1.0},
        {"test": "b.py::y[2]", "cpu_s": 0.5, "wall_s": 1.5},
        {"test": "c.py::z", "cpu_s": 1.0, "wall_s": 0.1},
    ]
    assert file_costs(lines) == [("b.py", 2, 2.5, 2.5), ("a.py", 1, 1.0, 5.0), ("c.py", 1, 1.0, 0.1)]
