"""Worker processes this machine starts on a shared database and queue, and the check of what they recorded.

`manage.py killtest` (worker processes killed and restarted on one host) and
`manage.py multihost` (workers in network namespaces of their own) both start real
workers from here and both end on the same question: did the run record each of
its episodes exactly once?
"""

import os
import signal
import sys
from pathlib import Path

from replicagym.env import child_env

from episodes.models import Episode, Run, Step
from episodes.queue.heartbeat import chromium_processes

ROOT = Path(__file__).resolve().parent.parent


def worker_env(**overrides: str) -> dict:
    """The environment of a worker started from this tree (env.child_env): this one's database and data dir.

    Workers run the production settings, as they do when deployed, even under the test settings. Eager
    Celery is dropped (a worker that runs tasks inline would never take them from the queue);
    `overrides` (DATABASE_URL, CELERY_BROKER_URL, REPLICAGYM_*...) win.
    """
    env = child_env(DJANGO_SETTINGS_MODULE="replicagym.settings")
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    env.update(overrides)
    return env


def venv_bin(name: str) -> str:
    """A console script of this interpreter's virtualenv (celery, gunicorn)."""
    return str(Path(sys.executable).parent / name)


def celery_worker_argv(*, node: str, queue: str, concurrency: int = 1) -> list[str]:
    """A Celery worker on one queue; no gossip, mingle or broker heartbeats: workers here never talk to each other."""
    return [
        venv_bin("celery"),
        "-A",
        "replicagym",
        "worker",
        "-Q",
        queue,
        "-c",
        str(concurrency),
        "-n",
        node,
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-l",
        "WARNING",
    ]


def chromium_kill(pid: int) -> int:
    """SIGKILL every Chromium process under process `pid`; returns how many died.

    What a browser crash looks like to the worker: Playwright's driver stays, the browser is gone.
    """
    killed = 0
    for proc in chromium_processes(pid):
        try:
            os.kill(proc.pid, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:
            continue
    return killed


def run_recorded_once(run: Run, task) -> dict:
    """Whether each episode of an oracle run of `task` was recorded once: ended, passed, one verdict, one set of steps.

    Returns {"episodes", "statuses", "redeliveries", "problems"}; no problems means every
    episode passed with a verdict, a final state and exactly its reference's steps, numbered 0, 1, 2, ...
    """
    run.refresh_from_db()
    eps = list(Episode.objects.filter(run=run).order_by("attempt"))
    problems = []
    if run.status != Run.Status.DONE:
        problems.append(f"run {run.pk} is {run.status}, not done")
    reference = len(task.with_params(eps[0].params).reference_solution) if eps else 0
    statuses = {}
    for ep in eps:
        statuses[ep.status] = statuses.get(ep.status, 0) + 1
        indexes = list(Step.objects.filter(episode=ep).order_by("index").values_list("index", flat=True))
        if not ep.is_final:
            problems.append(f"episode {ep.pk} is still {ep.status}")
            continue
        if indexes != list(range(len(indexes))):
            problems.append(f"episode {ep.pk} has steps {indexes}, not one set numbered from 0")
        # the oracle passes its own task: anything else is a lost or broken episode, reported with its reason
        if ep.status != Episode.Status.SUCCEEDED:
            problems.append(f"episode {ep.pk} {ep.status}: {ep.error[:200]}")
        elif ep.verdict is None or ep.final_state_id is None:
            problems.append(f"episode {ep.pk} passed with no verdict or final state")
        elif len(indexes) != reference:
            problems.append(f"episode {ep.pk} passed with {len(indexes)} steps, the reference has {reference}")
    return {
        "episodes": len(eps),
        "statuses": statuses,
        "problems": problems,
        "redeliveries": sum(max(0, ep.tries - 1) for ep in eps),
    }
