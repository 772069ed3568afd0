"""Memory: peak RSS of a worker process (with its Chromium and its replica server) running episodes, and what
each further concurrent episode (browser context + page) adds.

The per-episode cost is measured as proportional set size (PSS) of this process and
its descendants, before and while N sessions are open on the replica's signed-in step page:
shared Chromium pages are split between the processes sharing them, not counted
once per renderer.
"""

from episodes.engine.browser import shared_browser
from replicas.worlds.services import world_create, world_delete

from .measure import peak_rss_mb, tree_pss_mb, tree_rss_mb
from .scenario import resolve_task
from .steps import open_session, step_page
from .throughput import run_round


def bench_memory(
    *, task_id: str | None, replica: str | None = None, episodes: int = 4, worker_episodes: int = 2
) -> dict:
    task = resolve_task(task_id, replica)
    worker = run_round(workers=1, task_id=task.task_id, episodes=worker_episodes, seconds=300)
    shared_browser()
    worlds = [world_create(replica=task.replica, seed=7, variant="default") for _ in range(episodes)]
    sessions = []
    try:
        start_page = step_page(worlds[0])
        # one session opened and closed first, so caches the browser keeps anyway are in the baseline
        first, _ = open_session(world=worlds[0], start_page=start_page)
        first.close()
        base_pss, base_rss = tree_pss_mb(), tree_rss_mb()
        for world in worlds:
            session, _ = open_session(world=world, start_page=step_page(world))
            session.observe()
            sessions.append(session)
        open_pss, open_rss = tree_pss_mb(), tree_rss_mb()
    finally:
        for session in sessions:
            session.close()
        for world in worlds:
            world_delete(world=world)
    return {
        "task": task.task_id,
        "worker_episodes": worker["episodes"],
        "worker_peak_rss_mb": worker["peak_tree_rss_mb_per_worker"][0],
        "worker_peak_python_rss_mb": worker["peak_python_rss_mb_per_worker"][0],
        # what the peak is made of: the worker, its replica server, its Chromium, the driver
        "worker_peak_rss_by_kind_mb": worker["peak_tree_rss_by_kind_mb_per_worker"][0],
        # RSS adds up pages Chromium's processes share; PSS splits them: the honest total
        "worker_end_pss_mb": worker["end_tree_pss_mb_per_worker"][0],
        "concurrent_episodes": episodes,
        "baseline_pss_mb": base_pss,
        "open_pss_mb": open_pss,
        "per_episode_mb": round((open_pss - base_pss) / episodes, 1),
        "per_episode_rss_mb": round((open_rss - base_rss) / episodes, 1),
        "this_process_peak_rss_mb": peak_rss_mb(),
    }
