"""Per-episode variation: the world seed an episode plays and the randomness its task's pickers choose with.

With one world and one pick per task, every episode of a task had the same answer key, and an agent
found a count or a date blind, from pass/fail alone. An episode's variation is one integer; from it come
- its world seed, drawn among the seeds of the variation pool (the task's own and 1..EPISODE_WORLD_SEEDS)
  whose template world is already built, so that no start pays for a template's build: missing ones are
  built in the background (the warm pool's refiller), by the scheduler and by `manage.py task_sync`;
- the randomness each seeded pick and picker of its task chooses a candidate with
  (catalogue.task_templates), so the answer key differs even on one world.
- the wording of its instruction, when its replica ships other wordings of the task's (PARAPHRASES, which
  the environment factory writes from a model's paraphrases): one of them or the task's own, drawn from the
  variation alone, with the same placeholders filled from the same params (task_worded).
The same variation on the same built templates gives the same world seed, params and wording: a run
derives each episode's variation from its own seed, the task and the attempt number; the gym from
reset()'s seed. A caller that fixes the world seed and no variation gets the task's fixed picks on that
world, in its own words, which is what verify_tasks and the self-checks play (on the task's own seed).
"""

import copy
import hashlib
import json
import logging
import random
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction

from catalogue.models import Task
from catalogue.packs import task_params
from replicas.worlds.models import World
from replicas.worlds.pool import pool_refill_later
from replicas.worlds.registry import get_replica
from replicas.worlds.services import template_get_or_build

log = logging.getLogger(__name__)

# Variations are whole numbers in the range a client may send as a seed (gateways.sessions.MAX_SEED).
VARIATION_MAX = 2**31 - 1

# other wordings of a replica's task instructions, in the replica's folder: task slug -> wordings
PARAPHRASES = "paraphrases.json"
# what a wording must keep word for word and may not add: each {placeholder}, "quoted text", record code (PO-1001),
# email address and number (a quantity, a date); the facts a picker, a verifier or the agent's answer depend on
FACTS = re.compile(
    r"(?<!\{)\{[A-Za-z_][A-Za-z0-9_]*\}(?!\})|\"[^\"]+\"|\b[A-Z]{1,4}-\d+\b|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\d+(?:[.,:/-]\d+)*"
)


class WordingError(ValueError):
    """A replica's wordings that an episode may not be given: the file, the task and what is wrong."""


@dataclass(frozen=True)
class Variation:
    world_seed: int
    variation: int | None  # None: the task's fixed picks
    params: dict


def variation_draw() -> int:
    """A fresh variation for an episode nobody asked to reproduce."""
    return secrets.randbelow(VARIATION_MAX + 1)


def variation_derive(*parts) -> int:
    """A variation fixed by `parts` (a run's seed, a task id, an attempt number): the same parts, the same variation."""
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") % (VARIATION_MAX + 1)


def variation_check(value, name: str = "variation") -> int:
    """A variation or a seed given by a caller, or ValueError saying what is accepted."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= VARIATION_MAX:
        raise ValueError(f"{name} must be a whole number from 0 to {VARIATION_MAX}, not {value!r}")
    return value


def pool_seeds(task: Task) -> list[int]:
    """The world seeds episodes of `task` may play: its own and 1..EPISODE_WORLD_SEEDS."""
    return sorted({task.seed, *range(1, settings.EPISODE_WORLD_SEEDS + 1)})


def ready_seeds(task: Task) -> list[int]:
    """The pool's seeds whose template of the task's replica, variant and generator is built (the task's own always
    counts: it is built when the task is loaded, and a start on it is what episodes did before variations)."""
    seeds = pool_seeds(task)
    built = set(
        World.objects.filter(
            is_template=True,
            workspace=None,  # a workspace's member template is not the replica's
            replica=task.replica,
            variant=task.variant,
            generator_version=get_replica(task.replica).generator_version,
            seed__in=seeds,
        ).values_list("seed", flat=True)
    )
    missing = [s for s in seeds if s not in built and s != task.seed]
    for seed in missing:  # built after this start commits, off its path (a no-op where refills are off)
        transaction.on_commit(lambda seed=seed: pool_refill_later(task.replica, seed, task.variant))
    return sorted(built | {task.seed})


def variation_resolve(*, task: Task, seed: int | None = None, variation: int | None = None) -> Variation:
    """The world seed and params of an episode of `task`.

    `seed` fixes the world seed, `variation` the pickers' randomness (and, without `seed`, the world seed
    drawn from the ready seeds). Neither: the task's own seed and params. A drawn seed whose world has
    no candidate for the task falls back to the task's own seed, with the same variation.
    """
    if variation is None:
        world_seed = task.seed if seed is None else seed
        params = task.params if world_seed == task.seed else task_params({**task.spec, "seed": world_seed})
        return Variation(world_seed, None, params)
    if seed is not None:
        return Variation(seed, variation, task_params({**task.spec, "seed": seed}, variation=variation))
    world_seed = random.Random(f"world:{variation}").choice(ready_seeds(task))
    if world_seed != task.seed:
        try:
            return Variation(world_seed, variation, task_params({**task.spec, "seed": world_seed}, variation=variation))
        except Exception as exc:  # noqa: BLE001 - no candidate on this world (a template or a params function)
            log.info("task %s has no candidate on seed %s (%s): its own seed instead", task.task_id, world_seed, exc)
    return Variation(task.seed, variation, task_params(task.spec, variation=variation))


def facts(text: str) -> set[str]:
    return set(FACTS.findall(text))


def faithful(instruction: str, wording: str) -> bool:
    """Whether `wording` says `instruction` in other words with the same facts (FACTS): every one kept and none
    added, since a placeholder or a number the instruction lacks could hand the agent part of its answer key."""
    wording = wording.strip()
    return bool(wording) and wording != instruction and facts(wording) == facts(instruction)


def wordings_path(replica: str) -> Path:
    return Path(get_replica(replica).path) / PARAPHRASES


def instruction_wordings(task: Task) -> list[str]:
    """The instruction templates an episode of `task` may be given: the task's own first, then the other wordings
    its replica ships (PARAPHRASES), each checked again here as the file may have been edited since it was built;
    WordingError names the file, the task and the facts a wording loses or adds."""
    path, own = wordings_path(task.replica), task.spec["instruction"]
    if not path.is_file():
        return [own]
    try:
        doc = json.loads(path.read_text())
    except (UnicodeDecodeError, ValueError) as exc:
        raise WordingError(f"{path} is not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise WordingError(f"{path} must map task slugs to lists of wordings")
    others = doc.get(task.slug, [])
    if not isinstance(others, list) or not all(isinstance(wording, str) for wording in others):
        raise WordingError(f"{path}: {task.slug} must be a list of wordings (strings)")
    for i, wording in enumerate(others):
        if not faithful(own, wording):
            lost, added = sorted(facts(own) - facts(wording)), sorted(facts(wording) - facts(own))
            why = "; ".join(
                [f"loses {', '.join(lost)}"] * bool(lost) + [f"adds {', '.join(added)}"] * bool(added)
                or ["is empty or the instruction itself"]
            )
            raise WordingError(f"{path}: wording {i} of {task.slug} {why}: a wording may change only words")
    return [own, *others]


def instruction_pick(task: Task, variation: int | None) -> str:
    """The instruction template of an episode of `task`: without a variation the task's own, word for word (fixed
    episodes, verify_tasks: their runs and verdicts as before); with one, one of instruction_wordings drawn from it
    alone, so the same variation gives the same wording."""
    if variation is None:
        return task.spec["instruction"]
    return random.Random(f"wording:{variation}").choice(instruction_wordings(task))


def task_worded(instance: Task, variation: int | None) -> Task:
    """`instance` (a task filled with an episode's params) with the instruction its variation picks; its
    placeholders are the original's (faithful), so the same params fill them (never saved, as with_params)."""
    wording = instruction_pick(instance, variation)
    if wording == instance.spec["instruction"]:
        return instance
    worded = copy.copy(instance)
    worded.spec = {**instance.spec, "instruction": wording}
    return worded


def variation_templates_build(*, limit: int | None = None) -> list[tuple[str, str, int]]:
    """Build the missing templates of the variation pool of every current task's (replica, variant), at most
    `limit` of them; returns the (replica, variant, seed) built. The scheduler calls it each tick."""
    built = []
    keys = sorted(set(Task.objects.filter(is_current=True).values_list("replica", "spec__variant")))
    for replica, variant in keys:
        variant = variant or "default"
        try:
            version = get_replica(replica).generator_version
        except LookupError:
            continue  # a task of a replica no longer installed
        seeds = range(1, settings.EPISODE_WORLD_SEEDS + 1)
        have = set(
            World.objects.filter(
                is_template=True,
                workspace=None,
                replica=replica,
                variant=variant,
                generator_version=version,
                seed__in=seeds,
            ).values_list("seed", flat=True)
        )
        for seed in seeds:
            if seed in have:
                continue
            if limit is not None and len(built) >= limit:
                return built
            template_get_or_build(replica=replica, seed=seed, variant=variant)
            built.append((replica, variant, seed))
    return built
