"""Simulated colleagues (replicas.board.simulated) in worlds of the "conversations" variant: a teammate
@mentioned in a work item's comment answers it there at the clock's next move, with the world's true
value if they work on the item and who does if not; once, and only then; not in other variants; the
same comments give the same world byte for byte."""

import pytest

from replicas.board import services, simulated
from replicas.board.models import Comment, Issue, Person
from replicas.worlds.clock import world_clock_advance
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash
from tests.templates import module_template

pytestmark = pytest.mark.django_db

VARIANT = "conversations"
conversations_template = module_template("board", variant=VARIANT)
STEP = 30


@pytest.fixture
def conv_world(make_world):
    return make_world(replica="board", variant=VARIANT)


def _case():
    """An open bug with an active assignee, the admin who asks, and a teammate who is not on it."""
    admin = Person.objects.filter(is_admin=True).get()
    bug = (
        Issue.objects.filter(issue_type="bug", resolution="", assignee__active=True)
        .exclude(assignee=admin)
        .order_by("number")
        .first()
    )
    other = Person.objects.filter(active=True).exclude(pk__in=[admin.pk, bug.assignee_id]).order_by("public_id")[0]
    return bug, admin, other


def _ask(world, issue, asker, body) -> list[Comment]:
    """`asker` comments on `issue`; the clock moves one step; the comments that came after."""
    question = services.comment_add(issue=issue, actor=asker, body=body)
    world_clock_advance(world=world, seconds=STEP)
    return list(issue.comments.filter(public_id__gt=question.public_id).order_by("public_id"))


def test_the_assignee_answers_what_was_asked_at_the_next_move_and_only_once(conv_world):
    with bound_world(conv_world):
        bug, admin, _ = _case()
        question = f"[~{bug.assignee.username}] A customer hit this. Which release will the fix ship in?"
        answers = _ask(conv_world, bug, admin, question)
        release = simulated.planned_release(bug)
        assert release and [(c.author, c.body) for c in answers] == [
            (bug.assignee, f"Hi {admin.name.split()[0]},\n\nThe fix is planned for release {release}.")
        ]
        assert simulated.workaround(bug) not in answers[0].body  # nothing that was not asked
        assert not answers[0].mentions.exists()  # the answer asks nobody anything back
        assert _ask(conv_world, bug, admin, "Thanks, noted.") == []
        world_clock_advance(world=conv_world, seconds=STEP)
        assert bug.comments.filter(author=bug.assignee, public_id__gte=answers[0].public_id).count() == 1
        workaround = _ask(conv_world, bug, admin, f"[~{bug.assignee.username}] is there a workaround meanwhile?")
        assert [c.body.split("\n\n")[1] for c in workaround] == [f"Workaround until then: {simulated.workaround(bug)}"]


def test_someone_not_on_the_item_says_who_is_and_an_unknown_question_gets_a_question_back(conv_world):
    with bound_world(conv_world):
        bug, admin, other = _case()
        answers = _ask(conv_world, bug, admin, f"[~{other.username}] which version will fix this?")
        assert [(c.author, c.body.split("\n\n")[1]) for c in answers] == [
            (other, f"I'm not on {bug.key}: {bug.assignee.name} is working on it, ask them.")
        ]
        answers = _ask(conv_world, bug, admin, f"[~{bug.assignee.username}] can you pair with me tomorrow?")
        assert [c.body.split("\n\n")[1] for c in answers] == [simulated.UNSURE]
        # a comment that mentions nobody, or states nothing asked, is nobody's question
        assert _ask(conv_world, bug, admin, "Which release will the fix ship in?") == []
        assert _ask(conv_world, bug, admin, f"[~{bug.assignee.username}] FYI, merged the docs.") == []


def test_a_new_world_has_no_question_waiting_and_the_same_comments_give_the_same_world(make_world):
    hashes = []
    for _ in range(2):
        world = make_world(replica="board", variant=VARIANT)
        with bound_world(world):
            assert simulated.awaiting() == []
            bug, admin, _ = _case()
            _ask(world, bug, admin, f"[~{bug.assignee.username}] which release, and is there a workaround?")
            hashes.append(state_hash(snapshot(world)))
    assert hashes[0] == hashes[1]


def test_other_variants_have_no_simulated_colleagues(make_world):
    world = make_world(replica="board", seed=7, variant="small")
    with bound_world(world):
        bug, admin, _ = _case()
        assert _ask(world, bug, admin, f"[~{bug.assignee.username}] which release will the fix ship in?") == []
