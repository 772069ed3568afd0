"""A benchmark worker process: runs oracle episodes of one task back to back, as a Celery
worker would, and reports their times and its memory.

`python -m bench.worker` reads `{"task_id": ..., "episodes": N, "seconds": S, "agent_settings": {...}}` on its
first stdin line, gets ready (Django, its Chromium, its replica server, one untimed episode), prints
`{"ready": true}`, waits for a `go` line, runs, and prints one JSON result line.
"""

import json
import os
import sys
import threading
import time

SAMPLE_EVERY_S = 0.1


class PeakSampler(threading.Thread):
    """Samples the resident memory of this process and its children (its Chromium, its replica server)."""

    def __init__(self):
        super().__init__(name="rss-sampler", daemon=True)
        self.peak_tree_mb = 0.0
        self.peak_by_kind: dict = {}  # the tree's RSS by kind of process at the peak
        self._halt = threading.Event()

    def run(self):
        from bench.measure import tree_rss_by_kind_mb

        while not self._halt.is_set():
            by_kind = tree_rss_by_kind_mb()
            total = round(sum(by_kind.values()), 1)
            if total > self.peak_tree_mb:
                self.peak_tree_mb, self.peak_by_kind = total, by_kind
            self._halt.wait(SAMPLE_EVERY_S)

    def stop(self):
        self._halt.set()
        self.join(timeout=2)


def run(job: dict, go) -> dict:
    from bench.measure import peak_rss_mb, tree_cpu_by_kind_s, tree_pss_mb
    from episodes.creation import episode_create
    from episodes.driver import episode_run
    from episodes.engine.browser import shared_browser, shutdown_browser
    from episodes.engine.server import replica_server
    from episodes.models import Episode

    shared_browser()
    replica_server()
    # One untimed episode of the job's task and mode first: a worker of a training run plays thousands, and the
    # first of a process pays once what the rest do not (the server's templates compiled, Chromium's first
    # renderer, the text mode's first context): with 6 timed episodes a worker, that start cost weighed on
    # every round alike and pulled the modes' ratio towards 1.
    episode_run(
        episode_id=episode_create(
            task=job["task_id"],
            agent="oracle",
            status=Episode.Status.RUNNING,
            agent_settings=job.get("agent_settings"),
        ).pk
    )
    go()
    cpu_at_start = tree_cpu_by_kind_s()
    sampler = PeakSampler()
    sampler.start()
    episodes = []
    start = time.perf_counter()
    deadline = time.monotonic() + float(job["seconds"])
    try:
        for _ in range(int(job["episodes"])):
            if time.monotonic() > deadline:
                break
            t0 = time.perf_counter()
            episode = episode_create(
                task=job["task_id"],
                agent="oracle",
                status=Episode.Status.RUNNING,
                agent_settings=job.get("agent_settings"),  # its observation mode (episodes.engine.observation)
            )
            done = episode_run(episode_id=episode.pk)
            episodes.append(
                {
                    "ms": round((time.perf_counter() - t0) * 1000, 1),
                    "status": done.status,
                    "steps": done.steps.count(),
                    "passed": bool((done.verdict or {}).get("passed")),
                    "error": done.error[:200],
                }
            )
        wall = time.perf_counter() - start
        # its browser, replica server and driver included
        cpu = {k: s - cpu_at_start.get(k, 0.0) for k, s in tree_cpu_by_kind_s().items()}
        pss = tree_pss_mb()
    finally:
        sampler.stop()
        shutdown_browser()
    return {
        "pid": os.getpid(),
        "episodes": episodes,
        "wall_s": round(wall, 2),
        "cpu_s": round(sum(cpu.values()), 2),
        "cpu_s_by_kind": {kind: round(seconds, 2) for kind, seconds in cpu.items()},
        "peak_python_rss_mb": peak_rss_mb(),
        "peak_tree_rss_mb": sampler.peak_tree_mb,
        "peak_tree_rss_by_kind_mb": sampler.peak_by_kind,
        "end_tree_pss_mb": pss,
    }


def main():
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "replicagym.settings")
    django.setup()
    job = json.loads(sys.stdin.readline())

    def go():
        print(json.dumps({"ready": True}), flush=True)
        if sys.stdin.readline().strip() != "go":
            sys.exit(0)  # the parent gave up before the start

    result = run(job, go)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
