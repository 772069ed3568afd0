"""`factory build`: an anchor folder in, replicas/<domain>/ out. The files are written by the compiler, the migration
by Django's makemigrations, and the tasks by a sandbox run (synth), both in child processes on a throwaway SQLite
database that have the new replica installed. Deterministic: the same anchor gives the same bytes."""

import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from replicagym.env import child_env

from .anchor import anchor_read
from .compiler import replica_files, spec_compile

MARK = "spec.json"  # a folder holding it was built by the factory and may be rebuilt; any other is left alone


class BuildError(RuntimeError):
    pass


@dataclass(frozen=True)
class BuildReport:
    domain: str
    folder: Path
    files: int
    tasks: int
    seconds: float


def _run(args: list[str], env: dict, what: str) -> None:
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False, cwd=settings.BASE_DIR)
    if done.returncode != 0:
        raise BuildError(f"{what} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}")


def tasks_write(folder: Path, tasks: list[dict]) -> None:
    for path in (folder / "tasks").glob("*.json"):
        path.unlink()
    for task in tasks:
        (folder / "tasks" / f"{task['slug']}.json").write_text(json.dumps(task, indent=2, ensure_ascii=False) + "\n")


def factory_build(*, anchor_dir: Path, root: Path | None = None) -> BuildReport:
    started = time.perf_counter()
    anchor, sha = anchor_read(anchor_dir)
    spec = spec_compile(anchor, sha)
    root = Path(root or settings.BASE_DIR)
    folder = root / "replicas" / spec["domain"]
    if folder.exists() and not (folder / MARK).exists():
        raise BuildError(f"{folder} exists and was not built by the factory: not overwriting it")
    if folder.exists():
        shutil.rmtree(folder)
    files = replica_files(spec, bench_task="")
    for relative, text in sorted(files.items()):
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    ruff = Path(sys.executable).with_name("ruff")
    _run([str(ruff), "format", "--quiet", str(folder)], child_env(), "ruff format")
    manage = [sys.executable, str(root / "manage.py")]
    with tempfile.TemporaryDirectory(prefix="factory-") as data:
        # a database of its own: the build never touches the project's worlds
        env = child_env(REPLICAGYM_DATA_DIR=data, DATABASE_URL=f"sqlite:///{data}/build.sqlite3")
        _run([*manage, "makemigrations", spec["domain"], "--name", "initial", "--no-header"], env, "makemigrations")
        _run([*manage, "migrate", "--verbosity", "0"], env, "migrate")
        _run([*manage, "factory", "tasks", spec["domain"]], env, "task synthesis")
    # the migration as the project's linter and formatter write it, like every other file of the folder
    _run([str(ruff), "check", "--fix", "--quiet", str(folder / "migrations")], child_env(), "ruff check --fix")
    _run([str(ruff), "format", "--quiet", str(folder)], child_env(), "ruff format")
    tasks = len(list((folder / "tasks").glob("*.json")))
    count = sum(1 for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return BuildReport(spec["domain"], folder, count, tasks, time.perf_counter() - started)
