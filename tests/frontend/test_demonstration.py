"""Reference solutions and negative examples recorded by demonstration, from the editor (no browser): who may, what
the recording tab is given, the actions pulled into the form and validated like typed ones, and refusals that change
nothing."""

import re
from html import unescape
from urllib.parse import urlparse

import pytest
from replicagym.accounts.roles import Role, role_grant
from replicagym.annotation.models import Item, Recording
from replicagym.annotation.services import item_claim, items_create, recording_start, recording_step_add

from replicas.worlds.models import World
from replicas.worlds.recording import COOKIE, RECORDING_PREFIX
from replicas.worlds.registry import replicas

pytestmark = pytest.mark.django_db

# A valid testbed draft as the editor posts it (frontend.editor.codec): how many notes a member owns.
DRAFT = {
    "s:replica": "testbed",
    "s:variant": "small",
    "i:seed": "7",
    "s:difficulty": "easy",
    "s:title": "Count a member's notes",
    "s:slug": "member-notes",
    "s:params[0].name": "member",
    "kind:params[0]": "pick",
    "s:params[0].pick.table": "testbed.member",
    "j:params[0].pick.where": "{}",
    "e:params[0].pick.choose": '"seeded"',
    "s:params[1].name": "member_name",
    "kind:params[1]": "field",
    "s:params[1].field": "member.name",
    "s:params[2].name": "notes",
    "kind:params[2]": "aggregate",
    "e:params[2].aggregate.op": '"count"',
    "s:params[2].aggregate.table": "testbed.note",
    "j:params[2].aggregate.where": '{"owner": "{member}"}',
    "s:instruction": "How many notes does {member_name} own? Reply with the number only.",
    "s:start_page": "/notes",
    "e:faults[0].name": '"slow_response"',
    "i:faults[0].params.delay_ms": "200",
    "e:verifier.assertions[0].kind": '"answer"',
    "s:verifier.assertions[0].name": "the reply is the count",
    "e:verifier.assertions[0].type": '"number"',
    "v:verifier.assertions[0].expected": "{notes}",
    "l:reference_solution": 'send_msg_to_user("{notes}")',
}
RECORDED = ['fill("9", "member1@testbed.example")', 'click("12")', 'send_msg_to_user("3")']
START = "/tasks/editor/demonstration/"
PULL = "/tasks/editor/demonstration/pull/"


@pytest.fixture
def author(client, author_user):
    client.force_login(author_user)
    return client


def start(client, **changes) -> tuple[Recording, str]:
    html = client.post(START, {**DRAFT, **changes}).content.decode()
    recording = Recording.objects.order_by("-pk").first()
    link = re.search(r'href="([^"]+)" target="_blank" rel="noopener" data-testid="demonstration-link"', html)
    return recording, unescape(link.group(1)) if link else html


def test_an_author_records_in_a_fresh_world_of_the_draft_and_the_tab_gets_the_recorder(author, author_user):
    recording, link = start(author)
    assert recording.is_demonstration and recording.annotator == author_user and not Item.objects.exists()
    world = recording.world
    assert (world.replica, world.variant, world.seed, world.is_template) == ("testbed", "small", 7, False)
    assert [f["name"] for f in world.faults] == ["slow_response"]  # the draft's faults, armed as in its episodes
    # the instruction is filled from the draft's answer key on its seed
    assert "{member_name}" not in recording.brief["instruction"] and recording.brief["instruction"].startswith(
        "How many notes does "
    )
    assert recording.brief == {
        **recording.brief,
        "title": "Count a member's notes",
        "task_id": "testbed.member-notes",
        "start_page": "/notes",
    }

    url = urlparse(link)
    assert url.path == RECORDING_PREFIX + "start"
    answer = author.get(f"{url.path}?{url.query}", HTTP_HOST=url.netloc)
    assert answer.status_code == 302 and answer.url == RECORDING_PREFIX
    bar = author.get(
        RECORDING_PREFIX, HTTP_HOST=url.netloc, HTTP_COOKIE=f"{COOKIE}={answer.cookies[COOKIE].value}"
    ).content.decode()
    assert recording.brief["instruction"] in unescape(bar) and 'src="/notes"' in bar
    assert "pull its actions in the editor" in bar and "Submit recording" not in bar


def test_recorded_actions_are_pulled_into_the_reference_or_a_new_negative_and_validated(author):
    recording, _link = start(author)
    for action in RECORDED:
        recording_step_add(recording=recording, action=action)
    response = author.post(PULL, {**DRAFT, "demonstration": str(recording.pk), "pull_into": "reference"})
    html = unescape(response.content.decode())
    assert response.status_code == 200 and response["HX-Trigger-After-Settle"] == "editorChanged"
    reference = re.search(r'name="l:reference_solution"[^>]*>([^<]*)</textarea>', html).group(1)
    assert reference.split("\n") == RECORDED
    assert f'name="demonstration" value="{recording.pk}"' in html  # the panel stays for the next pull
    assert f"Pulled 3 actions of demonstration {recording.pk} into the reference solution." in html

    response = author.post(PULL, {**DRAFT, "demonstration": str(recording.pk), "pull_into": "negative"})
    html = unescape(response.content.decode())
    assert f'value="recorded demonstration {recording.pk}"' in html
    negative = re.search(r'name="l:negative_examples\[0\].actions"[^>]*>([^<]*)</textarea>', html).group(1)
    assert negative.split("\n") == RECORDED
    assert "send_msg_to_user(&quot;{notes}&quot;)" in response.content.decode()  # the typed reference stays

    # the pulled actions are checked like typed ones: this draft is valid with them
    pulled = {
        **DRAFT,
        "l:reference_solution": reference,
        "s:negative_examples[0].name": "recorded",
        "l:negative_examples[0].actions": negative,
    }
    assert 'data-testid="problem-count">Valid' in author.post("/tasks/editor/validate/", pulled).content.decode()
    assert recording.steps.count() == 3 and recording.status == Recording.Status.RECORDING


def test_only_authors_and_admins_may_record_or_pull(
    client, author, annotator_user, admin_user, agent_token, django_user_model
):
    recording, _link = start(author)
    recording_step_add(recording=recording, action=RECORDED[0])
    before = (Recording.objects.count(), World.objects.filter(is_template=False).count())
    client.logout()
    pull = {**DRAFT, "demonstration": str(recording.pk), "pull_into": "reference"}
    for url, data in ((START, DRAFT), (PULL, pull)):
        assert client.post(url, data).status_code == 302  # signed out: to the sign-in page
        assert client.post(url, data, HTTP_AUTHORIZATION=f"Token {agent_token.secret}").status_code == 302  # an agent
    client.force_login(annotator_user)
    for url, data in ((START, DRAFT), (PULL, pull)):
        assert client.post(url, data).status_code == 403
    assert (Recording.objects.count(), World.objects.filter(is_template=False).count()) == before

    client.force_login(admin_user)
    mine, link = start(client)
    assert mine.annotator == admin_user and "/__recording__/start" in link
    # another author's demonstration is not the admin's to pull, nor the other way round
    refused = client.post(PULL, pull)
    assert (
        "no demonstration" in refused.content.decode() and 'name="l:reference_solution"' not in refused.content.decode()
    )


BAD_PULLS = [
    # (what is wrong, the posted changes, words of the message)
    ("no id", {"demonstration": ""}, "not a recording id"),
    ("an id that is not a number", {"demonstration": "7; drop table"}, "not a recording id"),
    ("an unknown id", {"demonstration": "999999"}, "no demonstration 999999 of yours"),
    ("another author's", {"demonstration": "OTHER"}, "of yours"),
    ("an annotator's recording", {"demonstration": "ANNOTATION"}, "not a demonstration"),
    ("one with no steps", {"demonstration": "EMPTY"}, "no steps yet"),
    ("an unknown target", {"pull_into": "verifier"}, "reference solution or a new negative example"),
    ("another seed than the draft's", {"i:seed": "8"}, "not in the draft's world"),
    ("another replica than the draft's", {"s:replica": "ANOTHER_REPLICA"}, "not in the draft's world"),
]


@pytest.mark.parametrize(("case", "changes", "words"), BAD_PULLS, ids=[b[0] for b in BAD_PULLS])
def test_a_bad_pull_is_refused_at_the_panel_and_changes_nothing(author, django_user_model, case, changes, words):
    recording, _link = start(author)
    for action in RECORDED:
        recording_step_add(recording=recording, action=action)
    other = django_user_model.objects.create_user(username="other-author", password="pw-123456")
    role_grant(user=other, role=Role.AUTHOR)
    ids = {
        "OTHER": lambda: Recording.objects.create(annotator=other, world=recording.world, brief={}).pk,
        "ANNOTATION": lambda: _annotation_of(recording.annotator, django_user_model),
        "EMPTY": lambda: start(author)[0].pk,
    }
    posted = {**DRAFT, "demonstration": str(recording.pk), "pull_into": "reference", **changes}
    if posted["s:replica"] == "ANOTHER_REPLICA":  # any installed replica but the draft's
        posted["s:replica"] = next(name for name in sorted(replicas()) if name != DRAFT["s:replica"])
    if posted["demonstration"] in ids:
        posted["demonstration"] = str(ids[posted["demonstration"]]())
    before = {r.pk: (r.status, list(r.steps.values_list("action", flat=True))) for r in Recording.objects.all()}
    response = author.post(PULL, posted)
    html = unescape(response.content.decode())
    assert words in html, html
    assert response["HX-Retarget"] == "#demonstration-error" and response["HX-Reswap"] == "innerHTML"
    assert "reference_solution" not in html  # only the panel's message: the form is left as it is
    assert {r.pk: (r.status, list(r.steps.values_list("action", flat=True))) for r in Recording.objects.all()} == before


def _annotation_of(author_user, django_user_model) -> int:
    """An annotator's recording of a queue item: the author is given the annotator role too, so it is theirs."""
    role_grant(user=author_user, role=Role.ANNOTATOR)
    item = items_create(task="testbed.complete-note")[0]
    item_claim(item_id=item.pk, user=author_user)
    return recording_start(item_id=item.pk, user=author_user).pk


def test_a_bad_world_starts_no_demonstration(author):
    for changes, words in (
        ({"s:variant": "gigantic"}, "choose one of the variants"),
        ({"i:seed": "-1"}, "0 or more"),
        ({"i:faults[0].params.delay_ms": "99999"}, "no world for the demonstration"),
    ):
        _recording, html = start(author, **changes)
        assert words in unescape(html)
    assert not Recording.objects.exists() and not World.objects.filter(is_template=False).exists()


def test_a_pulled_demonstration_types_the_drafts_params_as_placeholders_so_it_plays_on_other_seeds(author):
    """A recording held literal answers (send_msg_to_user("3")): it passed on its own seed only."""
    from frontend.editor import codec
    from frontend.views.editor import _answer_key

    key = _answer_key(codec.decode({name: [value] for name, value in DRAFT.items()}).spec)
    recording, _link = start(author)
    for action in ['click("12")', f'fill("9", "{key["member_name"]}")', f'send_msg_to_user("{key["notes"]}")']:
        recording_step_add(recording=recording, action=action)
    html = unescape(
        author.post(PULL, {**DRAFT, "demonstration": str(recording.pk), "pull_into": "reference"}).content.decode()
    )
    reference = re.search(r'name="l:reference_solution"[^>]*>([^<]*)</textarea>', html).group(1)
    # the bid stays as recorded even when it equals a param's value; typed values become their params
    assert reference.split("\n") == ['click("12")', 'fill("9", "{member_name}")', 'send_msg_to_user("{notes}")']
    assert "2 written with placeholders" in html
