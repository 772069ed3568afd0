"""Drives a support desk task through BrowserGym's BrowserEnv, for the side-by-side benchmark.

Runs inside `.venv-browsergym` (BrowserGym pins its own Playwright), never imports the
project. Reads one JSON document on stdin:
  {"chromium": "/usr/bin/chromium", "instruction": "...",
   "episodes": [{"origin": "http://w-….localhost:PORT", "start_url": "...", "cookies": [...]}, ...],
   "actions": ["click(\"role=button[name='Save']\")", ...]}
and prints one JSON document with per-step and per-episode timings on stdout.

BrowserGym addresses elements only by its own `bid` attributes, so an action whose
element argument is a Playwright selector is rewritten to the bid BrowserGym stamped
on that element before the step (the lookup is not timed); relative `goto` paths are
made absolute. Everything else is BrowserGym's default behaviour.
"""
import ast
import json
import re
import sys
import time

RESOLVE_TIMEOUT_MS = 2000
BID = re.compile(r"^[a-z]{0,2}\d+$")
ELEMENT_ACTIONS = {"click", "dblclick", "hover", "fill", "clear", "select_option", "press", "focus", "check",
                   "uncheck", "upload_file", "drag_and_drop"}


def translate(action: str, page, origin: str) -> str:
    """The same action, with selectors replaced by BrowserGym bids and paths made absolute."""
    call = ast.parse(action.strip(), mode="eval").body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or not call.args:
        return action
    name = call.func.id
    first = call.args[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return action
    value = first.value
    if name == "goto" and value.startswith("/"):
        replacement = origin + value
    elif name in ELEMENT_ACTIONS and not BID.match(value):
        try:
            bid = page.locator(value).first.get_attribute("bid", timeout=RESOLVE_TIMEOUT_MS)
        except Exception:  # noqa: BLE001 - no such element: BrowserGym gets the action as is and fails it
            return action
        if bid is None:
            return action
        replacement = bid
    else:
        return action
    text = action.strip()
    start = first.col_offset
    end = first.end_col_offset
    return text[:start] + json.dumps(replacement) + text[end:]


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
    return {"reset_ms": reset_ms, "steps_ms": steps, "close_ms": close_ms,
            "episode_ms": reset_ms + sum(steps) + close_ms, "errors": errors}


def main():
    spec = json.load(sys.stdin)
    from importlib.metadata import version

    results = [run_episode(spec, episode) for episode in spec["episodes"]]
    json.dump({"browsergym_version": version("browsergym-core"), "playwright_version": version("playwright"),
               "episodes": results}, sys.stdout)


if __name__ == "__main__":
    main()
