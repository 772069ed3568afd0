"""Self-check runs from the editor (its pages call them test runs): the task's self-check plan
(verifiers.selfcheck.check_plan: the reference must pass, doing nothing and each negative example must fail)
and the random agent as a baseline, queued as ordinary episodes for the workers. Every run is an agent spec
the workers build from the episode's own task ("oracle", "nothing", "negative:N"): no action list travels on
disk.
"""

from django.db import transaction

from catalogue.models import Task
from episodes.creation import EpisodeError, episode_create
from episodes.models import Episode
from episodes.runs import enqueue_episodes
from verifiers.selfcheck import check_plan

from .models import SelfCheckEpisode, SelfCheckRun

# Ahead of suite runs in the queue: an author is waiting for these.
PRIORITY = 10
RANDOM_SEED = 1
LABELS = {"oracle": "reference", "nothing": "doing nothing"}
MAX_SEEDS = 5  # each seed is two episodes and one per negative example, on workers other people wait for too


class SelfCheckError(ValueError):
    pass


def parse_seeds(text: str, *, task: Task) -> list[int]:
    """The world seeds a test run asks for, typed as "7, 8, 9": the task's own seed when empty, each once."""
    seeds = []
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        if not part.isdigit() or int(part) > 2**31 - 1:
            raise SelfCheckError(f"seeds must be whole numbers from 0 to {2**31 - 1} separated by commas, not {part!r}")
        if int(part) not in seeds:
            seeds.append(int(part))
    if len(seeds) > MAX_SEEDS:
        raise SelfCheckError(f"at most {MAX_SEEDS} seeds in a test run, not {len(seeds)}")
    return seeds or [task.seed]


def selfcheck_start(*, task: Task, author=None, seeds: list[int] | None = None) -> SelfCheckRun:
    """Queue the checks of a task version's verifier on each of `seeds` (default: the task's own), each world
    with its own answer key; the random baseline plays the task's own seed only. Refuses a task without a
    reference solution, and a seed whose world holds nothing the task can be about (naming it)."""
    if not task.reference_solution:
        raise SelfCheckError("the task has no reference solution: add one before a test run")
    seeds = seeds or [task.seed]
    checks = [(LABELS.get(c.agent, f"negative: {c.label}"), c.expect, c.agent) for c in check_plan(task)]
    plan = [
        (label if len(seeds) == 1 else f"{label} · seed {seed}", expect, agent, seed)
        for seed in seeds
        for label, expect, agent in checks
    ]
    plan.append(("random agent", SelfCheckEpisode.Expect.ANY, f"random:{RANDOM_SEED}", task.seed))
    with transaction.atomic():
        run = SelfCheckRun.objects.create(task=task, author=author)
        ids = []
        for label, expect, agent, seed in plan:
            try:  # the task's own seed keeps its stored answer key; another computes the key of its world
                episode = episode_create(
                    task=task, agent=agent, owner=author, priority=PRIORITY, seed=None if seed == task.seed else seed
                )
            except EpisodeError as exc:
                raise SelfCheckError(str(exc)) from None
            SelfCheckEpisode.objects.create(run=run, label=label, expect=expect, episode=episode)
            ids.append(episode.pk)
        enqueue_episodes(ids)
    return run


def selfcheck_rows(run: SelfCheckRun) -> list[dict]:
    """Each check with its episode and whether it came out as it must."""
    rows = []
    for item in run.items.select_related("episode"):
        episode = item.episode
        ok = None
        if episode.is_final:
            passed = episode.status == Episode.Status.SUCCEEDED
            errored = episode.status in (Episode.Status.ERRORED,)
            ok = None if errored else {"pass": passed, "fail": not passed, "any": True}[item.expect]
        rows.append({"item": item, "episode": episode, "ok": ok})
    return rows


def selfcheck_done(rows) -> bool:
    return all(r["episode"].is_final for r in rows)


def reference_checks(task: Task | None) -> list[dict]:
    """The seeds the latest finished check of this task version's reference ran on, each with whether it passed:
    what the editor shows beside a reference (recorded by demonstration or typed), so an author sees it plays on
    other worlds than the one it was made on."""
    if task is None:
        return []
    runs = SelfCheckRun.objects.filter(task=task).order_by("-created_at", "-pk")
    for run in runs[:10]:
        rows = [
            r
            for r in selfcheck_rows(run)
            if r["item"].label == "reference" or r["item"].label.startswith("reference ·")
        ]
        if rows and all(r["episode"].is_final for r in rows):
            return [{"seed": r["episode"].world_seed, "passed": bool(r["ok"]), "run": run} for r in rows]
    return []
