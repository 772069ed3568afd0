"""`factory build`: an anchor folder in, replicas/<domain>/ out. The files are written by the compiler, the migration
by Django's makemigrations, and the tasks by a sandbox run (synth), both in child processes on a throwaway SQLite
database that have the new replica installed. Deterministic: the same anchor gives the same bytes."""

import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from replicagym.env import child_env

from replicas.worlds.enterprise.variants import families_read

from .anchor import anchor_read
from .compiler import replica_files, spec_compile
from .paraphrase import paraphrases_write

MARK = "spec.json"  # a folder holding it was built by the factory and may be rebuilt; any other is left alone
MANIFEST = "manifest.json"
GATE = "gate.json"  # in the anchor folder: the quality gate's scores per task, written by `factory gate`
TOOLS = "tool_solutions.json"  # in the replica's folder: each task's reference solution by tool calls


class BuildError(RuntimeError):
    pass


@dataclass(frozen=True)
class BuildReport:
    domain: str
    folder: Path
    files: int
    tasks: int
    dropped: int
    seconds: float
    cpu_seconds: float  # the build's and its children's: what the wall time would be on an idle machine, about


def _run(args: list[str], env: dict, what: str) -> None:
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False, cwd=settings.BASE_DIR)
    if done.returncode != 0:
        raise BuildError(f"{what} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}")


def tasks_write(folder: Path, tasks: list[dict], tools: dict[str, list[str]]) -> None:
    """The task files, and their reference solutions by tool calls (TOOLS: slug -> calls, which the task schema
    has no place for)."""
    for path in (folder / "tasks").glob("*.json"):
        path.unlink()
    for task in tasks:
        (folder / "tasks" / f"{task['slug']}.json").write_text(json.dumps(task, indent=2, ensure_ascii=False) + "\n")
    _tools_write(folder, tools)


def _tools_write(folder: Path, tools: dict[str, list[str]]) -> None:
    (folder / TOOLS).write_text(json.dumps(dict(sorted(tools.items())), indent=2, ensure_ascii=False) + "\n")


def tool_solutions(folder: Path) -> dict[str, list[str]]:
    """slug -> the task's reference solution by tool calls (enterprise.toolplay), for the tasks of the pack."""
    path = folder / TOOLS
    return json.loads(path.read_text()) if path.is_file() else {}


def _cpu() -> float:
    return sum(
        usage.ru_utime + usage.ru_stime
        for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )


def anchor_spec(anchor_dir: Path) -> tuple[dict, str]:
    """(the spec, the anchor's sha256) of an anchor folder: anchor.yaml compiled."""
    anchor, sha = anchor_read(anchor_dir)
    return spec_compile(anchor, sha), sha


def factory_build(*, anchor_dir: Path, root: Path | None = None) -> BuildReport:
    started, cpu = time.perf_counter(), _cpu()
    spec, sha = anchor_spec(anchor_dir)
    root = Path(root or settings.BASE_DIR)
    folder = root / "replicas" / spec["domain"]
    if folder.exists() and not (folder / MARK).exists():
        raise BuildError(f"{folder} exists and was not built by the factory: not overwriting it")
    if folder.exists():
        shutil.rmtree(folder)
    # the variant families `factory generate` recorded beside the anchor: the replica derives them from their number
    files = replica_files(spec, bench_task="", families=families_read(anchor_dir))
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
        sandbox = {**env, "DJANGO_SETTINGS_MODULE": "factory.build_settings"}
        _run([*manage, "migrate", "--run-syncdb", "--verbosity", "0"], sandbox, "the sandbox database")
        _run([*manage, "factory", "tasks", spec["domain"]], sandbox, "task synthesis")
    # the migration as the project's linter and formatter write it, like every other file of the folder
    _run([str(ruff), "check", "--fix", "--quiet", str(folder / "migrations")], child_env(), "ruff check --fix")
    _run([str(ruff), "format", "--quiet", str(folder)], child_env(), "ruff format")
    gate = gate_apply(folder, Path(anchor_dir) / GATE)
    paraphrases_write(folder, Path(anchor_dir))
    manifest = manifest_write(folder, anchor_sha256=sha, gate=gate)
    tasks = len(list((folder / "tasks").glob("*.json")))
    return BuildReport(
        spec["domain"],
        folder,
        len(manifest["files"]) + 1,
        tasks,
        len(gate["dropped"]),
        time.perf_counter() - started,
        _cpu() - cpu,
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def gate_apply(folder: Path, gate_file: Path) -> dict:
    """Drop the synthesised tasks the quality gate scored outside its band. A score counts only for the task it was
    measured on (the same bytes): a task that changed since, or is new, is kept and listed as not gated."""
    recorded = json.loads(gate_file.read_text()) if gate_file.is_file() else {"tasks": {}}
    scores, dropped, ungated = {}, [], []
    for path in sorted((folder / "tasks").glob("*.json")):
        score = recorded["tasks"].get(path.stem)
        if score is None or score["sha256"] != _sha256(path):
            ungated.append(path.stem)
            continue
        scores[path.stem] = score["passes"]
        if not recorded["low"] <= score["passes"] <= recorded["high"]:
            dropped.append(path.stem)
            path.unlink()
    tools = tool_solutions(folder)
    if tools:
        _tools_write(folder, {slug: calls for slug, calls in tools.items() if slug not in dropped})
    rules = {key: recorded[key] for key in ("agent", "k", "low", "high") if key in recorded}
    return {**rules, "scores": scores, "dropped": dropped, "ungated": ungated}


def manifest_build(folder: Path, *, anchor_sha256: str, gate: dict) -> dict:
    """The replica named by its content: the sha256 of every file, and of their list, tied to the anchor's."""
    files = {
        p.relative_to(folder).as_posix(): _sha256(p)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.name != MANIFEST
    }
    listing = "".join(f"{digest}  {name}\n" for name, digest in files.items())
    return {
        "domain": folder.name,
        "anchor_sha256": anchor_sha256,
        "replica_sha256": hashlib.sha256(listing.encode()).hexdigest(),
        "tasks": sorted(p.stem for p in (folder / "tasks").glob("*.json")),
        "gate": gate,
        "files": files,
    }


def manifest_write(folder: Path, *, anchor_sha256: str, gate: dict) -> dict:
    manifest = manifest_build(folder, anchor_sha256=anchor_sha256, gate=gate)
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest


def gate_record(*, folder: Path, gate_file: Path, agent: str, k: int, low: int, high: int, passes: dict) -> dict:
    """Write the gate's scores (slug -> passes of k) for the tasks of `folder`, each with its file's sha256, to the
    scores already recorded under the same rules (a gate may run over the pack in parts)."""
    unknown = sorted(set(passes) - {p.stem for p in (folder / "tasks").glob("*.json")})
    if unknown:
        raise BuildError(f"the gate scored tasks the replica does not have: {', '.join(unknown)}")
    rules = {"agent": agent, "k": k, "low": low, "high": high}
    before = json.loads(gate_file.read_text()) if gate_file.is_file() else {}
    scores = before.get("tasks", {}) if all(before.get(key) == value for key, value in rules.items()) else {}
    scores.update(
        {slug: {"sha256": _sha256(folder / "tasks" / f"{slug}.json"), "passes": passes[slug]} for slug in passes}
    )
    recorded = {**rules, "tasks": dict(sorted(scores.items()))}
    gate_file.write_text(json.dumps(recorded, indent=2) + "\n")
    return recorded
