"""A recorded step keeps the recorder's robust selector (role and name, #id) with its bid action; a demonstration
pulled into a task's reference names its elements by it, so the reference holds on seeds where the bids differ."""

import re
from html import unescape

import pytest
from replicagym.annotation.services import item_claim, recording_start

from replicas.worlds.recording import RECORDING_PREFIX, recording_start_url, recording_token
from tests.frontend.test_demonstration import DRAFT, PULL, start

pytestmark = pytest.mark.django_db


def _post_step(client, recording, body):
    world = recording.world
    host = f"w-{world.token}.localhost:8000"
    link = recording_start_url(world=world, session=recording.pk, port=8000).split(":8000", 1)[1]
    assert client.get(link, HTTP_HOST=host).status_code == 302
    return client.post(
        RECORDING_PREFIX + "steps",
        body,
        content_type="application/json",
        HTTP_HOST=host,
        HTTP_X_RECORDING_TOKEN=recording_token(world=world, session=recording.pk),
    )


@pytest.fixture
def recording(people, item):
    item_claim(item_id=item.pk, user=people["annie"])
    return recording_start(item_id=item.pk, user=people["annie"])


def test_a_step_keeps_its_robust_selector_and_a_bad_one_is_refused_changing_nothing(client, recording):
    ok = _post_step(client, recording, {"action": 'click("a12")', "selector": "role=button[name='Sign in']"})
    assert ok.status_code == 200, ok.content
    assert _post_step(client, recording, {"action": 'fill("a14", "x")', "selector": "#id_email"}).status_code == 200
    assert _post_step(client, recording, {"action": "scroll(0, 300)"}).status_code == 200
    refused = {
        "not a form the recorder makes": ('click("a12")', "css=button >> nth=0"),
        "a bid is no alternative": ('click("a12")', "a13"),
        "an unclosed name": ('click("a12")', "role=button[name='Sign in]"),
        "a role the recorder never gives": ('click("a12")', "role=heading[name='Notes']"),
        "an id with a record's number": ('click("a12")', "#ticket-8003"),
        "an action with no element": ("scroll(0, 300)", "#id_email"),
        "a drag addresses two elements": ('drag_and_drop("a1", "a2")', "#id_email"),
        "not a string": ('click("a12")', ["#id_email"]),
    }
    for case, (action, selector) in refused.items():
        answer = _post_step(client, recording, {"action": action, "selector": selector})
        assert answer.status_code == 400, case
        assert "selector" in answer.json()["error"], (case, answer.json())
    steps = list(recording.steps.order_by("index").values_list("action", "selector"))
    assert steps == [
        ('click("a12")', "role=button[name='Sign in']"),
        ('fill("a14", "x")', "#id_email"),
        ("scroll(0, 300)", ""),
    ]
    # a double click that takes the click's place takes its selector too
    replaced = {"action": 'dblclick("a12")', "selector": "role=link[name='Notes']", "replace": True}
    assert _post_step(client, recording, replaced).status_code == 200
    assert recording.steps.order_by("-index").values_list("action", "selector")[0] == (
        'dblclick("a12")',
        "role=link[name='Notes']",
    )


@pytest.fixture
def author(client, author_user):
    client.force_login(author_user)
    return client


def test_the_pulled_reference_names_elements_by_their_robust_selector_where_the_recorder_found_one(author):
    from replicagym.annotation.services import recording_step_add

    recording, _link = start(author)
    recording_step_add(recording=recording, action='fill("9", "someone")', selector="role=textbox[name='Email']")
    recording_step_add(recording=recording, action='click("12")', selector="role=button[name='It\\'s mine']")
    recording_step_add(recording=recording, action='click("13")')  # none found: the bid stays
    html = unescape(
        author.post(PULL, {**DRAFT, "demonstration": str(recording.pk), "pull_into": "reference"}).content.decode()
    )
    reference = re.search(r'name="l:reference_solution"[^>]*>([^<]*)</textarea>', html).group(1)
    assert reference.split("\n") == [
        'fill("role=textbox[name=\'Email\']", "someone")',
        "click(\"role=button[name='It\\\\'s mine']\")",
        'click("13")',
    ]
