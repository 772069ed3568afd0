"""Reward signals of one episode, each in [0, 1], and their weighted combination.

Every signal grades how a completed task was done: when the task was not completed
(the verdict failed, or the episode timed out, was closed before its end, errored or
was cancelled) every signal is 0, and so is `episode_reward` under any weights. A signal
that paid on a failed episode would pay for doing nothing: `action_precision` and
`error_recovery` read 1.0 on an empty trajectory, `collateral` 1.0 on an untouched
world. And the agent sees the signals: a failed episode's collateral 0 would tell it
which of its changes were wrong, i.e. which branch of a decision is right.
Staff keep the full picture in the stored verdict (assertions, collateral changes).

- task_completion: 1 when every required assertion holds and the episode ended by the
  agent's own stop within its limits, else 0 (`verdict.partial`, the fraction of
  assertions that hold, is for staff).
- efficiency: reference steps / steps taken, capped at 1.
- error_recovery: of the faults the agent met (that fired), the fraction after
  which it still completed the task, without a harmful repeat, and recovered as
  the fault library judges it when it does (a later retry succeeded, the modal
  was dismissed, the moved banner not clicked); 1 when it met no fault.
  A harmful repeat is a step, after the fault, that writes again what an earlier
  step had already written: both wrote rows (`writes`, recorded per step from the
  world's request log), and the later one repeats the earlier one's action text or
  its writes (the same tables inserted into, the same rows updated or deleted): the
  second refund after a timeout that had in fact gone through. Retrying an action
  whose first try wrote nothing (a 500) is recovery, not harm. A step without
  `writes` (an old trajectory) shows a write only through `state_changed`.
- action_precision: of the steps that act on the page (messages to the user are
  answers, not actions), the fraction that ran without error and changed
  something (`changed`: URL, DOM or world state). Without a `changed` flag a
  step counts when it ran without error. 1 when there was no such step (an answer
  task solved from the start page).
- collateral: 1 when nothing changed outside the spec's `allowed_changes`, else 0.
- episode_reward: the weighted mean of the signals named in the task's or suite's
  weights (`{"task_completion": 0.8, "efficiency": 0.2}`), multiplied by
  collateral unless the weights give collateral a weight of its own: breaking
  what must not change voids the episode. Default weights
  `{"task_completion": 1}`, i.e. task_completion × collateral.
"""

from replicas.worlds.faults import recovery_outcomes

from .actions import ANSWER_ACTIONS, action_parts

SIGNALS = ("task_completion", "efficiency", "error_recovery", "action_precision", "collateral")
DEFAULT_WEIGHTS = {"task_completion": 1.0}


class RewardWeightsError(ValueError):
    pass


def validate_weights(weights) -> dict:
    """The weights to use (the default for None), or RewardWeightsError naming what is wrong."""
    if weights is None:
        return DEFAULT_WEIGHTS
    if not isinstance(weights, dict):
        raise RewardWeightsError("reward weights must be an object of signal -> weight")
    for name, value in weights.items():
        if name not in SIGNALS:
            raise RewardWeightsError(f"unknown reward signal {name!r} (signals: {', '.join(SIGNALS)})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise RewardWeightsError(f"weight of {name} must be a number >= 0, not {value!r}")
    if sum(weights.values()) <= 0:
        raise RewardWeightsError("reward weights must not all be 0")
    return weights


def _clip(x: float) -> float:
    return min(1.0, max(0.0, float(x)))


def efficiency(*, passed: bool, steps_taken: int, reference_steps: int | None) -> float:
    if not passed:
        return 0.0
    if not reference_steps or steps_taken <= reference_steps:
        return 1.0
    return _clip(reference_steps / steps_taken)


def _wrote(step: dict) -> bool:
    """Whether the step wrote to the world, as far as the trajectory tells.

    Its `writes` say so, even for a step that errored (a timeout after the write went
    through); `state_changed` stands in when there are none. `changed` (the page
    changed) is no evidence of a write: opening a dialog twice is no harm.
    """
    return bool(step.get("writes")) or bool(step.get("state_changed"))


def _write_signature(step: dict) -> frozenset:
    """What the step wrote, comparable across steps: tables inserted into, rows updated or deleted."""
    out = set()
    for w in step.get("writes") or []:
        if isinstance(w, dict):
            op = w.get("op")
            out.add((w.get("table"), op) if op == "insert" else (w.get("table"), op, w.get("id")))
    return frozenset(out)


def _normal(action: str) -> str:
    return " ".join((action or "").split())


def harmful_repeats(trajectory: list, after: int) -> list[int]:
    """Positions (> after) of steps that wrote again what an earlier step had already written."""
    actions, signatures = set(), set()
    harmful = []
    for pos, step in enumerate(trajectory):
        if not _wrote(step):
            continue
        action, signature = _normal(step.get("action", "")), _write_signature(step)
        if pos > after and (action in actions or (signature and signature in signatures)):
            harmful.append(pos)
        actions.add(action)
        if signature:
            signatures.add(signature)
    return harmful


def faults_met(trajectory: list) -> list[tuple[int, list]]:
    """(position of the step where it first acted, its events) of each fault the agent met, in order.

    Events of the fault library (`{"fault", "index", "event", ...}`) are grouped by
    fault; a fault is met when it fired (being armed, or data changed at creation,
    is not meeting it). Any other event is one fault met at its step.
    """
    met: dict = {}
    for pos, step in enumerate(trajectory):
        for event in step.get("fault_events") or []:
            if isinstance(event, dict) and isinstance(event.get("event"), str):
                entry = met.setdefault(("fault", event.get("index"), event.get("fault")), [None, []])
                entry[1].append(event)
                if event["event"] == "fired" and entry[0] is None:
                    entry[0] = pos
            else:
                met[("event", pos, len(met))] = [pos, [event]]
    return [(pos, events) for pos, events in met.values() if pos is not None]


def _library_judgement(events: list) -> bool | None:
    """The fault library's own verdict on recovery (a retry that succeeded, a modal dismissed), if it has one."""
    if not all(isinstance(e, dict) and "seq" in e and "recovery" in e for e in events):
        return None
    outcomes = [o for o in recovery_outcomes(events) if o.get("counted")]
    return all(o["recovered"] for o in outcomes) if outcomes else None


def error_recovery(*, passed: bool, trajectory: list) -> float:
    if not passed:
        return 0.0
    met = faults_met(trajectory)
    if not met:
        return 1.0
    recovered = sum(
        1 for pos, events in met if not harmful_repeats(trajectory, pos) and _library_judgement(events) is not False
    )
    return recovered / len(met)


def action_precision(trajectory: list) -> float:
    acting = [s for s in trajectory if action_parts(s.get("action", ""))[0] not in ANSWER_ACTIONS]
    if not acting:
        return 1.0
    precise = sum(1 for s in acting if not s.get("error") and s.get("changed", True))
    return precise / len(acting)


def unscored_signals() -> dict:
    """Every signal and `episode_reward` at 0: the rewards of an episode that ended without completing its task."""
    return {**dict.fromkeys(SIGNALS, 0.0), "episode_reward": 0.0}


def reward_signals(
    *, verdict, trajectory, reference_steps, weights=None, collateral_ok=None, ended_by_agent=True
) -> dict:
    """The reward signals of one episode and `episode_reward`, all in [0, 1].

    `verdict` is a Verdict or its stored dict (to recompute rewards with other
    weights); `collateral_ok` defaults to the verdict's (changes outside `allowed_changes`).
    `ended_by_agent` is False when the episode did not end by the agent's own stop within
    its limits (it timed out, or was closed or reset before its end): its task is not
    completed whatever the verdict says, since an answer after the limit is no answer.
    """
    weights = validate_weights(weights)
    trajectory = list(trajectory or [])
    doc = verdict if isinstance(verdict, dict) else verdict.to_dict()
    # a task with checkpoints pays partial credit for the milestones reached, passed or not, but only
    # to an episode the agent ended itself: one cut off by its limits earns nothing
    partial = doc.get("partial_completion")
    credit = {} if partial is None else {"partial_completion": _clip(partial) if ended_by_agent else 0.0}
    if not (ended_by_agent and doc.get("passed")):
        return {**unscored_signals(), **credit}
    ok = doc.get("collateral_ok", True) if collateral_ok is None else collateral_ok
    signals = {
        "task_completion": 1.0,
        "efficiency": efficiency(passed=True, steps_taken=len(trajectory), reference_steps=reference_steps),
        "error_recovery": error_recovery(passed=True, trajectory=trajectory),
        "action_precision": action_precision(trajectory),
        "collateral": 1.0 if ok else 0.0,
    }
    reward = sum(signals[k] * w for k, w in weights.items()) / sum(weights.values())
    if "collateral" not in weights:
        reward *= signals["collateral"]
    signals = {k: _clip(v) for k, v in signals.items()}
    signals["episode_reward"] = _clip(reward)
    return {**signals, **credit}
