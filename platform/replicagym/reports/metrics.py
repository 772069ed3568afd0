"""The numbers a run report is made of: pass^k by tau-bench's estimator, means, histogram bins.

Pure functions over plain numbers, so the report, the API and the tests compute them once.
"""

from math import comb
from statistics import mean

from verifiers.rewards import SIGNALS

# Every reward signal the engine writes, the weighted episode reward last.
REWARD_KEYS = (*SIGNALS, "episode_reward")


def pass_hat_k(*, n: int, c: int, k: int) -> float:
    """The chance that k attempts drawn from n, of which c passed, all pass: C(c, k) / C(n, k).

    tau-bench's unbiased estimator of pass^k from n >= k attempts; pass^1 is the pass rate.
    """
    if not 1 <= k <= n:
        raise ValueError(f"pass^k needs 1 <= k <= n, not k={k}, n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"passes must be between 0 and n={n}, not {c}")
    return comb(c, k) / comb(n, k)


def pass_hat_curve(*, n: int, c: int) -> dict[int, float]:
    """pass^k for every k from 1 to n (empty when there are no attempts)."""
    return {k: pass_hat_k(n=n, c=c, k=k) for k in range(1, n + 1)}


def mean_over_tasks(curves: list[dict[int, float]]) -> dict[int, float]:
    """pass^k averaged over the tasks that have at least k attempts (tau-bench averages over tasks)."""
    out = {}
    for k in sorted({k for curve in curves for k in curve}):
        values = [curve[k] for curve in curves if k in curve]
        out[k] = mean(values)
    return out


def mean_or_none(values: list[float], digits: int = 4) -> float | None:
    return round(mean(values), digits) if values else None
