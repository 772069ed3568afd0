"""The agent-facing view of a verdict: what an agent may learn of how its episode was judged.

Standard library only, so the gym module can import it before Django is set up.
"""


def agent_view(verdict: dict | None, rewards: dict | None) -> dict:
    """The verdict and rewards as an agent may see them: every payload an agent receives uses this.

    Whether the episode passed, and the reward signal values; never an assertion's name,
    whether it held, its detail, `partial` or `collateral_ok`. On a do-nothing episode of a
    "refund or escalate?" task, the names of the assertions that held would say which branch
    is right, and `partial` or `collateral_ok` would say as much once the agent tried one
    branch. The signals say nothing more: on an episode that did not complete its task
    they are all 0 (verifiers.rewards). The episode's status is beside this view in each
    payload. Staff views (reports, verify_tasks, the episode viewer) read the stored verdict.
    """
    view_rewards = None
    if rewards is not None:
        view_rewards = {
            str(name): float(value)
            for name, value in rewards.items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }
    view_verdict = None
    if verdict is not None:
        # passed as the rewards count it: a right answer after the time limit did not pass
        completed = view_rewards is not None and view_rewards.get("task_completion") == 1.0
        view_verdict = {"passed": bool(verdict.get("passed")) and completed}
    return {"verdict": view_verdict, "rewards": view_rewards}
