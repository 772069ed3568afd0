"""verifiers.placeholders.generalise_action: a recorded action's literals that are param values become placeholders."""

import pytest

from verifiers.placeholders import fill_text, generalise_action

PARAMS = {
    "email": "member1@testbed.example",
    "note": 12,
    "other": 3,
    "title": "Buy milk",
    "twin_a": "x1",
    "twin_b": "x1",
}


@pytest.mark.parametrize(
    "recorded, general",
    [
        ('fill("9", "member1@testbed.example")', 'fill("9", "{email}")'),
        ('click("12")', 'click("12")'),  # the element addressed is never a param, even when it looks like one
        ('goto("/notes/12")', 'goto("/notes/{note}")'),
        ('goto("/notes/123")', 'goto("/notes/123")'),  # a path segment only when it is the whole value
        ('send_msg_to_user("12")', 'send_msg_to_user("{note}")'),
        ('send_msg_to_user("Note Buy milk is done")', 'send_msg_to_user("Note {title} is done")'),
        ('send_msg_to_user("Buy milkshake")', 'send_msg_to_user("Buy milkshake")'),  # not at a word bound
        ('fill("4", "x1")', 'fill("4", "x1")'),  # two params share the value: ambiguous, kept
        ('send_msg_to_user("3 notes")', 'send_msg_to_user("3 notes")'),  # too short to replace inside a text
        ("not an action(", "not an action("),
        # a link named by a param's whole value is that seed's record; a button's name is the page's own
        ("click(\"role=link[name='Buy milk']\")", "click(\"role=link[name='{title}']\")"),
        ("click(\"role=button[name='Buy milk']\")", "click(\"role=button[name='Buy milk']\")"),
        ("click(\"role=link[name='Buy milk now']\")", "click(\"role=link[name='Buy milk now']\")"),
        (
            'fill("role=textbox[name=\'Email\']", "member1@testbed.example")',
            'fill("role=textbox[name=\'Email\']", "{email}")',
        ),
    ],
)
def test_typed_values_become_their_params_and_nothing_else_changes(recorded, general):
    assert generalise_action(recorded, PARAMS) == general


def test_a_generalised_action_filled_with_the_same_params_is_the_recording():
    for recorded in (
        'fill("9", "member1@testbed.example")',
        'goto("/notes/12")',
        'send_msg_to_user("Note Buy milk is done")',
    ):
        assert fill_text(generalise_action(recorded, PARAMS), PARAMS) == recorded
