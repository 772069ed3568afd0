"""Throughput: oracle episodes per minute with 1, 2, 4 concurrent worker processes.

Each worker is a separate process with its own Chromium and replica server
(episodes.engine.server: gunicorn in child processes), as a Celery worker is. All of a round's
workers get ready first (untimed: Django, the browser launch, the server, and one episode of the
round's task and mode, bench.worker), then start together; the round's wall time runs from that start
to the last worker's end.

With `obs` (an observation mode, episodes.engine.observation) each worker count is also run in
that mode without screenshots, as a text-only trainer asks for it, next to full mode (today's
observation: the whole tree and a screenshot): four rounds in the order full, obs, obs, full,
so a load that rises or falls during them weighs on both modes alike; each mode's rate is its
two rounds' episodes over their wall time, and the report gives the ratio. Each worker also reports
the CPU seconds of its whole tree (itself, its Chromium, its Playwright driver, its replica server), so
each mode has CPU seconds per episode and the report a CPU ratio: on a machine other jobs load, wall
time swings with them, CPU time much less.
"""

import json
import os
import subprocess
import time

from episodes.engine.observation import OBSERVATION_SETTING
from replicas.worlds.services import world_delete

from .children import ROOT, child_env, python
from .measure import summary
from .scenario import resolve_task, scenario_for, scenario_world

READY_TIMEOUT_S = 120
OBS_GOAL = 1.3  # issue 26: text mode runs at least 1.3x as many episodes a minute as full mode, with 2 workers


def _start_workers(count: int, job: dict) -> list[subprocess.Popen]:
    procs = []
    for _ in range(count):
        proc = subprocess.Popen(
            [python(), "-m", "bench.worker"],
            cwd=ROOT,
            env=child_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        proc.stdin.write(json.dumps(job) + "\n")
        proc.stdin.flush()
        procs.append(proc)
    return procs


def _stop(procs):
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def run_round(*, workers: int, task_id: str, episodes: int, seconds: float, agent_settings: dict | None = None) -> dict:
    job = {"task_id": task_id, "episodes": episodes, "seconds": seconds, "agent_settings": agent_settings}
    procs = _start_workers(workers, job)
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        for proc in procs:
            line = proc.stdout.readline()
            if not line or not json.loads(line).get("ready") or time.monotonic() > deadline:
                raise RuntimeError(f"a worker did not get ready (exit code {proc.poll()})")
        start = time.perf_counter()
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        results = []
        for proc in procs:
            line = proc.stdout.readline()
            proc.wait(timeout=seconds + 120)
            if not line:
                raise RuntimeError(f"worker {proc.pid} ended without a result (exit code {proc.returncode})")
            results.append(json.loads(line))
        wall = time.perf_counter() - start
    finally:
        _stop(procs)
    done = [e for r in results for e in r["episodes"]]
    cpu = sum(r.get("cpu_s", 0.0) for r in results)
    cpu_by_kind: dict[str, float] = {}
    for result in results:
        for kind, seconds in result.get("cpu_s_by_kind", {}).items():
            cpu_by_kind[kind] = cpu_by_kind.get(kind, 0.0) + seconds
    return {
        "workers": workers,
        "episodes": len(done),
        "passed": sum(e["passed"] for e in done),
        "statuses": sorted({e["status"] for e in done}),
        "wall_s": round(wall, 2),
        "episodes_per_min": round(len(done) / wall * 60, 2) if wall else None,
        # CPU seconds of the workers' whole trees: what a loaded machine does not inflate, as it does wall time
        "cpu_s": round(cpu, 2),
        "cpu_s_per_episode": round(cpu / len(done), 2) if done else None,
        "cpu_s_by_kind": {kind: round(seconds, 2) for kind, seconds in sorted(cpu_by_kind.items())},
        "episode": summary([e["ms"] for e in done]),
        "peak_tree_rss_mb_per_worker": [r["peak_tree_rss_mb"] for r in results],
        "peak_python_rss_mb_per_worker": [r["peak_python_rss_mb"] for r in results],
        "peak_tree_rss_by_kind_mb_per_worker": [r.get("peak_tree_rss_by_kind_mb", {}) for r in results],
        "end_tree_pss_mb_per_worker": [r["end_tree_pss_mb"] for r in results],
        "errors": [e["error"] for e in done if e["error"]][:5],
    }


def bench_throughput(
    *,
    task_id: str | None,
    replica: str | None = None,
    workers=(1, 2, 4),
    episodes: int = 8,
    seconds: float = 240.0,
    obs: str | None = None,
) -> dict:
    task = resolve_task(task_id, replica)
    # build the template once here, so no round pays for it or races to build it
    world_delete(world=scenario_world(scenario_for(task.task_id)))
    by_workers, by_obs = {}, {}
    obs_settings = {OBSERVATION_SETTING: {"mode": obs, "screenshots": False}} if obs else None
    for count in workers:
        by_workers[str(count)] = run_round(workers=count, task_id=task.task_id, episodes=episodes, seconds=seconds)
        if obs:
            rounds = {"full": [by_workers[str(count)]], obs: []}
            for mode in (obs, obs, "full"):
                settings = obs_settings if mode == obs else None
                rounds[mode].append(
                    run_round(
                        workers=count, task_id=task.task_id, episodes=episodes, seconds=seconds, agent_settings=settings
                    )
                )
            pooled = {mode: _pooled(done) for mode, done in rounds.items()}
            full_rate, obs_rate = pooled["full"]["episodes_per_min"], pooled[obs]["episodes_per_min"]
            full_cpu, obs_cpu = pooled["full"].get("cpu_s_per_episode"), pooled[obs].get("cpu_s_per_episode")
            by_obs[str(count)] = {
                **pooled,
                "ratio": round(obs_rate / full_rate, 2) if full_rate else None,
                # full mode's CPU per episode over the mode's: the episodes a minute it allows on busy cores
                "cpu_ratio": round(full_cpu / obs_cpu, 2) if full_cpu and obs_cpu else None,
            }
    cores = os.cpu_count() or 1
    rates = [(int(w), r["episodes_per_min"] or 0) for w, r in by_workers.items()]
    up_to_cores = sorted((w, rate) for w, rate in rates if w <= cores)
    grows = (
        all(b[1] > a[1] for a, b in zip(up_to_cores, up_to_cores[1:], strict=False)) if len(up_to_cores) > 1 else None
    )
    result = {
        "task": task.task_id,
        "episodes_per_worker": episodes,
        "cores": cores,
        "by_workers": by_workers,
        "grows_up_to_cores": grows,
    }
    if obs:
        two = (by_obs.get("2") or {}).get("ratio")
        result["obs"] = {
            "mode": obs,
            "settings": obs_settings,
            "order": "full, obs, obs, full",
            "by_workers": by_obs,
            "goal": OBS_GOAL,
            "goal_met": two >= OBS_GOAL if two is not None else None,
        }
    return result


def _pooled(rounds: list[dict]) -> dict:
    """One mode's rounds as one: their episodes over their wall time, and each round's own rate."""
    done, wall = sum(r["episodes"] for r in rounds), sum(r["wall_s"] for r in rounds)
    pooled = {
        "episodes": done,
        "passed": sum(r["passed"] for r in rounds),
        "wall_s": round(wall, 2),
        "episodes_per_min": round(done / wall * 60, 2) if wall else None,
        "rounds_per_min": [r["episodes_per_min"] for r in rounds],
    }
    if done and all("cpu_s" in r for r in rounds):
        pooled["cpu_s_per_episode"] = round(sum(r["cpu_s"] for r in rounds) / done, 2)
        # where it goes: the worker (engine, Django, verifier), Chromium, the Playwright driver, the replica server
        kinds = sorted({kind for r in rounds for kind in r.get("cpu_s_by_kind", {})})
        pooled["cpu_s_per_episode_by_kind"] = {
            kind: round(sum(r.get("cpu_s_by_kind", {}).get(kind, 0.0) for r in rounds) / done, 3) for kind in kinds
        }
    return pooled
