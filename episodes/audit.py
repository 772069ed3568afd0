"""The mutation audit of a task, played: its reference and do-nothing episodes, then `verifiers.audit` on the reference.

`audit_tasks` runs it over packs; the packs' browser tests run `episode_audit` on the
reference episodes they play anyway, so every CI pass audits every played task.
"""

import time

from catalogue.packs import task_params
from verifiers.audit import TaskAudit, answer_keys, audit_reference
from verifiers.interaction import interaction_actions

from .driver import episode_play
from .verdict import episode_verifier_inputs


def episode_audit(*, task, episode) -> TaskAudit:
    """The mutants of a finished reference episode of `task` judged by its verifier (with the params check)."""
    if (
        episode.verdict is None
        or not episode.verdict.get("passed")
        or not (episode.rewards or {}).get("episode_reward")
    ):
        report = TaskAudit(task.task_id)
        report.problems.append(f"reference solution does not earn full reward (episode {episode.pk}, {episode.status})")
        return report
    inputs = episode_verifier_inputs(
        episode=episode, final_doc=episode.final_state.doc, messages=episode.messages, final_page=episode.final_page
    )
    return audit_reference(
        task_id=task.task_id,
        spec=task.spec,
        verifier=episode.instance.verifier,
        inputs=inputs,
        interaction_actions=set(interaction_actions(task.spec.get("interaction"))),
    )


def _params_of_seeds(spec: dict, wanted: int) -> list[dict]:
    """The task's params on the first `wanted` seeds from its own that can host it (of twice as many tried)."""
    found = []
    for seed in range(spec["seed"], spec["seed"] + 2 * wanted):
        try:
            found.append(task_params({**spec, "seed": seed}))
        except Exception:  # noqa: BLE001 - the params function is task-author code: no candidate on that world
            continue
        if len(found) == wanted:
            break
    return found


def task_audit(task, *, seeds: int) -> TaskAudit:
    """One task's whole audit: the reference's mutants, doing nothing, and the answer key across `seeds` seeds."""
    started = time.monotonic()
    spec = task.spec
    report = episode_audit(task=task, episode=episode_play(task_id=task.task_id, actions=task.reference_solution))
    empty = episode_play(task_id=task.task_id, actions=[])
    if empty.verdict is not None and empty.verdict.get("passed"):
        report.problems.append(f"doing nothing passes (episode {empty.pk})")
    if seeds > 1 and answer_keys(spec, []) is not None and not (spec.get("audit") or {}).get("fixed_key"):
        keys = answer_keys(spec, _params_of_seeds(spec, seeds))
        if len(set(keys)) < 2:
            report.problems.append(
                f"the answer key is the same on {len(keys)} seeds (say why in audit.fixed_key, or vary it)"
            )
    report.seconds = time.monotonic() - started
    return report
