"""Local worker processes for run_suite: each sets Django up on the parent's database, then claims and runs episodes.

Nothing here imports models at module level: a spawned child unpickles these
functions before Django is set up.
"""

import multiprocessing
from concurrent.futures import ProcessPoolExecutor


def child_setup(db_name: str):
    """Runs first in each worker process: the parent's database (a test database in tests), then Django."""
    import django
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = db_name
    django.setup()

    from .heartbeat import heartbeat_start

    heartbeat_start()  # the scheduler tells a lost worker from an agent that thinks long by this


def run_one(episode_id: int) -> dict:
    """Claim and run one episode (in a worker process or in-process); returns a short summary."""
    from episodes.driver import episode_run
    from episodes.models import Episode

    from .claims import episode_claim
    from .heartbeat import worker_name

    if episode_claim(episode_id=episode_id, worker=worker_name()):
        ep = episode_run(episode_id=episode_id)
    else:  # someone else has it: report, never run twice
        ep = Episode.objects.get(pk=episode_id)
    return episode_summary(ep)


def episode_summary(ep) -> dict:
    seconds = (ep.finished_at - ep.started_at).total_seconds() if ep.started_at and ep.finished_at else 0.0
    return {
        "id": ep.pk,
        "task": ep.task.task_id,
        "attempt": ep.attempt,
        "status": ep.status,
        "steps": ep.steps.count(),
        "seconds": round(seconds, 2),
        "reward": (ep.rewards or {}).get("episode_reward"),
        "error": ep.error.splitlines()[0] if ep.error else "",
    }


def process_pool(workers: int) -> ProcessPoolExecutor:
    from django.db import connection

    db_name = str(connection.settings_dict["NAME"])
    connection.close()  # never hand an open connection across processes
    # spawn, not fork: the parent may hold Playwright threads and database connections
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=child_setup, initargs=(db_name,))
