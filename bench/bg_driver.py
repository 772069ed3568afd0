"""Drives a support desk task through BrowserGym's BrowserEnv, for the side-by-side benchmark.

Runs inside `.venv-browsergym` (BrowserGym pins its own Playwright); of the project it
imports only the action grammar (verifiers/actions.py, standard library only), so an
action is read and written here exactly as the engine reads it. Reads one JSON document
on stdin:
  {"chromium": "/usr/bin/chromium", "instruction": "...",
   "episodes": [{"origin": "http://w-….localhost:PORT", "start_url": "...", "cookies": [...]}, ...],
   "actions": ["click(\"role=button[name='Save']\")", ...]}
and prints one JSON document with per-step and per-episode timings on stdout.

BrowserGym addresses elements only by its own `bid` attributes, so an action whose
element argument is a Playwright selector is rewritten to the bid BrowserGym stamped
on that element before the step (the lookup is not timed); relative `goto` paths are
made absolute. Everything else is BrowserGym's default behaviour.
"""

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project root, for the grammar

from verifiers.actions import ActionError, Goto, is_bid, parse_action  # noqa: E402

RESOLVE_TIMEOUT_MS = 2000


def translate(text: str, page, origin: str) -> str:
    """The same action, with selectors replaced by BrowserGym bids and paths made absolute."""
    try:
        action = parse_action(text)
    except ActionError:
        return text  # BrowserGym gets it as is and reports its own error
    if isinstance(action, Goto) and action.url.startswith("/"):
        return str(replace(action, url=origin + action.url))
    if not action.targets_element or is_bid(action.element):
        return text
    try:
        bid = page.locator(action.element).first.get_attribute("bid", timeout=RESOLVE_TIMEOUT_MS)
    except Exception:  # noqa: BLE001 - no such element: BrowserGym gets the action as is and fails it
        return text
    return text if bid is None else str(action.with_element(bid))


def run_episode(spec: dict, episode: dict) -> dict:
    from browsergym.core.env import BrowserEnv
    from browsergym.core.task import OpenEndedTask

    env = BrowserEnv(
        task_entrypoint=OpenEndedTask,
        task_kwargs={"start_url": episode["start_url"], "goal": spec["instruction"]},
        pw_chromium_kwargs={"executable_path": spec["chromium"]},
        pw_context_kwargs={"storage_state": {"cookies": episode["cookies"], "origins": []}},
    )
    steps, errors = [], []
    t0 = time.perf_counter()
    env.reset(seed=0)
    reset_ms = (time.perf_counter() - t0) * 1000
    try:
        for action in spec["actions"]:
            # the selector lookup is not part of BrowserGym's cost: translated before the clock starts
            translated = translate(action, env.unwrapped.page, episode["origin"])
            start = time.perf_counter()
            obs, _reward, _terminated, _truncated, _info = env.step(translated)
            steps.append((time.perf_counter() - start) * 1000)
            if obs.get("last_action_error"):
                errors.append({"action": translated, "error": obs["last_action_error"][:300]})
    finally:
        close_start = time.perf_counter()
        env.close()
        close_ms = (time.perf_counter() - close_start) * 1000
    return {
        "reset_ms": reset_ms,
        "steps_ms": steps,
        "close_ms": close_ms,
        "episode_ms": reset_ms + sum(steps) + close_ms,
        "errors": errors,
    }


def main():
    spec = json.load(sys.stdin)
    from importlib.metadata import version

    results = [run_episode(spec, episode) for episode in spec["episodes"]]
    json.dump(
        {
            "browsergym_version": version("browsergym-core"),
            "playwright_version": version("playwright"),
            "episodes": results,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
