"""The bench's observation-mode figures: text mode's throughput next to full mode's, and characters per
observation by mode over the reference solutions."""

import json
import re
import subprocess
import sys

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.measure import tree_cpu_by_kind_s, tree_cpu_s
from bench.report import checks, table
from bench.throughput import _pooled
from episodes.engine.observation import render_observation
from tests.episodes.fixtures import sync_test_pack


def test_a_modes_rounds_pool_their_episodes_over_their_wall_time():
    rounds = [
        {"episodes": 10, "passed": 10, "wall_s": 60.0, "episodes_per_min": 10.0},
        {"episodes": 10, "passed": 9, "wall_s": 30.0, "episodes_per_min": 20.0},
    ]
    # 20 episodes in 90 s, not the mean of the two rates (15)
    assert _pooled(rounds) == {
        "episodes": 20,
        "passed": 19,
        "wall_s": 90.0,
        "episodes_per_min": 13.33,
        "rounds_per_min": [10.0, 20.0],
    }


def test_pooled_rounds_give_cpu_seconds_per_episode_when_every_round_measured_them():
    rounds = [
        {"episodes": 10, "passed": 10, "wall_s": 60.0, "episodes_per_min": 10.0, "cpu_s": 40.0},
        {"episodes": 6, "passed": 6, "wall_s": 30.0, "episodes_per_min": 12.0, "cpu_s": 24.0},
    ]
    assert _pooled(rounds)["cpu_s_per_episode"] == 4.0  # 64 s over 16 episodes
    # a round without the figure (an older worker's) leaves it out rather than under-count it
    assert "cpu_s_per_episode" not in _pooled([rounds[0], {k: v for k, v in rounds[1].items() if k != "cpu_s"}])


def test_pooled_rounds_split_cpu_seconds_per_episode_by_kind_of_process():
    rounds = [
        {"episodes": 10, "wall_s": 60.0, "cpu_s": 40.0, "cpu_s_by_kind": {"chromium": 30.0, "worker": 10.0}},
        {"episodes": 6, "wall_s": 30.0, "cpu_s": 24.0, "cpu_s_by_kind": {"chromium": 18.0, "replica server": 6.0}},
    ]
    pooled = _pooled([{**r, "passed": r["episodes"], "episodes_per_min": 1.0} for r in rounds])
    assert pooled["cpu_s_per_episode_by_kind"] == {"chromium": 3.0, "replica server": 0.375, "worker": 0.625}


def test_a_trees_cpu_seconds_by_kind_add_up_to_its_total_and_name_its_processes():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        by_kind = tree_cpu_by_kind_s()
        assert by_kind["worker"] > 0 and "other" in by_kind  # this process, and the child (not a browser)
        assert abs(sum(by_kind.values()) - tree_cpu_s()) < 0.5
    finally:
        child.kill()
        child.wait()


def test_a_process_trees_cpu_seconds_only_grow():
    before = tree_cpu_s()
    sum(i * i for i in range(300_000))  # some work of this process's own
    after = tree_cpu_s()
    assert before > 0 and after > before


def throughput_with(ratio: float) -> dict:
    pooled = {"episodes": 32, "passed": 32, "wall_s": 60.0, "episodes_per_min": 32.0}
    return {
        "by_workers": {"2": {"episodes_per_min": 30.0}},
        "obs": {
            "mode": "text",
            "order": "full, obs, obs, full",
            "by_workers": {"2": {"full": pooled, "text": {**pooled, "episodes_per_min": 32.0 * ratio}, "ratio": ratio}},
            "goal": 1.3,
            "goal_met": ratio >= 1.3,
        },
    }


def test_checks_judge_text_mode_against_full_mode_and_the_characters_goal():
    sections = {
        "throughput": throughput_with(1.31),
        "observations": {
            "text_goal_pct": 40.0,
            "replicas": {
                "shop": {"text_pct_of_full": 38.5, "text_goal_met": True},
                "board": {"text_pct_of_full": 47.0, "text_goal_met": False},
            },
        },
    }
    verdicts = {c["check"]: (c["value"], c["passed"]) for c in checks(sections)}
    assert verdicts["text mode / full mode episodes per minute with 2 workers"] == (1.31, True)
    assert verdicts["shop: text mode characters on the median page (% of full)"] == (38.5, True)
    assert verdicts["board: text mode characters on the median page (% of full)"] == (47.0, False)
    sections["throughput"] = throughput_with(1.29)
    assert not {c["check"]: c["passed"] for c in checks(sections)}[
        "text mode / full mode episodes per minute with 2 workers"
    ]


def test_the_table_prints_text_mode_next_to_full_mode_with_the_ratio_and_the_goal():
    report = {"environment": {"database": "sqlite", "cores": 2}, "sections": {"throughput": throughput_with(0.9)}}
    printed = table(report)
    assert "full vs text mode, no screenshots" in printed
    assert "32.0" in printed and "28.8" in printed and "0.90x" in printed
    assert "goal: >= 1.3x full with 2 workers: NOT met" in printed
    assert "CPU s/episode" not in printed  # no CPU figures measured: no row of dashes
    measured = throughput_with(0.9)
    pair = measured["obs"]["by_workers"]["2"]
    pair["full"]["cpu_s_per_episode"], pair["text"] = 4.5, {**pair["text"], "cpu_s_per_episode": 3.4}
    pair["cpu_ratio"] = 1.32
    printed = table({**report, "sections": {"throughput": measured}})
    assert re.search(r"2: CPU s/episode \(worker, browser, server\)\s+4\.50 s\s+3\.40 s\s+1\.32x", printed)


def test_bench_refuses_full_or_an_unknown_mode_for_obs():
    for mode in ("full", "pixels"):
        with pytest.raises(CommandError, match="--obs: invalid choice"):
            call_command("bench", "--only", "throughput", "--obs", mode)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_observations_section_counts_characters_by_mode_over_a_reference_solution(tmp_path):
    sync_test_pack()
    out = tmp_path / "bench.json"
    call_command("bench", "--only", "observations", "--obs-tasks", "1", "--out", str(out))
    section = json.loads(out.read_text())["sections"]["observations"]
    assert "error" not in section, section.get("error")
    testbed = section["replicas"]["testbed"]
    # testbed.open-note: its start page and the page after its one step
    assert testbed["tasks"] == 1 and testbed["observations"] == 2
    chars = testbed["chars"]
    assert 0 < chars["text"]["median"] < chars["full"]["median"]
    # diff mode gives the text page or its changes, each under a label text mode has not (a whole page's "Page:"
    # where text mode leaves a blank line; a change's line of about 80 characters), so on these two short pages it
    # may be longer by a label, never by more
    page = [f"[{n}] link 'Note {n}'" for n in range(30)]
    changed = render_observation({"axtree": "\n".join(page[1:])}, "diff", previous="\n".join(page), step=1)
    changes_label = next(line for line in changed.splitlines() if line.startswith("Page changes since"))
    assert chars["diff"]["median"] <= chars["text"]["median"] + len(changes_label)
    assert testbed["text_pct_of_full"] == round(100 * chars["text"]["median"] / chars["full"]["median"], 1)
    assert testbed["targets_unseen_in_text"] == {}
