"""Observation modes (full, text, diff; screenshots on or off) and the display URL, without a browser.

The browser side (no capture without screenshots, a reference solution played in text mode,
goto in display form) is in tests/browser/test_observation_modes.py.
"""

import re

import pytest

from episodes.creation import EpisodeError, episode_create
from episodes.engine.observation import (
    DISPLAY_ORIGIN,
    HANDLE_CHARS,
    OBSERVATION_MODES,
    Observation,
    display_url,
    observation_settings,
    prune_axtree,
    real_url,
    render_observation,
)
from episodes.models import Episode
from episodes.runs import RunError, run_create
from replicas.worlds.models import World

ORIGIN = "http://w-k3x9q.localhost:8123"

# What flatten_axtree writes for a small page: wrappers, a link whose text repeats its name,
# a cell whose text pieces repeat its name, a form, a hidden-from-nobody paragraph.
PAGE = "\n".join(
    [
        "RootWebArea 'Note #3'",
        "\t[1] banner",
        "\t\t[2] navigation 'Main'",
        "\t\t\t[3] link 'Notes'",
        "\t\t\t\tStaticText 'Notes'",
        "\t[4] main",
        "\t\t[5] heading 'Note #3 Groceries', level=1",
        "\t\t\tStaticText 'Note #3'",
        "\t\t\tStaticText 'Groceries'",
        "\t\t[6] table",
        "\t\t\t[7] rowgroup",
        "\t\t\t\t[8] row 'Status open'",
        "\t\t\t\t\t[9] cell 'Status'",
        "\t\t\t\t\t[10] cell 'open'",
        "\t\t[11] paragraph",
        "\t\t\tStaticText 'Milk, eggs and bread.'",
        "\t\t[12] form",
        "\t\t\t[13] LabelText",
        "\t\t\t\tStaticText 'Title'",
        "\t\t\t[14] textbox 'Title', value='Groceries'",
        "\t\t\t[15] checkbox 'Done', checked='false'",
        "\t\t\t[16] button 'Save'",
        "\t\t\t[17] generic",
        "\t\t\t\t[18] button",
        "\t\t\t[19] LabelText",
        "\t\t\t\tStaticText 'Owner'",
        "\t\t\t[20] combobox 'Owner', value='Ann', expanded=False",
        "\t\t\t\tMenuListPopup",
        "\t\t\t\t\t[21] option 'Ann', selected",
        "\t\t\t\t\t[22] option 'Bob'",
        "\t\t\t[23] combobox 'Reviewer', value='Bob', expanded=False",
        "\t\t\t\tMenuListPopup",
        "\t\t\t\t\t[24] option 'Ann'",
        "\t\t\t\t\t[25] option 'Bob', selected",
        "\t\t\t[26] radio 'Ship today — $9', checked='true'",
        "\t\t\t[27] LabelText",
        "\t\t\t\tStaticText 'Ship today'",
        "\t\t\t\tStaticText '— $9'",
        "\t\t[28] DescriptionList",
        "\t\t\t[29] term 'Total'",
        "\t\t\t[30] definition",
        "\t\t\t\tStaticText '$12.00'",
        "\t\t[31] image 'Ann Lee'",
        "\t\t\tStaticText 'AL'",
    ]
)


def observation(axtree=PAGE, **values) -> Observation:
    fields = {
        "url": f"{ORIGIN}/notes/3?tab=1",
        "title": "Note #3",
        "screenshot": b"",
        "axtree": axtree,
        "focused_bid": None,
        "tabs": [{"index": 0, "url": f"{ORIGIN}/notes/3?tab=1", "active": True}],
        "active_tab": 0,
        "instruction": "Rename note #3",
        "chat": [{"role": "user", "message": "Rename note #3"}],
        "step": 0,
        "elapsed_ms": 1.0,
        "origin": ORIGIN,
    }
    return Observation(**{**fields, **values})


def bids(text: str) -> set[str]:
    return set(re.findall(r"\[([a-z]{0,2}\d+)\]", text))


def test_text_mode_keeps_every_interactive_bid_and_all_text_and_drops_wrappers_and_repeats():
    pruned = prune_axtree(PAGE)
    # every interactive node keeps its bid (an unnamed button too); the select's options are on its line
    for bid in ("3", "14", "15", "16", "18", "20", "23", "26"):
        assert f"[{bid}]" in pruned
    for text in ("Milk, eggs and bread.", "'Title'", "Note #3 Groceries", "'Status' 'open'", "value='Groceries'"):
        assert text in pruned
    # unnamed wrappers (banner, main, table, rowgroup, paragraph, form, label, generic) and the root go;
    # a landmark keeps its name but not its bid, as nothing acts on it; a cell is its text, with no bid
    assert bids(pruned) == {"3", "5", "8", "14", "15", "16", "18", "20", "23", "26"}
    assert "navigation 'Main'" in pruned and "[2]" not in pruned
    assert "RootWebArea" not in pruned and "StaticText" not in pruned and "LabelText" not in pruned
    assert "cell" not in pruned and "level=" not in pruned
    # text said already is said once: 'Notes' by its link, the heading's pieces, the labels of the
    # textbox, the select and the radio, and the letters drawn in an image
    assert pruned.count("Notes") == 1 and pruned.count("Groceries") == 2  # the heading and the textbox value
    assert pruned.count("Owner") == 1 and pruned.count("Ship today") == 1 and "'AL'" not in pruned
    # children of a dropped wrapper move up: the form's fields sit at the top level, as the main's heading does
    assert "\n[14] textbox 'Title', value='Groceries'" in pruned and "\n[5] heading" in pruned
    assert "\t[3] link 'Notes'" in pruned  # under the kept navigation
    # states only when not the default; a native select's options on its line, the same list named once
    assert "\n[15] checkbox 'Done'\n" in pruned and "\n[26] radio 'Ship today — $9', checked" in pruned
    assert "[20] combobox 'Owner', value='Ann', options=Ann|Bob\n" in pruned
    assert "[23] combobox 'Reviewer', value='Bob', options=as [20]\n" in pruned
    assert "option" not in pruned.replace("options=", "")
    # a term and its definition read as one line of text, an image's name in it
    assert pruned.endswith("\n'Total' '$12.00' 'Ann Lee'")


PEOPLE = ("Ann Lee", "Bob Stone", "Carla Diaz", "Dan Wu", "Eve Park")
TABLE = "\n".join(
    [
        "RootWebArea 'Issues'",
        "\t[1] banner",
        "\t\t[2] link 'Home'",
        "\t\t\tStaticText 'Home'",
        "\t\t[3] navigation 'Breadcrumbs'",
        "\t\t\t[4] link 'Projects'",
        "\t\t\tStaticText '/'",
        "\t\t\t[5] link 'Web'",
        "\t\t[6] button 'Actions', expanded=False",
        "\t\t\tStaticText '···'",
        "\t\t[7] DisclosureTriangle 'Profile: Ann Lee', expanded=False",
        "\t\t\t[8] image 'Ann Lee'",
        "\t\t\t\tStaticText 'AL'",
        "\t[10] table",
        "\t\t[11] row",
        "\t\t\t[12] columnheader 'Select all'",
        "\t\t\t\t[13] checkbox 'Select all', focused, checked='false'",
        "\t\t\t[14] columnheader 'Status'",
        "\t\t\t\t[15] link 'Status'",
        "\t\t\t[16] columnheader 'Due'",
        "\t\t\t[17] columnheader 'Priority'",
        "\t\t[20] row 'Select WEB-4 Open Priority: High High'",
        "\t\t\t[21] cell 'Select WEB-4'",
        "\t\t\t\t[22] checkbox 'Select WEB-4', checked='false'",
        "\t\t\t[23] cell 'Open'",
        "\t\t\t[24] cell",
        "\t\t\t[25] cell 'Priority: High High'",
        "\t\t\t\t[26] image 'Priority: High'",
        "\t\t\t\tStaticText 'High'",
        "\t\t\t[27] cell",
        "\t[30] group 'Assignee'",
        "\t\t[31] combobox 'Assignee', value='Ann Lee', expanded=False",
        "\t\t\tMenuListPopup",
        *[f"\t\t\t\t[{40 + i}] option '{name}'" for i, name in enumerate(PEOPLE)],
        "\t\t[32] combobox 'Reviewer', value='-', focused, expanded=False",
        "\t\t\tMenuListPopup",
        *[f"\t\t\t\t[{50 + i}] option '{name}'" for i, name in enumerate(("-", *PEOPLE))],
        "\t\t[33] combobox 'Watcher', value='-', expanded=False",
        "\t\t\tMenuListPopup",
        *[f"\t\t\t\t[{60 + i}] option '{name}'" for i, name in enumerate(("-", *PEOPLE[::-1]))],
        "\t[70] group 'Due date'",
        "\t\t[71] textbox 'Due date'",
    ]
)


def test_text_mode_writes_tables_as_rows_of_text_and_drops_glyphs_separators_and_echoes():
    pruned = prune_axtree(TABLE)
    # cells and headers are their text, run on one line per row, an empty one as '' but at the end;
    # the controls in them keep their bids, a header's sort link as well
    # the controls in them keep their bids, a header's sort link as well; a row of leaves is one line
    assert "\n[11] row [13] checkbox 'Select all', focused [15] link 'Status' 'Due' 'Priority'\n" in pruned
    assert "\n[20] row [22] checkbox 'Select WEB-4' 'Open' '' 'Priority: High'\n" in pruned
    assert not {"12", "14", "16", "17", "21", "23", "24", "25", "27"} & bids(pruned)
    # a breadcrumb's separator, a control's glyph, an avatar that repeats its control's name: gone;
    # a closed disclosure or select says nothing of it
    assert "'/'" not in pruned and "···" not in pruned and "image" not in pruned
    assert "[6] button 'Actions', expanded=False\n[7] DisclosureTriangle 'Profile: Ann Lee'\n" in pruned
    # a group around its one field of the same name goes, the field says it all
    assert pruned.endswith("\n[71] textbox 'Due date'") and "group 'Due date'" not in pruned
    # long option lists: a count, how to see them said once; all of them while the select has the focus
    assert "[31] combobox 'Assignee', value='Ann Lee', 5 options (focus to list)\n" in pruned
    assert (
        "[32] combobox 'Reviewer', value='-', focused, options=-|Ann Lee|Bob Stone|Carla Diaz|Dan Wu|Eve Park\n"
        in pruned
    )
    assert "[33] combobox 'Watcher', value='-', 6 options\n" in pruned


def test_text_mode_drops_the_footer_and_text_a_control_or_heading_already_says():
    page = "\n".join(
        [
            "RootWebArea 'Cart'",
            "\t[1] main",
            "\t\t[2] button 'Save Lantern Mug for later'",
            "\t\t\tStaticText 'Save for later'",
            "\t\t[3] button 'Gift options'",
            "\t\t\tStaticText 'Add a gift note'",
            "\t\t[4] button",
            "\t\t\tStaticText '×'",
            "\t\t[10] heading '4 out of 5 stars Love it', level=3",
            "\t\t\t[11] generic '4 out of 5 stars'",
            "\t[5] contentinfo",
            "\t\t[6] heading 'Get to Know Us', level=2",
            "\t\t[7] link 'Your Orders'",
            "\t\t[8] paragraph",
            "\t\t\tStaticText '© 2026 Bazaaro'",
            "\t[9] link 'After the footer'",
        ]
    )
    pruned = prune_axtree(page)
    # the visible words of a control whose name holds them all go; words its name lacks stay, and so does
    # the only text of an unnamed control
    assert pruned.startswith(
        "[2] button 'Save Lantern Mug for later'\n[3] button 'Gift options'\n\t'Add a gift note'\n"
    )
    assert "[4] button\n\t'×'\n[10] heading '4 out of 5 stars Love it'\n" in pruned
    assert "[11]" not in pruned  # a labelled span that repeats its heading's words
    # the footer goes whole, its links too; what follows it stays
    assert "Know Us" not in pruned and "[7]" not in pruned and "2026" not in pruned
    assert pruned.endswith("\n[9] link 'After the footer'")


def test_text_mode_drops_the_sites_name_from_the_banners_text_but_never_from_a_control():
    page = "\n".join(
        [
            "RootWebArea 'Note #1 – Testbed Notes', focused",
            "\t[1] banner",
            "\t\tStaticText 'Testbed Notes'",
            "\t\tStaticText 'Testbed Notes · Brandi Smith'",
            "\t\tStaticText 'Testbed Notes Weekly'",
            "\t\t[2] link 'Testbed Notes'",
            "\t[3] main",
            "\t\t[4] heading 'Note #1', level=1",
            "\t\tStaticText 'Testbed Notes'",
        ]
    )
    pruned = prune_axtree(page)
    # the wordmark goes; text that begins with it keeps the rest, text that only shares its first words stays
    assert pruned.startswith("'Brandi Smith' 'Testbed Notes Weekly'\n[2] link 'Testbed Notes'\n")
    # outside the banner the site's name is text like any other
    assert pruned.endswith("[4] heading 'Note #1'\n'Testbed Notes'")
    # a title without a separator names no site: nothing is cut
    plain = prune_axtree(page.replace("Note #1 – Testbed Notes", "Testbed Notes"))
    assert plain.startswith("'Testbed Notes' 'Testbed Notes · Brandi Smith'")
    # names with quotes are taken as the strings they are, and the rest quoted as any name is
    quoted = prune_axtree(
        'RootWebArea "Home – Bob\'s Shop"\n\t[1] banner\n\t\tStaticText "Bob\'s Shop · Ann\'s \\"desk\\""'
    )
    assert quoted == repr('Ann\'s "desk"')
    # a malformed name (a tree from an observation's dict form) is cut as the text it shows, never an error
    assert prune_axtree("RootWebArea 'Home – Shop'\n\t[1] banner\n\t\tStaticText 'Shop · \\x'") == repr("\\x")
    # nor is a site's name cut from the middle of a banner's text
    assert "'Welcome to Tracklane'" in prune_axtree(
        "RootWebArea 'Issues - Tracklane'\n\t[1] banner\n\t\tStaticText 'Welcome to Tracklane'"
    )


def test_text_mode_names_the_focused_element_once():
    focused = observation(TABLE, focused_bid="13")
    text, full = render_observation(focused, "text"), render_observation(focused, "full")
    assert "Focused: [13]" in full and "Focused:" not in text and "[13] checkbox 'Select all', focused" in text
    # an element the pruned page does not show (a cell) is still named in the header
    assert "Focused: [24]" in render_observation(observation(TABLE, focused_bid="24"), "text")


def test_text_mode_keeps_the_bids_of_list_items_and_rows_which_cards_are_dragged_by():
    board = "[1] list\n\t[2] listitem, level=1\n\t\tStaticText 'AGENT-4 Fix login'\n\t[3] listitem, level=1"
    assert prune_axtree(board) == "[2] listitem 'AGENT-4 Fix login'\n[3] listitem"
    # an item with more inside than leaves, or whose line would be too long, keeps a line a piece
    nested = board + "\n\t\t[4] group 'Actions'\n\t\t\t[5] button 'Edit'\n\t\t\t[6] button 'Delete'"
    assert prune_axtree(nested).endswith(
        "[3] listitem\n\tgroup 'Actions'\n\t\t[5] button 'Edit'\n\t\t[6] button 'Delete'"
    )
    # an item that is one control is that control: nothing drags a menu's link by its item
    assert prune_axtree("[1] list\n\t[2] listitem, level=1\n\t\t[3] link 'Books'") == "[3] link 'Books'"
    long = board.replace("Fix login", "Fix login " + "x" * HANDLE_CHARS)
    assert prune_axtree(long).startswith("[2] listitem\n\t'AGENT-4 Fix login x")


def test_text_mode_is_shorter_than_full_and_keeps_the_header():
    full = render_observation(observation(), "full")
    text = render_observation(observation(), "text")
    assert full.endswith(PAGE) and PAGE not in text
    assert len(text) < 0.7 * len(full)
    assert full.splitlines()[:2] == ["URL: http://world.test/notes/3?tab=1", "Title: Note #3"]
    # the title is the heading's words ('Note #3 Groceries'): text mode does not say it twice; another is kept
    # text mode is always the whole page: a blank line, not a label, ends its header
    assert text.splitlines()[:3] == ["URL: http://world.test/notes/3?tab=1", "", "navigation 'Main'"]
    assert "Page:" not in text
    other = render_observation(observation(title="Shopping list – Notes"), "text")
    assert other.splitlines()[1] == "Title: Shopping list – Notes"
    inside = render_observation(observation(title="Note #3 Groceries – Testbed Notes"), "text")
    assert "Title:" not in inside


def test_the_header_names_no_world_origin_so_two_worlds_give_equal_text():
    error = f"goto('http://evil.test/') was refused: only pages of this world ({ORIGIN}) can be opened"
    two_tabs = [
        {"index": 0, "url": f"{ORIGIN}/notes", "active": False},
        {"index": 1, "url": f"{ORIGIN}/notes/3", "active": True},
    ]
    chat = [{"role": "user", "message": "x"}, {"role": "info", "message": f"confirm dialog: leave {ORIGIN}/notes?"}]
    texts = []
    for origin in (ORIGIN, "http://w-zz81.localhost:9001"):
        obs = observation(
            url=f"{origin}/notes/3",
            origin=origin,
            tabs=[{**t, "url": t["url"].replace(ORIGIN, origin)} for t in two_tabs],
            last_action_error=error.replace(ORIGIN, origin),
            chat=[chat[0], {**chat[1], "message": chat[1]["message"].replace(ORIGIN, origin)}],
            focused_bid="14",
        )
        for mode in OBSERVATION_MODES:
            texts.append(render_observation(obs, mode))
    assert texts[:3] == texts[3:]
    header = texts[0].split("\nPage:")[0]
    assert "w-" not in header and "localhost" not in header
    assert "\t1: http://world.test/notes/3 (active)" in header and "Focused: [14]" in header
    assert "only pages of this world (http://world.test)" in header
    assert "Page said: confirm dialog: leave http://world.test/notes?" in header
    assert "Rename note #3" not in texts[0]  # the instruction is the prompt's, given once


def test_diff_mode_gives_the_whole_page_every_n_steps_and_only_changes_in_between():
    before = PAGE
    after = PAGE.replace("checkbox 'Done', checked='false'", "checkbox 'Done', checked='true'")
    after += "\n\t\t[40] paragraph\n\t\t\tStaticText 'Saved'"
    # the whole page is text mode's, labelled so that it is not taken for a change
    whole = whole_in_diff_mode(render_observation(observation(after), "text"))
    assert "\nPage:\nnavigation 'Main'\n" in whole
    for step in (0, 3, 6):  # every 3rd step, the whole pruned page
        assert render_observation(observation(after), "diff", before, step=step, full_every=3) == whole
    assert render_observation(observation(after), "diff", None, step=4, full_every=3) == whole  # nothing to diff
    diff = render_observation(observation(after), "diff", before, step=4, full_every=3)
    assert diff.endswith(
        "Page changes since the last step (- gone, + new; the whole page every 3 steps):\n"
        "-[15] checkbox 'Done'\n"
        "+[15] checkbox 'Done', checked\n"
        "+'Saved'"
    )
    assert "[16] button 'Save'" not in diff  # unchanged lines are not repeated
    quiet = render_observation(observation(before), "diff", before, step=1)
    assert quiet.endswith("\n(nothing changed)")


def test_diff_mode_sends_the_whole_page_when_the_change_is_no_shorter():
    other = "RootWebArea 'Other'\n\t[40] link 'Elsewhere'"
    new_page = render_observation(observation(other), "diff", PAGE, step=1)
    assert new_page == whole_in_diff_mode(render_observation(observation(other), "text"))


def whole_in_diff_mode(text: str) -> str:
    """Text mode's page as diff mode gives it whole: its header ends with 'Page:' rather than a blank line."""
    header, blank, page = text.partition("\n\n")
    assert blank, "text mode's header ends with a blank line"
    return f"{header}\nPage:\n{page}"


def test_display_url_round_trips_and_leaves_other_origins_alone():
    url = f"{ORIGIN}/notes/3?q=a%20b#top"
    shown = display_url(url, ORIGIN)
    assert shown == f"{DISPLAY_ORIGIN}/notes/3?q=a%20b#top"
    assert real_url(shown, ORIGIN) == url
    assert display_url(ORIGIN, ORIGIN) == DISPLAY_ORIGIN + "/"
    assert real_url("http://WORLD.test:80/a", ORIGIN) == f"{ORIGIN}/a"
    # another origin is neither hidden nor mapped onto the world, so the engine still refuses it
    for other in (
        "http://evil.test/notes",
        "http://world.test:8080/x",
        "https://world.test/x",
        "about:blank",
        "/notes/3",
    ):
        assert display_url(other, ORIGIN) == other
        assert real_url(other, ORIGIN) == other
    assert display_url(f"{ORIGIN}/x", "") == f"{ORIGIN}/x"


@pytest.mark.parametrize(
    "given, message",
    [
        ({"mode": "pixels"}, "unknown observation mode 'pixels' (modes: full, text, diff)"),
        ({"mode": "text", "colour": 1}, "unknown observation setting 'colour'"),
        ({"screenshots": "no"}, "'screenshots' must be true or false"),
        ({"full_every": True}, "'full_every' must be a whole number"),
        ({"full_every": 0}, "'full_every' must be from 1 to 100"),
        ({"mode": 3}, "'mode' must be a string"),
        ("text", "must be a JSON object"),
    ],
)
def test_bad_observation_settings_are_refused_with_what_is_wrong(given, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        observation_settings({"observation": given})


def test_agent_settings_that_are_no_object_are_refused():
    with pytest.raises(ValueError, match="agent settings must be a JSON object"):
        observation_settings(["observation"])


def test_observation_settings_default_to_full_with_screenshots():
    assert observation_settings({}) == observation_settings({"timeout": 3}) == observation_settings(None)
    found = observation_settings({"observation": {"mode": "diff", "screenshots": False, "full_every": 7}})
    assert (found.mode, found.screenshots, found.full_every) == ("diff", False, 7)
    assert observation_settings({}).mode == "full" and observation_settings({}).screenshots is True


def test_render_refuses_a_bad_mode_or_step_count():
    with pytest.raises(ValueError, match="unknown observation mode 'tree'"):
        render_observation(observation(), "tree")
    with pytest.raises(ValueError, match="full_every"):
        render_observation(observation(), "diff", PAGE, full_every=0)


def test_render_takes_the_dict_form_too():
    obs = observation()
    as_dict = {**obs.to_dict(screenshot=False), "origin": ORIGIN}
    for mode in OBSERVATION_MODES:
        assert render_observation(as_dict, mode, PAGE, step=1) == render_observation(obs, mode, PAGE, step=1)


@pytest.mark.django_db
def test_runs_and_episodes_take_a_checked_observation_mode(test_pack):
    setting = {"observation": {"mode": "text", "screenshots": False}}
    run = run_create(task_filter="testbed.open-note", agent="oracle", agent_settings=setting)
    assert run.agent_settings == setting
    worlds = World.objects.count()
    with pytest.raises(RunError, match="unknown observation mode 'tiny'"):
        run_create(task_filter="testbed.open-note", agent="oracle", agent_settings={"observation": {"mode": "tiny"}})
    with pytest.raises(EpisodeError, match="unknown observation setting 'size'"):
        episode_create(task="testbed.open-note", agent="oracle", agent_settings={"observation": {"size": 1}})
    assert World.objects.count() == worlds and Episode.objects.count() == 0
