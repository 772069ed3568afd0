"""The zero-edit plug-in, proved on a copy: the testbed folder copied into a copy of the project as a new replica,
`pinboard` (its names changed inside the new folder only, fresh migrations: docs/architecture.md, "Adding a replica",
steps 1-2), is found, seeded, served, verified and benchmarked there by the platform's own commands, and no file
outside replicas/pinboard/ differs from the project it was copied from.

The copy runs in subprocesses on a SQLite database of its own (under the test's tmp_path), so neither the working
tree nor the test database sees the new replica."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
NAME = "pinboard"
# not part of the project: environments, data, caches, what npm installs (linked instead), the docs' screenshots
LEFT_OUT = {".git", ".venv", ".venv-browsergym", "data", ".ruff_cache", ".hypothesis", ".pytest_cache"}

pytestmark = [
    pytest.mark.browser,  # verify_tasks plays the copied tasks' episodes in a real Chromium
    # the copy runs on a SQLite database of its own whatever the suite's backend: bin/test's PostgreSQL
    # pass would repeat the SQLite pass's run byte for byte
    pytest.mark.sqlite_only,
]


def _left_out(folder, names):
    skipped = {"__pycache__"}
    if Path(folder) == ROOT:
        skipped |= LEFT_OUT
    if Path(folder) == ROOT / "frontend":
        skipped.add("node_modules")
    if Path(folder) == ROOT / "docs":
        skipped.add("screenshots")
    return skipped & set(names)


def _fingerprint(project: Path) -> dict[str, str]:
    """Every file of the copy outside the new replica and its data, by content."""
    out = {}
    for path in sorted(project.rglob("*")):
        rel = path.relative_to(project)
        if rel.parts[0] in ("data",) or rel.parts[:2] == ("replicas", NAME) or "__pycache__" in rel.parts:
            continue
        if path.is_file() and not path.is_symlink():
            out[str(rel)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _new_replica(project: Path) -> Path:
    """What an engineer does by hand: copy the folder, rename it inside, drop the copied migrations."""
    folder = project / "replicas" / NAME
    shutil.copytree(project / "replicas" / "testbed", folder)
    (folder / "templates" / "testbed").rename(folder / "templates" / NAME)
    for migration in (folder / "migrations").glob("0*.py"):
        migration.unlink()
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".json", ".html"):
            text = path.read_text()
            # constraint names are per database, so the copy's get a prefix of their own
            text = (
                text.replace("testbed", NAME)
                .replace("Testbed", NAME.title())
                .replace('name="tb_', 'name="pb_')
                .replace('world_unique("tb_', 'world_unique("pb_')
            )
            path.write_text(text)
    return folder


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    project = tmp_path_factory.mktemp("plugin") / "project"
    shutil.copytree(ROOT, project, ignore=_left_out)
    node_modules = ROOT / "frontend" / "node_modules"
    if node_modules.exists():
        (project / "frontend" / "node_modules").symlink_to(node_modules)
    return project


def _manage(project: Path, *args: str, timeout: int = 900) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env["REPLICAGYM_DATA_DIR"] = str(project / "data")
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=project, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"manage.py {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


SERVED = """
import json
from django.conf import settings
from django.test import Client
from replicas.worlds.models import World
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world

config = get_replica("{name}")
world = World.objects.get(token="{token}".removeprefix("w-"))
client = Client(HTTP_HOST=f"w-{{world.token}}.localhost:8000")
anonymous = client.get("/notes")
client.cookies[settings.SESSION_COOKIE_NAME] = config.sign_in(world).session_key
page = client.get("/notes")
with bound_world(world):
    title = config.get_model("Note").objects.order_by("public_id").first().title
print(json.dumps({{"config": type(config).__name__, "models": [m.__name__ for m in config.world_models],
                  "anonymous": [anonymous.status_code, anonymous.get("Location", "")],
                  "page": page.status_code, "title_shown": title in page.content.decode()}}))
"""


def test_a_copied_replica_folder_is_found_seeded_served_verified_and_benchmarked_with_no_edit_elsewhere(project):
    before = _fingerprint(project)
    _new_replica(project)
    _manage(project, "makemigrations", NAME, "--name", "initial")
    _manage(project, "migrate", "-v0")

    # seeded: two worlds of one seed are the same, each with the testbed's 3 members and 6 notes
    first, again = (
        json.loads(_manage(project, "world", "create", "--replica", NAME, "--seed", "7", "--variant", "small"))
        for _ in range(2)
    )
    assert first["rows"] == again["rows"] == 9 and first["state_hash"] == again["state_hash"]
    assert first["world"] != again["world"]

    # found and served: its AppConfig in the registry, its pages on the world's origin, signed in through the contract
    served = json.loads(
        _manage(project, "shell", "-c", SERVED.format(name=NAME, token=first["world"])).strip().splitlines()[-1]
    )
    assert served == {
        "config": "PinboardConfig",
        "models": ["Member", "Note"],
        "anonymous": [302, "/login?next=/notes"],
        "page": 200,
        "title_shown": True,
    }

    # verified: its task pack synced and each task's reference passes, doing nothing and every negative fail
    report = _manage(project, "verify_tasks", NAME)
    assert "2 of 2 task(s) ok" in report and f"{NAME}.complete-note" in report

    # benchmarked: `bench --replica` measures it from its ReplicaConfig (bench_task, bench_pages)
    out = project / "bench.json"
    _manage(
        project,
        "bench",
        "--replica",
        NAME,
        "--only",
        "reset,server",
        "--variants",
        "small",
        "--repeat",
        "2",
        "--requests",
        "20",
        "--world-variant",
        "small",
        "--servers",
        "engine",
        "--out",
        str(out),
    )
    sections = json.loads(out.read_text())["sections"]
    assert sections["reset"]["replica"] == NAME and sections["reset"]["variants"]["small"]["rows"] == 9
    assert sections["server"]["replica"] == NAME and not sections["server"]["servers"]["engine"]["pages_not_served"]

    # nothing outside the new folder was edited, by hand or by a command
    out.unlink()
    assert _fingerprint(project) == before
