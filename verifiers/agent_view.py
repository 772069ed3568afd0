"""The agent-facing view of a verdict: what an agent may learn of how its episode was judged.

Standard library only, so the gym module can import it before Django is set up.
"""


def agent_view(verdict: dict | None, rewards: dict | None) -> dict:
    """The verdict and rewards as an agent may see them: every payload an agent receives uses this.

    Each assertion's name and whether it held, and the reward signals; never its
    detail, an expected or actual value, a row key or a collateral change. Tasks
    share their seed, so one junk finish that showed the detail would give away
    the answer key of every later episode of the task. Staff views (reports,
    verify_tasks, the episode viewer) read the stored verdict with its detail.
    """
    view_verdict = None
    if verdict is not None:
        view_verdict = {
            "passed": bool(verdict.get("passed")),
            "partial": float(verdict.get("partial") or 0.0),
            "collateral_ok": bool(verdict.get("collateral_ok", True)),
            "assertions": [
                {"name": str(a.get("name", "")), "passed": bool(a.get("passed")), "required": bool(a.get("required", True))}
                for a in verdict.get("assertions") or []
            ],
        }
    view_rewards = None
    if rewards is not None:
        view_rewards = {
            str(name): float(value) for name, value in rewards.items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }
    return {"verdict": view_verdict, "rewards": view_rewards}
