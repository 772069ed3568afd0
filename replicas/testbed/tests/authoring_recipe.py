"""What an author does in the task editor to make a testbed task from scratch, with no code: read by the platform's
authoring test (tests/frontend/test_authoring_browser.py), which covers every installed replica. On the testbed the
reference solution is recorded by demonstration: `demonstrate` is what the author does in the recording tab."""

import re

from replicas.testbed.services import member_password


def demonstrate(rec, world, *, seed: int) -> str:
    """In the recording tab `rec` (the world in its frame `world`): sign in by typing, count the member's notes on
    the list. Returns the answer the author then sends from the bar."""
    member = re.search(r"How many notes does (.+) own\?", rec.get_by_test_id("instruction").inner_text()).group(1)
    world.locator("#id_email").click()
    rec.keyboard.type("member1@testbed.example")
    world.locator("#id_password").click()
    rec.keyboard.type(member_password(seed=seed, public_id=100))  # member1 of the draft's seed
    world.get_by_role("button", name="Sign in").click()
    world.get_by_role("heading", name="Notes").wait_for()
    owners = world.locator("tbody tr td:nth-child(3)").all_inner_texts()
    return str(owners.count(member))


RECIPE = {
    "title": "Count a member's notes",
    "record": "member",
    "table": "testbed.member",
    "where": "{}",
    "answer": "notes",
    "field": ("member_name", "member.name"),
    "aggregate": ("count", "testbed.note", None, '{"owner": "{member}"}'),
    "instruction": "How many notes does {member_name} own? Reply with the number only.",
    "start_page": "/notes",
    # the reference by demonstration: what the author does, and the kinds of the actions it records before the answer
    "demonstration": {"do": demonstrate, "actions": ["fill", "fill", "click"]},
}
