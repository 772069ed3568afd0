"""Side by side with BrowserGym: the same task and action strings through BrowserGym's
BrowserEnv (default settings) and through our engine, against worlds served here.

BrowserGym pins playwright==1.44.0, so it lives in its own virtual environment,
`.venv-browsergym`, made on demand from bench/requirements-browsergym.txt; the project's
.venv is never touched. Its chat window launches Chromium from Playwright's default
path, which the setup points at the system Chromium with a symlink.
"""

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings

from episodes.driver import session_open
from episodes.engine.server import replica_server
from replicas.worlds.routing import world_origin
from replicas.worlds.services import world_delete

from .children import ROOT
from .measure import ratio, summary
from .scenario import scenario_for, scenario_world

VENV = ROOT / ".venv-browsergym"
REQUIREMENTS = ROOT / "bench" / "requirements-browsergym.txt"
DRIVER = ROOT / "bench" / "bg_driver.py"
# Where Playwright 1.44 looks for its own Chromium build (revision 1117).
PLAYWRIGHT_CHROME = Path.home() / ".cache" / "ms-playwright" / "chromium-1117" / "chrome-linux" / "chrome"
INSTALL_TIMEOUT_S = 900
DRIVER_TIMEOUT_S = 600


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv(progress=lambda line: None) -> Path:
    """Create or update .venv-browsergym when its requirements changed; returns its python."""
    stamp = VENV / ".requirements.sha256"
    want = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if venv_python().exists() and stamp.exists() and stamp.read_text().strip() == want:
        return venv_python()
    if not venv_python().exists():
        progress(f"bench: creating {VENV.name}")
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(VENV)], check=True, timeout=INSTALL_TIMEOUT_S)
    progress(f"bench: installing {REQUIREMENTS.name} into {VENV.name}")
    done = subprocess.run(
        [str(venv_python()), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(REQUIREMENTS)],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise RuntimeError(f"installing {REQUIREMENTS.name} failed: {done.stderr.strip()[-1500:]}")
    stamp.write_text(want)
    return venv_python()


def ensure_chromium_link() -> None:
    """Point Playwright 1.44's default Chromium path at the system Chromium (never overwrite a real file)."""
    target = Path(settings.CHROMIUM_PATH)
    if PLAYWRIGHT_CHROME.is_symlink():
        if Path(os.readlink(PLAYWRIGHT_CHROME)) == target:
            return
        PLAYWRIGHT_CHROME.unlink()
    elif PLAYWRIGHT_CHROME.exists():
        return  # a real Playwright build is installed there: use it as is
    PLAYWRIGHT_CHROME.parent.mkdir(parents=True, exist_ok=True)
    PLAYWRIGHT_CHROME.symlink_to(target)


def run_browsergym(*, python: Path, instruction: str, actions, episodes: list[dict]) -> dict:
    doc = {
        "chromium": settings.CHROMIUM_PATH,
        "instruction": instruction,
        "actions": list(actions),
        "episodes": episodes,
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTHONPATH"))}
    done = subprocess.run(
        [str(python), str(DRIVER)],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        timeout=DRIVER_TIMEOUT_S,
        env=env,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the BrowserGym driver failed ({done.returncode}): {done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout)


def run_ours(*, scenario, world, port: int) -> dict:
    """The same episode through our engine: open (context + first observation), steps, close."""
    t0 = time.perf_counter()
    session = session_open(world=world, start_page=scenario.start_page, instruction=scenario.instruction)
    session.observe()
    open_ms = (time.perf_counter() - t0) * 1000
    steps, errors = [], []
    try:
        for action in scenario.actions:
            start = time.perf_counter()
            result = session.step(action)
            steps.append((time.perf_counter() - start) * 1000)
            if getattr(result, "error", None):
                errors.append({"action": action, "error": str(result.error)[:300]})
    finally:
        close_start = time.perf_counter()
        session.close()
        close_ms = (time.perf_counter() - close_start) * 1000
    return {
        "reset_ms": open_ms,
        "steps_ms": steps,
        "close_ms": close_ms,
        "episode_ms": open_ms + sum(steps) + close_ms,
        "errors": errors,
    }


def _side(episodes: list[dict]) -> dict:
    return {
        "reset": summary([e["reset_ms"] for e in episodes]),
        "step": summary([ms for e in episodes for ms in e["steps_ms"]]),
        "episode": summary([e["episode_ms"] for e in episodes]),
        "errors": [err for e in episodes for err in e["errors"]],
    }


def bench_browsergym(
    *, task_id: str | None, replica: str | None = None, repeat: int = 3, progress=lambda line: None
) -> dict:
    scenario = scenario_for(task_id, replica)
    python = ensure_venv(progress)
    ensure_chromium_link()
    _host, port = replica_server()
    worlds = [scenario_world(scenario) for _ in range(repeat * 2 + 1)]
    try:
        bg_episodes = []
        for world in worlds[:repeat]:
            origin = world_origin(world, port)
            # no cookies: the task signs in itself, on both sides
            bg_episodes.append({"origin": origin, "start_url": origin + scenario.start_page, "cookies": []})
        bg = run_browsergym(
            python=python, instruction=scenario.instruction, actions=scenario.actions, episodes=bg_episodes
        )
        # one untimed episode starts our long-lived browser, as a worker's would already be running
        run_ours(scenario=scenario, world=worlds[-1], port=port)
        ours_runs = [run_ours(scenario=scenario, world=w, port=port) for w in worlds[repeat:-1]]
    finally:
        for world in worlds:
            world_delete(world=world)
    ours, theirs = _side(ours_runs), _side(bg["episodes"])
    per_action = [
        {
            "action": action,
            "ours_ms": summary([e["steps_ms"][i] for e in ours_runs if i < len(e["steps_ms"])])["median_ms"],
            "browsergym_ms": summary([e["steps_ms"][i] for e in bg["episodes"] if i < len(e["steps_ms"])])["median_ms"],
        }
        for i, action in enumerate(scenario.actions)
    ]
    return {
        "task": scenario.task_id,
        "actions": list(scenario.actions),
        "repeat": repeat,
        "browsergym_versions": {"browsergym": bg.get("browsergym_version"), "playwright": bg.get("playwright_version")},
        "browsergym_settings": "defaults (pre_observation_delay 0.5 s, its own browser and chat window per reset)",
        "ours": ours,
        "browsergym": theirs,
        "per_action": per_action,
        "ratio_step": ratio(ours["step"]["median_ms"], theirs["step"]["median_ms"]),
        "ratio_episode": ratio(ours["episode"]["median_ms"], theirs["episode"]["median_ms"]),
    }
