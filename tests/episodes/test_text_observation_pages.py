"""Text mode on a real page of each replica, without a browser.

Each file of tests/episodes/fixtures/pages holds an observation the engine took while a replica's
reference solution played (the dict form, screenshot left out), that solution's next action and
the bid of the element it acts on. The pruned page must still show that element and every control
of the page with its bid, role and name, in at most 40 % of the full page's characters (issue 26's
goal, measured over whole solutions by `manage.py bench --only observations`).
"""

import json
import re
from pathlib import Path

import pytest

from episodes.engine.observation import INTERACTIVE_ROLES, prune_axtree, render_observation

PAGES = sorted((Path(__file__).parent / "fixtures" / "pages").glob("*.json"))
TEXT_GOAL = 0.40
# Below this many characters a page is mostly its header (URL, title): a sign-in form has nothing to cut.
CUTTABLE_CHARS = 2000
# A control's line in the full tree: its bid, role and quoted name.
# A select's option list, or the page's footer: what text mode does not list control by control.
SKIPPED = re.compile(r"^\t*(?:\[[^\]]+\] )?(?:MenuListPopup|contentinfo)\b")
CONTROL = re.compile(r"^\t*\[(?P<bid>[^\]]+)\] (?P<role>\S+)(?: (?P<name>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"))?")


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def controls(axtree: str) -> list[tuple[str, str, str]]:
    """(bid, role, quoted name) of each control of a full tree, but a native select's options, which
    text mode writes on their select's line (select_option takes them by label), and the page footer's
    links, which text mode leaves out (the same on every page)."""
    found, popup = [], None
    for line in axtree.splitlines():
        depth = len(line) - len(line.lstrip("\t"))
        if popup is not None and depth <= popup:
            popup = None
        if SKIPPED.match(line):
            popup = depth
        m = CONTROL.match(line)
        if m and popup is None and m["role"] in INTERACTIVE_ROLES:
            found.append((m["bid"], m["role"], m["name"] or ""))
    return found


def test_there_is_a_page_of_every_product_replica():
    assert {load(p)["replica"] for p in PAGES} >= {"board", "shop", "supportdesk"}


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_text_mode_shows_the_element_the_reference_solution_acts_on_next(path):
    page = load(path)
    text = render_observation(page["observation"], "text")
    assert f"[{page['target_bid']}] " in text, page["next_action"]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_text_mode_keeps_every_control_with_its_bid_role_and_name(path):
    axtree = load(path)["observation"]["axtree"]
    pruned = prune_axtree(axtree)
    found = controls(axtree)
    assert len(found) >= 3  # the page has controls, or this test would prove nothing
    for bid, role, name in found:
        assert f"[{bid}] {role}{' ' + name if name else ''}" in pruned, (bid, role, name)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_text_mode_is_at_most_40_percent_of_full_mode_on_a_page_worth_cutting(path):
    page = load(path)
    full, text = render_observation(page["observation"], "full"), render_observation(page["observation"], "text")
    if len(full) < CUTTABLE_CHARS:
        pytest.skip(f"{len(full)} characters: mostly the header")
    assert len(text) <= TEXT_GOAL * len(full), (len(text), len(full))
