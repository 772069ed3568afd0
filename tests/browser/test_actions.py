"""The action grammar: what parses, to what, and what is refused with which message."""

import pytest

from verifiers import actions
from verifiers.actions import ActionError, parse_action


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('click("a51")', actions.Click(bid="a51")),
        ("click('b22', button=\"right\")", actions.Click(bid="b22", button="right")),
        (
            'click("48", button="middle", modifiers=["Shift"])',
            actions.Click(bid="48", button="middle", modifiers=("Shift",)),
        ),
        ('dblclick("12")', actions.DblClick(bid="12")),
        ('fill("a12", "multi-line\\nexample")', actions.Fill(bid="a12", value="multi-line\nexample")),
        ('fill(\'a12\', "with \\"quotes\\"")', actions.Fill(bid="a12", value='with "quotes"')),
        ("fill('a12', 'it\\'s')", actions.Fill(bid="a12", value="it's")),
        ('fill("a1", "caf\\u00e9 \\x41")', actions.Fill(bid="a1", value="café A")),
        ('select_option("a48", "blue")', actions.SelectOption(bid="a48", options="blue")),
        (
            'select_option("c48", ["red", "green", "blue"])',
            actions.SelectOption(bid="c48", options=("red", "green", "blue")),
        ),
        ('press("a26", "Control+a")', actions.Press(bid="a26", key_comb="Control+a")),
        ("scroll(0, 200)", actions.Scroll(delta_x=0.0, delta_y=200.0)),
        ("scroll(-50.2, -100.5)", actions.Scroll(delta_x=-50.2, delta_y=-100.5)),
        ('drag_and_drop("56", "498")', actions.DragAndDrop(from_bid="56", to_bid="498")),
        ('goto("/agent/tickets/8001")', actions.Goto(url="/agent/tickets/8001")),
        ("go_back()", actions.GoBack()),
        ("tab_focus(2)", actions.TabFocus(index=2)),
        ("noop()", actions.Noop()),
        ("noop(500)", actions.Noop(wait_ms=500.0)),
        ("mouse_click(887.2, 68)", actions.MouseClick(x=887.2, y=68.0)),
        ("mouse_click(56, 712.56, 'right')", actions.MouseClick(x=56.0, y=712.56, button="right")),
        ("mouse_drag(1, 2, 3, 4)", actions.MouseDragAndDrop(from_x=1.0, from_y=2.0, to_x=3.0, to_y=4.0)),
        ('keyboard_type("Hello world!")', actions.KeyboardType(text="Hello world!")),
        ('send_msg_to_user("The refund is $12.50")', actions.SendMsgToUser(text="The refund is $12.50")),
        ('report_infeasible("no such ticket")', actions.ReportInfeasible(reason="no such ticket")),
        ('  click( bid = "a1" , )  ', actions.Click(bid="a1")),
        ('click("a1") # a comment, as Python allows', actions.Click(bid="a1")),
        ('upload_file("63", ["a.pdf", "b.png"])', actions.UploadFile(bid="63", file=("a.pdf", "b.png"))),
    ],
)
def test_browsergym_action_strings_parse_to_typed_actions(text, expected):
    assert parse_action(text) == expected


def test_canonical_text_round_trips():
    for text in [
        'click("a1", button="right", modifiers=["Shift", "Alt"])',
        'fill("#q", "a\\"b\\\\c\\n")',
        'select_option("role=combobox[name=\'Priority\']", ["Low", "High"])',
        "noop(250)",
        'mouse_up(1.5, -2, button="middle")',
        "tab_focus(0)",
    ]:
        action = parse_action(text)
        assert parse_action(str(action)) == action


def test_element_argument_is_a_bid_or_else_a_selector():
    assert actions.is_bid("a12") and actions.is_bid("12") and actions.is_bid("ab3")
    assert not actions.is_bid("abc1") and not actions.is_bid("#q") and not actions.is_bid("role=button[name='Submit']")
    assert (
        parse_action("click(\"role=button[name='Submit as Solved']\")").element
        == "role=button[name='Submit as Solved']"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('click("a1"); __import__("os")', "send exactly one action per step"),
        ('__import__("os").system("ls")', "an action starts with a function name"),
        ('click("a1")\nclick("a2")', "send exactly one action per step"),
        ("click(a1)", "'a1' at column 7 is not a literal"),
        ('click(getattr("x", "y"))', "'getattr' at column 7 is not a literal"),
        ("click(*args)", "*arguments are not allowed"),
        ('click(**{"bid": "a1"})', "**arguments are not allowed"),
        ('click(f"a{1}")', "is not a literal"),
        ('click(b"a1")', "is not a literal"),
        ('clik("a1")', "unknown action 'clik'"),
        ("click()", "missing argument 'bid'"),
        ('click("a1", "right", [], 4)', "takes at most 3 argument(s), got 4"),
        ('fill("a1", 3)', "argument 'value' must be a string, not an integer"),
        ('click("a1', "unterminated string starting at column 7"),
        ('click("a1"', "missing ')' to close click("),
        ("", "empty action"),
        ("   ", "empty action"),
        ("noop(99999)", "from 0 to 10000 milliseconds"),
        ("tab_focus(-1)", "must be 0 or more"),
        ("tab_focus(1.5)", "must be an integer"),
        ('click("a1", button="top")', "must be one of 'left', 'middle', 'right'"),
        ('click("")', "must not be empty"),
        ("scroll(1e400, 0)", "finite number"),
        ('click(bid="a1", bid="a2")', "got argument 'bid' twice"),
        ('fill("a1", "x", value="y")', "got argument 'value' twice"),
        ('click(x="a1")', "has no argument 'x'"),
        ('fill(value="v", "a1")', "positional argument after a keyword argument"),
        ('click("a1", modifiers=["Hyper"])', "'Hyper' is not one of"),
        ('click("\\q")', "unknown escape \\q"),
        ('fill("a1", "\\u12")', "bad \\u escape"),
        ("noop(True)", "must be a number, not a boolean"),
        ('select_option("a1", ["x", 2])', "a string or a list of strings"),
        ('fill("a1", "line\nbreak")', "a newline inside quotes"),
        ("click", "expected '(' after click"),
        ("(1)", "an action starts with a function name"),
    ],
)
def test_malformed_actions_are_refused_with_a_clear_message(text, message):
    with pytest.raises(ActionError) as err:
        parse_action(text)
    assert message in str(err.value)


def test_non_string_and_oversized_actions_are_refused():
    with pytest.raises(ActionError, match="an action is a string"):
        parse_action(None)
    with pytest.raises(ActionError, match="longer than"):
        parse_action('fill("a1", "' + "x" * actions.MAX_ACTION_CHARS + '")')


def test_every_action_has_a_signature_for_prompts():
    assert actions.signature("click") == 'click(bid, button="left", modifiers=[])'
    assert actions.signature("mouse_drag_and_drop") == "mouse_drag_and_drop(from_x, from_y, to_x, to_y)"
    assert len(actions.ACTIONS) == 34
