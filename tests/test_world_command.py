"""`manage.py world`: the command line that creates, shows and compares worlds."""
import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
# one xdist worker runs the whole module, so cli_env migrates its SQLite database once, not once per worker
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("world-command-line")]


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


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory):
    """A database of its own for the command-line runs (xdist workers must not share one)."""
    env = {**os.environ, "REPLICAGYM_DATA_DIR": str(tmp_path_factory.mktemp("cli"))}
    env.pop("DATABASE_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    return env


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
    result = subprocess.run([sys.executable, "manage.py", "world", *args], cwd=ROOT, env=cli_env, capture_output=True, text=True)
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
