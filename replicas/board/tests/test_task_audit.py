"""The board pack against the wrong work the mutation audit (issue 25) found earning full reward.

Each case builds the reference's end state on the task's template snapshot, which passes, and the wrong
work that used to pass too, which now fails: judged with verifiers.audit.passes (every required assertion
holds and nothing collateral), as the audit judges its mutants.
"""

import copy
import random

import pytest

from catalogue.packs import load_pack
from replicas.board.faults import STEPS_LOST
from replicas.board.tasks import params as P
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import template_get_or_build
from replicas.worlds.snapshot import snapshot
from verifiers.audit import passes
from verifiers.inputs import VerifierInputs

FALSE_CLAIM = "I have merged the fix into main and deployed it to production."


@pytest.fixture(scope="module")
def judge(django_db_setup, django_db_blocker):
    """judge(slug, edit, messages=(), trajectory=()) -> whether the task pays full reward for the template's
    state changed by edit(tables, params), after `trajectory` (steps with their writes)."""
    with django_db_blocker.unblock():
        tasks = {t.spec["slug"]: t for t in load_pack("board")}
        template = template_get_or_build(replica="board", seed=7, variant="small")
        initial = snapshot(template)
    clock = template.clock.isoformat().replace("+00:00", "Z")

    def run(slug, edit, messages=(), trajectory=()):
        task = tasks[slug]
        assert task.spec["seed"] == 7 and task.spec["variant"] == "small", slug
        final = copy.deepcopy(initial)
        edit(final["tables"], task.params)
        inputs = VerifierInputs(
            initial=initial,
            final=final,
            final_page={"url": "/", "title": "", "html": ""},
            params=task.params,
            messages=list(messages),
            trajectory=[{"index": i, **step} for i, step in enumerate(trajectory)],
            clock=clock,
            replica="board",
        )
        return passes(task.spec["verifier"], inputs)

    run.params = lambda slug: tasks[slug].params
    return run


def _issue(tables, key, **fields):
    tables["board.issue"][key] = {**tables["board.issue"][key], **fields}


def _started_with_steps(steps):
    def edit(tables, p):
        _issue(tables, p["key"], status="In Progress", steps_to_reproduce=steps(p))

    return edit


def test_steps_restored_from_the_reporters_comment_must_be_theirs_and_nothing_else(judge):
    slug = "start-bug-refused-by-validator"
    assert judge(slug, _started_with_steps(lambda p: p["steps_line"]))
    # pasted as the comment holds them: under its heading, one step a line
    assert judge(slug, _started_with_steps(lambda p: STEPS_LOST + p["steps_line"].replace(" 2.", "\n2.")))
    # used to pass: the steps' longest line was searched for, whatever else the field said
    assert not judge(slug, _started_with_steps(lambda p: f"{p['steps_line']}\n\n{FALSE_CLAIM}"))
    assert not judge(slug, _started_with_steps(lambda p: f"{p['own_steps']} {p['steps_line']}"))
    assert not judge(slug, _started_with_steps(lambda p: p["own_steps"]))


def test_steps_given_in_the_instruction_are_saved_as_given(judge):
    slug = "start-bug-with-steps"
    assert judge(slug, _started_with_steps(lambda p: p["steps"]))
    assert judge(slug, _started_with_steps(lambda p: "  " + p["steps"].replace(", ", ",\n")))
    # used to pass: "scroll to the end" was searched for
    assert not judge(slug, _started_with_steps(lambda p: f"{p['steps']} {FALSE_CLAIM}"))
    assert not judge(slug, _started_with_steps(lambda p: "Open the app, scroll to the end and see."))


def _commented(body):
    def edit(tables, p):
        comment = str(max(int(k) for k in tables["board.comment"]) + 1)
        tables["board.comment"][comment] = {
            "public_id": int(comment),
            "issue": p["key"],
            "author": p["username"],
            "body": body(p),
            "created_at": "2026-06-20T10:00:00Z",
        }
        tables["board.mention"][f"{comment}|{p['mention']}"] = {"comment": comment, "person": p["mention"]}

    return edit


def test_the_mention_comment_says_what_it_was_asked_to_and_no_more(judge):
    slug = "mention-assignee-in-comment"
    question = "Can you attach the query plan before we merge?"
    assert judge(slug, _commented(lambda p: f"{question} [~{p['mention']}]"))
    assert judge(slug, _commented(lambda p: f"[~{p['mention']}] {question}"))
    # used to pass: the question was searched for, so a claim after it went through
    assert not judge(slug, _commented(lambda p: f"{question} [~{p['mention']}]\n\n{FALSE_CLAIM}"))
    assert not judge(slug, _commented(lambda p: f"{question} [~{p['mention']}] Never mind, I merged it myself."))


def _drag(key):
    return {
        "action": f'drag_and_drop("[data-key=\'{key}\']", ".column__head")',
        "writes": [{"table": "board.issue", "id": key}],
    }


def test_the_wip_limit_is_kept_by_freeing_the_column_before_pulling_the_card(judge):
    slug = "kanban-pull-within-wip"

    def moved(tables, p):
        _issue(tables, p["finished"], status="Waiting for support")
        _issue(tables, p["key"], status="In Progress")

    key, finished = judge.params(slug)["key"], judge.params(slug)["finished"]
    assert judge(slug, moved, trajectory=[_drag(finished), _drag(key)])
    # used to pass: the same end state with the column over its limit in between
    assert not judge(slug, moved, trajectory=[_drag(key), _drag(finished)])


def test_count_questions_ask_about_another_sprint_per_episode(db):
    """An episode's rng picks the sprint among the world's suitable ones, so the answer key is not one
    number an agent finds blind from pass/fail over a few episodes (issue 25); without one, the task's
    fixed pick, the active sprint, as before."""
    world = template_get_or_build(replica="board", seed=7, variant="small")
    with bound_world(world):
        active = P._answer_sprints()[0]
        assert active.state == "active"
        for picker in (P.open_highest_in_sprint, P.open_blockers_in_sprint, P.open_points_in_sprint):
            assert picker(world)["sprint_name"] == active.name, picker.__name__
        # (this world's blocks links are all in the active sprint: the blockers question varies by world seed)
        for picker in (P.open_highest_in_sprint, P.open_points_in_sprint):
            picked = {picker(world, rng=random.Random(i))["sprint_name"] for i in range(12)}
            assert len(picked) >= 2, picker.__name__
