"""The action parser takes any string: it returns an Action or raises ActionError, never anything else.

Fuzzed with hypothesis over random text and over mutations of valid BrowserGym
action strings (truncations such as `click(`, `fill("a",`, `scroll(1,`), and a
truncated action sent through the engine's step path is the step's error, not an
errored episode.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from episodes.creation import episode_create
from episodes.driver import EpisodeDriver
from episodes.models import Episode
from tests.episodes.browserless import BrowserlessSession
from verifiers import actions
from verifiers.actions import ActionError, parse_action

VALID = [
    'click("a51")',
    "click('b22', button=\"right\")",
    'click("48", button="middle", modifiers=["Shift", "Alt"])',
    'dblclick("12")',
    'hover("a3")',
    'fill("a12", "multi-line\\nexample")',
    "fill('a12', 'it\\'s')",
    'fill("a1", "caf\\u00e9 \\x41")',
    'clear("a9")',
    'select_option("c48", ["red", "green"])',
    'select_option("a48", "blue")',
    'check("a7")',
    'uncheck("a7")',
    'press("a26", "Control+a")',
    'focus("b1")',
    'drag_and_drop("56", "498")',
    'upload_file("63", ["a.pdf", "b.png"])',
    "scroll(0, 200)",
    "scroll(-50.2, -100.5)",
    'goto("/agent/tickets/8001")',
    "go_back()",
    "go_forward()",
    "new_tab()",
    "tab_focus(2)",
    "tab_close()",
    'send_msg_to_user("The refund is $12.50")',
    'report_infeasible("no such ticket")',
    "noop()",
    "noop(wait_ms=500)",
    "mouse_move(10, 20.5)",
    "mouse_click(887.2, 68)",
    "mouse_dblclick(56, 712.56, 'right')",
    "mouse_down(1, 2)",
    'mouse_up(1.5, -2, button="middle")',
    "mouse_drag_and_drop(1, 2, 3, 4)",
    'mouse_upload_file(5, 6, "a.pdf")',
    'keyboard_type("Hello world!")',
    'keyboard_insert_text("x")',
    'keyboard_press("Enter")',
    'keyboard_down("Shift")',
    'keyboard_up("Shift")',
    "click(\"role=button[name='Submit as Solved']\")",
    '  click( bid = "a1" , )  ',
]
# what mutations splice in: the grammar's own punctuation, quotes, escapes, and Python that must stay refused
PIECES = [
    "(",
    ")",
    "[",
    "]",
    ",",
    "=",
    "-",
    "+",
    '"',
    "'",
    "\\",
    "\\u",
    "\\x4",
    "\\N{",
    '"""',
    "\n",
    ";",
    "#",
    "*",
    "**",
    "__import__('os')",
    "lambda: 0",
    "0x",
    "1e400",
    "9" * 5000,
    "True",
    "None",
    "b'",
    "f'{",
    ".",
    ":=",
    "\x00",
    "\ud800",
    "é",
    "[" * 250,
    "-" * 300,
    "click(",
    'fill("a",',
]


def assert_action_or_action_error(text) -> None:
    try:
        action = parse_action(text)
    except ActionError as exc:
        assert str(exc), f"an empty error for {text!r}"
        return
    assert isinstance(action, actions.Action)
    assert parse_action(str(action)) == action, f"{text!r} does not round-trip through {action}"


MUTATIONS = ("truncate", "delete", "insert", "insert", "duplicate", "replace")
ALPHABET = "clikfl_()[],=-+'\"\\ \n0123456789.aexuTrue#;*"
BATCH = 100  # strings per hypothesis example: its per-example bookkeeping costs more than a parse


def mutated(rng, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        cut = rng.randint(0, len(text))
        how = rng.choice(MUTATIONS)
        if how == "truncate":
            text = text[:cut]
        elif how == "delete":
            text = text[:cut] + text[cut + rng.randint(1, 4) :]
        elif how == "insert":
            text = text[:cut] + rng.choice(PIECES) + text[cut:]
        elif how == "duplicate":
            text = text[:cut] + text[cut // 2 : cut] + text[cut:]
        else:
            text = text[:cut] + chr(rng.randint(0, 0x2FFFF)) + text[cut + 1 :]
    return text


def random_text(rng) -> str:
    if rng.random() < 0.5:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40)))
    return "".join(chr(rng.randint(0, 0x2FFFF)) for _ in range(rng.randint(0, 40)))


# no example database: CI draws fresh examples each run, and nothing is written into the work tree
FUZZ = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))


# sqlite_only (both fuzz tests): the parser alone, no database; PostgreSQL would draw the same kind of examples again
@pytest.mark.sqlite_only
@settings(FUZZ, max_examples=100)
@given(st.randoms())
def test_random_text_is_an_action_or_an_action_error(rng):
    for _ in range(BATCH):
        assert_action_or_action_error(random_text(rng))


@pytest.mark.sqlite_only
@settings(FUZZ, max_examples=250)
@given(st.randoms())
def test_mutated_valid_actions_are_an_action_or_an_action_error(rng):
    for _ in range(BATCH):
        assert_action_or_action_error(mutated(rng, rng.choice(VALID)))


def test_every_prefix_of_every_valid_action_is_an_action_or_an_action_error():
    for text in VALID:
        for end in range(len(text) + 1):
            assert_action_or_action_error(text[:end])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("click(", "missing ')' to close click("),
        ('fill("a",', "missing ')' to close fill("),
        ("scroll(1,", "missing ')' to close scroll("),
        ('click("a1', "unterminated string"),
        ("-" * 50_000 + "1", "not one action call"),
        ("[" * 300, "not one action call"),
        ("scroll(0x" + "f" * 300 + ", 0)", "finite number"),
        ("noop(1" + "0" * 5000 + ")", "not one action call"),
        ('click("a\\q")', "unknown escape \\q"),
        ('fill("a1", "\\ud800")', "not valid Unicode"),
        ('click("\x00")', "null bytes"),
    ],
)
def test_truncated_and_pathological_actions_raise_action_error_with_a_message(text, message):
    with pytest.raises(ActionError) as err:
        parse_action(text)
    assert message in str(err.value)


@pytest.mark.django_db
def test_truncated_actions_are_the_steps_error_and_the_episode_goes_on(test_pack):
    episode = episode_create(task="testbed.open-note", agent="replay", status=Episode.Status.RUNNING)
    driver = EpisodeDriver(episode)
    driver.session = BrowserlessSession()
    for text in ("click(", 'fill("a",', "scroll(1,"):
        obs, stop = driver.step(text)
        assert not stop and obs.last_action_error.startswith("invalid action: missing ')' to close")
    driver.step('send_msg_to_user("done")')
    steps = list(episode.steps.order_by("index").values_list("action", "error", "parsed"))
    assert [s[0] for s in steps] == ["click(", 'fill("a",', "scroll(1,", 'send_msg_to_user("done")']
    assert all("missing ')'" in error and parsed is None for _, error, parsed in steps[:3])
    assert steps[3][1] == "" and steps[3][2]["name"] == "send_msg_to_user"
    assert driver.session.executed == [actions.SendMsgToUser(text="done")]
    episode.refresh_from_db()
    assert episode.status == Episode.Status.RUNNING
