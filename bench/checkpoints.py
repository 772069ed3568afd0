"""What dense checkpoints add to a step (issue 32: at most 10 % of its median time).

The replica's bench task plays its reference solution through the engine with the watch off;
after each step, the watch (episodes.engine.checkpoints) is run on what that step wrote, as the driver
runs it with the setting on, and timed on its own. A task without checkpoints is given one per
assertion that reads rows (the watch's worst case: each is evaluated whenever a step writes its
table). Both figures come from the same steps, so the machine's load weighs on both alike.
"""

import time

from episodes.creation import episode_create
from episodes.driver import EpisodeDriver
from episodes.engine.checkpoints import CheckpointWatch, assertion_tables
from episodes.models import Episode

from .measure import summary
from .scenario import resolve_task

CHECKPOINT_GOAL = 0.10  # how much the watch may add to a step's median time


def watched_spec(verifier: dict) -> tuple[dict, bool]:
    """(the spec the watch runs, whether its checkpoints were made up here)."""
    if verifier.get("checkpoints"):
        return verifier, False
    rows = [a["name"] for a in verifier["assertions"] if assertion_tables(a) is not None]
    if not rows:
        raise ValueError("the task has no assertion reading world rows: nothing for checkpoints to watch")
    checkpoints = [{"name": f"milestone {i}", "assertions": [name]} for i, name in enumerate(rows)]
    return {**verifier, "checkpoints": checkpoints}, True


def bench_checkpoints(*, task_id: str | None = None, replica: str | None = None, episodes: int = 3) -> dict:
    task = resolve_task(task_id, replica)
    steps_ms, watch_ms, reached = [], [], 0
    synthetic = False
    for _ in range(episodes):
        episode = episode_create(task=task, agent="script", status=Episode.Status.RUNNING)
        spec, synthetic = watched_spec(episode.instance.verifier)
        driver = EpisodeDriver(episode)
        try:
            driver.open()
            watch = CheckpointWatch(spec=spec, params=episode.params, initial=episode.initial_state.doc)
            for action in episode.instance.reference_solution:
                started = time.perf_counter()
                driver.step(action)
                steps_ms.append((time.perf_counter() - started) * 1000)
                writes = episode.steps.order_by("-index").values_list("writes", flat=True).first() or []
                started = time.perf_counter()
                reached += len(watch.after_step(world=driver.world, writes=writes)["new"])
                watch_ms.append((time.perf_counter() - started) * 1000)
        except BaseException as exc:
            driver.fail(exc)
            raise
        driver.finish()
    step, watched = summary(steps_ms), summary(watch_ms)
    with_watch = summary([a + b for a, b in zip(steps_ms, watch_ms, strict=True)])
    # the goal's figure: how much the watch moves a step's median; and its share of all step time
    added = with_watch["median_ms"] / step["median_ms"] - 1 if step["median_ms"] else None
    total_share = sum(watch_ms) / sum(steps_ms) if steps_ms else None
    return {
        "task": task.task_id,
        "episodes": episodes,
        "synthetic_checkpoints": synthetic,
        "milestones_reached": reached,
        "step": step,
        "watch": watched,
        "step_with_watch": with_watch,
        "added_to_step_median": added,
        "watch_share_of_step_time": total_share,
        "goal": CHECKPOINT_GOAL,
        "meets_goal": added is not None and added <= CHECKPOINT_GOAL,
    }
