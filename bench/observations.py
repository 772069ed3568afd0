"""Characters per observation in each observation mode, per replica, over the reference solutions.

Every current task with a reference solution (or the first `tasks` of each replica, by id) is
played by the engine with that solution, screenshots off; each observation (the start page
and the page after every step) is rendered in full, text and diff mode (episodes.engine.observation,
the whole page every `full_every` steps in diff mode) and its characters counted. The issue's
goal: text mode at most 40 % of full mode's characters on the median page. Each action's element
(found by the solution's selector) is also looked for in the text mode's page by its bid: an
agent given only that text must see every element the solution acts on; and the solution, played
without screenshots (so without fonts and pictures), must pass.
"""

import statistics

from catalogue.models import Task
from episodes.creation import episode_create
from episodes.driver import EpisodeDriver
from episodes.engine.observation import OBSERVATION_MODES, OBSERVATION_SETTING, ObservationSettings, render_observation
from episodes.models import Episode
from replicas.worlds.registry import replicas
from verifiers.actions import ActionError, is_bid, parse_action

from .measure import percentile

LOOKUP_MS = 2000
TEXT_GOAL = 0.40  # issue 26: text mode's characters over full mode's, on the median page


def episode_chars(task, *, full_every: int) -> tuple[dict[str, list[int]], list[str]]:
    """({mode: [characters of each observation]}, [actions whose element the text mode did not show])
    for one task's reference solution, played by the engine."""
    settings = {OBSERVATION_SETTING: {"mode": "full", "screenshots": False}}
    episode = episode_create(task=task, agent="script", status=Episode.Status.RUNNING, agent_settings=settings)
    driver = EpisodeDriver(episode)
    chars: dict[str, list[int]] = {mode: [] for mode in OBSERVATION_MODES}
    unseen = []
    try:
        observations = [driver.open()]
        for action in episode.instance.reference_solution:
            bid = _target_bid(driver.session.page, action)
            if bid is not None and f"[{bid}] " not in render_observation(observations[-1], "text"):
                unseen.append(action)
            observations.append(driver.step(action)[0])
        previous = None
        for step, obs in enumerate(observations):
            for mode in OBSERVATION_MODES:
                chars[mode].append(len(render_observation(obs, mode, previous, step=step, full_every=full_every)))
            previous = obs.axtree
    except BaseException as exc:
        driver.fail(exc)
        raise
    done = driver.finish()
    if not (done.verdict or {}).get("passed"):
        # played without screenshots, so without fonts and pictures (episodes.engine.browser): it must still pass
        unseen.append(f"(the reference solution did not pass: {done.status} {done.error[:200]})")
    return chars, unseen


def _target_bid(page, action_text: str) -> str | None:
    """The bid of the element an action's selector finds now (None for a bid, no element or no selector)."""
    try:
        action = parse_action(action_text)
    except ActionError:
        return None
    if not action.targets_element or is_bid(action.element):
        return None
    found = page.locator(action.element)
    if not found.count():
        return None
    # a label is shown as the control it names (text mode writes its text as that control's name), and
    # a click on either does the same: the agent sees the control's bid
    return found.first.evaluate(_SHOWN_BID_JS, timeout=LOOKUP_MS)


_SHOWN_BID_JS = "el => (el.tagName === 'LABEL' && el.control ? el.control : el).getAttribute('bid')"


def _percent(part: float | None, whole: float | None) -> float | None:
    return round(100 * part / whole, 1) if part is not None and whole else None


def bench_observations(*, tasks: int | None = None, full_every: int = ObservationSettings.full_every) -> dict:
    by_replica = {}
    for label in sorted(replicas()):
        found = [
            t for t in Task.objects.filter(replica=label, is_current=True).order_by("task_id") if t.reference_solution
        ]
        if tasks is not None:
            found = found[:tasks]
        if not found:
            continue
        chars: dict[str, list[int]] = {mode: [] for mode in OBSERVATION_MODES}
        unseen = {}
        for task in found:
            counts, missed = episode_chars(task, full_every=full_every)
            for mode, some in counts.items():
                chars[mode].extend(some)
            if missed:
                unseen[task.task_id] = missed
        stats = {
            mode: {"median": statistics.median(counts), "p95": percentile(counts, 95)} for mode, counts in chars.items()
        }
        # each page's own share, so one long page does not stand for the others
        shares = {
            mode: statistics.median(part / whole for part, whole in zip(chars[mode], chars["full"], strict=True))
            for mode in ("text", "diff")
        }
        text_pct = _percent(stats["text"]["median"], stats["full"]["median"])
        by_replica[label] = {
            "tasks": len(found),
            "observations": len(chars["full"]),
            "chars": stats,
            "text_pct_of_full": text_pct,
            "diff_pct_of_full": _percent(stats["diff"]["median"], stats["full"]["median"]),
            "median_page_share_pct": {mode: round(100 * share, 1) for mode, share in shares.items()},
            "text_goal_met": text_pct is not None and text_pct <= 100 * TEXT_GOAL,
            "targets_unseen_in_text": unseen,
        }
    return {"full_every": full_every, "text_goal_pct": 100 * TEXT_GOAL, "replicas": by_replica}
