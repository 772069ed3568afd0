"""Run reports: pass^k by tau-bench's estimator, per task and overall figures, plots with their data, comparing runs."""

import re
from math import comb

import pytest
from replicagym.reports.metrics import mean_over_tasks, pass_hat_curve, pass_hat_k
from replicagym.reports.plots import pass_rate_deltas, report_plots
from replicagym.reports.report import reports_compare, run_report

from episodes.models import Episode
from episodes.runs import run_cancel, run_launch


@pytest.mark.parametrize(
    "n, c, k, expected",
    [
        (5, 5, 5, 1.0),
        (5, 0, 1, 0.0),
        (5, 3, 1, 0.6),
        (5, 3, 2, 0.3),
        (5, 3, 3, 0.1),
        (5, 3, 4, 0.0),
        (4, 2, 2, 1 / 6),
    ],
)
def test_pass_hat_k_is_the_chance_that_k_attempts_drawn_from_n_all_pass(n, c, k, expected):
    assert pass_hat_k(n=n, c=c, k=k) == pytest.approx(expected)
    assert pass_hat_k(n=n, c=c, k=k) == pytest.approx(comb(c, k) / comb(n, k))


def test_pass_hat_k_refuses_impossible_counts():
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_hat_k(n=3, c=1, k=4)
    with pytest.raises(ValueError, match="between 0 and n=3"):
        pass_hat_k(n=3, c=4, k=1)


def test_the_run_curve_averages_each_k_over_the_tasks_that_have_k_attempts():
    curves = [pass_hat_curve(n=3, c=2), pass_hat_curve(n=2, c=2)]
    assert mean_over_tasks(curves) == pytest.approx({1: (2 / 3 + 1) / 2, 2: (1 / 3 + 1) / 2, 3: 0.0})


def test_a_report_has_per_task_pass_at_1_pass_hat_k_signal_values_steps_and_time(finished_run):
    run = finished_run({"testbed.complete-note": [True, True, False], "testbed.rename-note": [False, False, False]})
    report = run_report(run=run)
    done, rename = report["tasks"]["testbed.complete-note"], report["tasks"]["testbed.rename-note"]
    assert (done["attempts"], done["passes"], done["pass_rate"]) == (3, 2, pytest.approx(0.6667, abs=1e-4))
    assert done["pass_hat_k"] == {"1": pytest.approx(0.6667, abs=1e-4), "2": pytest.approx(0.3333, abs=1e-4), "3": 0.0}
    assert rename["pass_hat_k"] == {"1": 0.0, "2": 0.0, "3": 0.0}
    assert done["steps"] == [2, 3, 4] and done["mean_steps"] == 3
    assert done["seconds"] == [3.0, 4.0, 5.0] and done["mean_seconds"] == 4.0
    assert done["reward_values"]["task_completion"] == [1.0, 1.0, 0.0]
    assert done["rewards"]["efficiency"] == pytest.approx(1 / 3, abs=1e-4)
    assert [e["status"] for e in done["episodes"]] == ["succeeded", "succeeded", "failed"]
    totals = report["totals"]
    assert (totals["attempts"], totals["passes"]) == (6, 2)
    assert totals["pass_at_1"] == pytest.approx((2 / 3 + 0) / 2, abs=1e-4)
    assert totals["pass_hat_k"]["2"] == pytest.approx((1 / 3 + 0) / 2, abs=1e-4)
    assert report["status"] == "done" and report["agent"] == "random"


def test_cancelled_and_unfinished_episodes_are_counted_but_never_scored(finished_run):
    run = finished_run({"testbed.complete-note": [True]}, attempts=3)
    run_cancel(run_id=run.pk)
    task = run_report(run=run)["tasks"]["testbed.complete-note"]
    assert task["statuses"] == {"succeeded": 1, "cancelled": 2}
    assert (task["attempts"], task["passes"], task["pass_hat_k"]) == (1, 1, {"1": 1.0})


def test_an_attempt_errored_without_rewards_scores_zero_in_the_means(finished_run):
    run = finished_run({"testbed.complete-note": [True, True]})
    # a worker that died outside the engine's own handling errors its episode without finishing it: no rewards stored
    lost = run.episodes.order_by("attempt").last()
    Episode.objects.filter(pk=lost.pk).update(status=Episode.Status.ERRORED, rewards=None)
    task = run_report(run=run)["tasks"]["testbed.complete-note"]
    assert task["reward_values"]["episode_reward"] == [1.0, 0.0]  # not [1.0]: erroring must not lift the mean
    assert task["rewards"]["episode_reward"] == 0.5 and task["episodes"][1]["reward"] == 0.0


def _svg_texts(svg: str) -> str:
    return " ".join(re.findall(r">([^<>]+)</text>", svg))


def test_plots_are_matplotlib_svg_whose_labels_carry_the_reports_data(finished_run):
    report = run_report(
        run=finished_run({"testbed.complete-note": [True, False], "testbed.rename-note": [False, False]})
    )
    plots = report_plots(report)
    assert set(plots) == {"pass_rate", "pass_hat_k", "signals", "time_steps"}
    for name, svg in plots.items():
        assert svg.startswith("<svg") and "Matplotlib v" in svg, name  # its creator metadata
        assert not svg.startswith("<?xml")
    rates = _svg_texts(plots["pass_rate"])
    assert "testbed.complete-note" in rates and "1/2" in rates and "0/2" in rates
    assert "task_completion (mean 0.25)" in _svg_texts(plots["signals"])
    assert "Time per task" in _svg_texts(plots["time_steps"])
    # one bar per task, as wide as its pass rate: rename-note's is empty, complete-note's half of 1.0
    assert plots["pass_rate"].count('<g id="patch_') >= 3
    assert report_plots(report) == plots  # the same report always draws the same SVG


def test_a_run_with_nothing_finished_has_no_plots_yet(db):
    report = run_report(run=run_launch(suite="testbed", agent="random"))
    assert report["totals"]["attempts"] == 0 and report["totals"]["pass_at_1"] is None
    assert set(report_plots(report).values()) == {None}


def test_comparing_two_runs_names_the_flipped_tasks_and_the_signal_deltas(finished_run):
    before = run_report(
        run=finished_run({"testbed.complete-note": [True, True], "testbed.rename-note": [False, False]})
    )
    after = run_report(
        run=finished_run({"testbed.complete-note": [False, False], "testbed.rename-note": [True, False]})
    )
    comparison = reports_compare(before, after)
    assert comparison["flipped_to_fail"] == ["testbed.complete-note"]
    assert comparison["flipped_to_pass"] == ["testbed.rename-note"]  # 1/2 counts as solved
    task = comparison["tasks"]["testbed.complete-note"]
    assert task["pass_rate"] == [1.0, 0.0] and task["pass_rate_delta"] == -1.0
    assert task["rewards_delta"]["task_completion"] == -1.0 and task["flipped"]
    assert comparison["totals"]["pass_at_1_delta"] == pytest.approx(-0.25)
    svg = pass_rate_deltas(comparison)
    assert svg.startswith("<svg") and "testbed.rename-note" in _svg_texts(svg)


def test_tasks_in_only_one_run_are_listed_apart(finished_run):
    one = run_report(run=finished_run({"testbed.complete-note": [True]}))
    both = run_report(run=finished_run({"testbed.complete-note": [True], "testbed.rename-note": [True]}))
    comparison = reports_compare(one, both)
    assert comparison["only_in_b"] == ["testbed.rename-note"] and comparison["only_in_a"] == []
    assert comparison["flipped_to_pass"] == comparison["flipped_to_fail"] == []
    assert Episode.objects.count() == 3


MILESTONES = [("opened the note", 1), ("marked it done", 2), ("left the rest alone", 1)]


def test_the_checkpoint_funnel_counts_the_attempts_that_reached_each_milestone_and_draws_them(
    finished_run, client, author_user
):
    """Three attempts that got one, two and all three milestones far: 3, 2 and 1 of 3 reached them."""
    run = finished_run({"testbed.complete-note": [False, False, True]})
    for episode, depth in zip(run.episodes.order_by("attempt"), (1, 2, 3), strict=True):
        checkpoints = [
            {"name": name, "points": points, "reached": index < depth}
            for index, (name, points) in enumerate(MILESTONES)
        ]
        Episode.objects.filter(pk=episode.pk).update(verdict={**episode.verdict, "checkpoints": checkpoints})
    report = run_report(run=run)
    assert report["tasks"]["testbed.complete-note"]["checkpoints"] == [
        {"name": "opened the note", "points": 1, "reached": 3, "attempts": 3},
        {"name": "marked it done", "points": 2, "reached": 2, "attempts": 3},
        {"name": "left the rest alone", "points": 1, "reached": 1, "attempts": 3},
    ]
    funnel = report_plots(report)["checkpoints"]
    texts = _svg_texts(funnel)
    assert "Checkpoints of testbed.complete-note" in texts
    # each milestone's label in the spec's order (drawn bottom up, so listed last first) with its count
    assert [m.group(1) for m in re.finditer(r"\d\. ([a-z ]+) \(\d pts?\)", texts)][::-1] == [n for n, _ in MILESTONES]
    assert re.findall(r"\b\d/3\b", texts) == ["1/3", "2/3", "3/3"]
    client.force_login(author_user)
    page = client.get(f"/runs/{run.pk}/report").content.decode()
    assert 'data-plot="checkpoints"' in page and "Checkpoint funnel per task" in page


def test_a_task_without_checkpoints_has_no_funnel(finished_run):
    report = run_report(run=finished_run({"testbed.complete-note": [True, False]}))
    assert report["tasks"]["testbed.complete-note"]["checkpoints"] == []
    assert "checkpoints" not in report_plots(report)
