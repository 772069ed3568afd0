"""`manage.py world`: the command line that creates, shows and compares worlds."""

import fcntl
import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.django_db


def world(*args):
    out = StringIO()
    call_command("world", *args, stdout=out)
    return out.getvalue()


def test_create_prints_one_json_object_with_world_url_rows_hash_and_time():
    doc = json.loads(world("create", "--replica", "testbed", "--seed", "7", "--variant", "small"))
    assert set(doc) == {"world", "url", "rows", "state_hash", "ms"}
    assert doc["url"] == f"http://w-{doc['world']}.localhost:8000/"
    assert doc["rows"] == 3 + 6 and len(doc["state_hash"]) == 64


def test_snapshot_and_diff_print_json():
    a = json.loads(world("create", "--replica", "testbed", "--seed", "7", "--variant", "small"))
    b = json.loads(world("create", "--replica", "testbed", "--seed", "8", "--variant", "small"))
    snap = json.loads(world("snapshot", a["world"]))
    assert "testbed.note" in snap["tables"]
    d = json.loads(world("diff", a["world"], b["world"]))
    assert d["before"] == a["state_hash"] and d["after"] == b["state_hash"]
    assert d["totals"]["changed"] > 0


@pytest.fixture(scope="session")
def cli_env(tmp_path_factory, worker_id):
    """A SQLite database of its own for the command-line runs, migrated once for the whole run.

    Each xdist worker that runs these tests asks for it (xdist_group cannot keep them on one worker:
    pytest 9.2 ignores the node ids xdist 3.8 rewrites for it), so the first migrates under a lock
    in the run's shared temporary folder and the others use its database; the runs only read it.
    """
    run_temp = tmp_path_factory.getbasetemp()
    shared = (run_temp if worker_id == "master" else run_temp.parent) / "world-command-line"
    shared.mkdir(exist_ok=True)
    env = {**os.environ, "REPLICAGYM_DATA_DIR": str(shared)}
    env.pop("DATABASE_URL", None)
    with open(shared / "migrate.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "migrated").exists():
            subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
            (shared / "migrated").touch()
    return env


# sqlite_only: the command runs on a SQLite database of its own (cli_env) whatever the suite's backend
@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    "args, message",
    [
        (["create", "--replica", "nope", "--seed", "7"], "unknown replica 'nope'"),
        (["create", "--replica", "testbed", "--seed", "7", "--variant", "huge"], "unknown variant 'huge'"),
        (["create", "--replica", "testbed", "--seed", "-3"], "seed must be a non-negative integer"),
        (["create", "--replica", "testbed", "--seed", "x"], "seed must be a non-negative integer"),
        (["snapshot", "nosuchworld"], "unknown world 'nosuchworld'"),
        (["diff", "a"], "the following arguments are required"),
    ],
)
def test_bad_arguments_exit_non_zero_with_one_clear_line(cli_env, args, message):
    result = subprocess.run(
        [sys.executable, "manage.py", "world", *args], cwd=ROOT, env=cli_env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
