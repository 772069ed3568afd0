"""The run report's plots, drawn by matplotlib and kept as inline SVG (text stays text, so labels are searchable).

matplotlib's object API (Figure, no pyplot) keeps no global state, so request threads can
draw at once. Each function takes a report document (reports.report) and returns an
<svg> element as a string, or None when there is nothing to draw yet.
"""

import io

from matplotlib import rc_context
from matplotlib.figure import Figure

from .metrics import REWARD_KEYS

# Primer's palette, so plots sit well on the platform's pages.
BLUE, GREEN, RED, GREY = "#0969da", "#1a7f37", "#cf222e", "#8c959f"
STYLE = {
    "svg.fonttype": "none",  # <text> elements, not glyph paths: the browser draws the labels
    "svg.hashsalt": "replicagym",  # stable element ids, so one report always gives the same SVG
    "font.family": "sans-serif",
    "font.size": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 9,
    "axes.titleweight": "bold",
}
ROW_INCHES = 0.28


def _svg(fig: Figure, label: str) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Title": label})
    text = buf.getvalue()
    # inline: drop the XML prolog and doctype, and say what it shows
    text = text[text.index("<svg") :]
    return text.replace("<svg", f'<svg role="img" aria-label="{label}" class="report-plot"', 1)


def _height(rows: int, extra: float = 0.9) -> float:
    return max(1.6, extra + ROW_INCHES * rows)


def pass_rate_per_task(report: dict) -> str | None:
    tasks = [(tid, t) for tid, t in report["tasks"].items() if t["pass_rate"] is not None]
    if not tasks:
        return None
    with rc_context(STYLE):
        fig = Figure(figsize=(7, _height(len(tasks))))
        ax = fig.add_subplot()
        names = [tid for tid, _ in tasks][::-1]
        rates = [t["pass_rate"] for _, t in tasks][::-1]
        labels = [f"{t['passes']}/{t['attempts']}" for _, t in tasks][::-1]
        bars = ax.barh(names, rates, color=[GREEN if r >= 0.5 else RED for r in rates])
        ax.bar_label(bars, labels=labels, padding=3)
        ax.set_xlim(0, 1.1)
        ax.set_xlabel("pass rate (pass@1)")
        ax.set_title("Pass rate per task")
        return _svg(fig, "Pass rate per task")


def signal_histograms(report: dict) -> str | None:
    values = report["totals"]["reward_values"]
    if not any(values.values()):
        return None
    with rc_context(STYLE):
        fig = Figure(figsize=(7, 3.6))
        axes = fig.subplots(2, 3, sharey=True)
        for ax, key in zip(axes.flat, REWARD_KEYS, strict=True):
            data = values[key]
            ax.hist(data, bins=[i / 10 for i in range(11)], color=BLUE, edgecolor="white")
            mean = sum(data) / len(data) if data else None
            ax.set_title(key + (f" (mean {mean:.2f})" if mean is not None else " (none)"))
            ax.set_xlim(0, 1)
        axes[0][0].set_ylabel("episodes")
        axes[1][0].set_ylabel("episodes")
        fig.suptitle("Reward signals over all attempts", fontsize=9, fontweight="bold")
        fig.tight_layout()
        return _svg(fig, "Reward signal histograms")


def time_and_steps_per_task(report: dict) -> str | None:
    tasks = [(tid, t) for tid, t in report["tasks"].items() if t["attempts"]]
    if not tasks:
        return None
    with rc_context(STYLE):
        fig = Figure(figsize=(7, _height(len(tasks))))
        ax_time, ax_steps = fig.subplots(1, 2, sharey=True)
        for row, (_tid, t) in enumerate(reversed(tasks)):
            for ax, key, mean_key in ((ax_time, "seconds", "mean_seconds"), (ax_steps, "steps", "mean_steps")):
                ax.scatter(t[key], [row] * len(t[key]), color=GREY, s=12, zorder=2)
                if t[mean_key] is not None:
                    ax.scatter([t[mean_key]], [row], color=BLUE, marker="|", s=200, zorder=3)
        ax_time.set_yticks(range(len(tasks)), [tid for tid, _ in reversed(tasks)])
        ax_time.set_xlabel("seconds per attempt (| mean)")
        ax_steps.set_xlabel("steps per attempt (| mean)")
        ax_time.set_xlim(left=0)
        ax_steps.set_xlim(left=0)
        ax_time.set_title("Time per task")
        ax_steps.set_title("Steps per task")
        fig.tight_layout()
        return _svg(fig, "Time and steps per task")


def pass_hat_k_curve(report: dict) -> str | None:
    overall = report["totals"]["pass_hat_k"]
    if not overall:
        return None
    with rc_context(STYLE):
        fig = Figure(figsize=(7, 3.2))
        ax = fig.add_subplot()
        for task in report["tasks"].values():
            curve = task["pass_hat_k"]
            if curve:
                ax.plot([int(k) for k in curve], list(curve.values()), color=GREY, alpha=0.5, linewidth=1)
        ks = [int(k) for k in overall]
        ax.plot(ks, list(overall.values()), color=BLUE, linewidth=2, marker="o", label="mean over tasks")
        ax.set_xticks(ks)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("k (attempts that must all pass)")
        ax.set_ylabel("pass^k")
        ax.set_title("pass^k against k (grey: each task)")
        ax.legend(frameon=False, loc="upper right")
        return _svg(fig, "pass^k against k")


def pass_rate_deltas(comparison: dict) -> str | None:
    tasks = [(tid, t) for tid, t in comparison["tasks"].items() if t["pass_rate_delta"] is not None]
    if not tasks:
        return None
    with rc_context(STYLE):
        fig = Figure(figsize=(7, _height(len(tasks))))
        ax = fig.add_subplot()
        names = [tid for tid, _ in tasks][::-1]
        deltas = [t["pass_rate_delta"] for _, t in tasks][::-1]
        ax.barh(names, deltas, color=[GREEN if d > 0 else RED if d < 0 else GREY for d in deltas])
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlim(-1.05, 1.05)
        ax.set_xlabel(f"pass rate, run {comparison['b']} minus run {comparison['a']}")
        ax.set_title("Pass rate change per task")
        return _svg(fig, "Pass rate change per task")


def checkpoint_funnels(report: dict) -> str | None:
    """Per task with checkpoints, its milestones top to bottom in the spec's order, each bar the share of finished
    attempts that reached it: where the attempts fall off a long task."""
    tasks = [(tid, t["checkpoints"]) for tid, t in report["tasks"].items() if t.get("checkpoints")]
    if not tasks:
        return None
    with rc_context(STYLE):
        rows = sum(len(milestones) for _, milestones in tasks)
        fig = Figure(figsize=(7, _height(rows, extra=0.7 * len(tasks))))
        axes = fig.subplots(len(tasks), 1, squeeze=False, height_ratios=[len(m) for _, m in tasks])[:, 0]
        for ax, (task_id, milestones) in zip(axes, tasks, strict=True):
            names = [
                f"{i}. {m['name']} ({m['points']} pt{'s' if m['points'] != 1 else ''})"
                for i, m in enumerate(milestones, 1)
            ][::-1]
            shares = [m["reached"] / m["attempts"] if m["attempts"] else 0.0 for m in milestones][::-1]
            bars = ax.barh(names, shares, color=GREEN)
            ax.bar_label(bars, labels=[f"{m['reached']}/{m['attempts']}" for m in milestones][::-1], padding=3)
            ax.set_xlim(0, 1.1)
            ax.set_title(f"Checkpoints of {task_id}")
        axes[-1].set_xlabel("share of finished attempts that reached the milestone")
        fig.tight_layout()
        return _svg(fig, "Checkpoint funnel per task")


def report_plots(report: dict) -> dict[str, str | None]:
    """Every plot of a run report by name (the page and the HTML download show the same); the checkpoint funnel
    only for a run with a task that has checkpoints."""
    plots = {
        "pass_rate": pass_rate_per_task(report),
        "pass_hat_k": pass_hat_k_curve(report),
        "signals": signal_histograms(report),
        "time_steps": time_and_steps_per_task(report),
    }
    funnels = checkpoint_funnels(report)
    return {**plots, "checkpoints": funnels} if funnels else plots
