"""Checkpoints watched step by step (episodes.engine.checkpoints): only milestones whose tables a step wrote are
evaluated, each is reported once with its share of the dense reward, and the agent's side learns indices only."""

import pytest

from episodes.engine.checkpoints import EVERY_TABLE, CheckpointWatch, assertion_tables
from replicas.testbed.models import Note
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create
from replicas.worlds.snapshot import snapshot

pytestmark = pytest.mark.django_db

NOTE_DONE = {
    "name": "note {note} done",
    "kind": "state",
    "table": "testbed.note",
    "where": {"public_id": "{note}"},
    "expect": {"fields": {"done": True}},
}
NOTE_RENAMED = {
    "name": "note renamed",
    "kind": "state",
    "table": "testbed.note",
    "where": {"public_id": "{note}"},
    "expect": {"fields": {"title": "{title}"}},
}
MEMBER_OWNER = {
    "name": "owner kept",
    "kind": "state",
    "table": "testbed.member",
    "where": {"role": "owner"},
    "expect": {"count": {"min": 1}},
}
SAID = {"name": "said done", "kind": "answer", "type": "regex", "pattern": "done", "match": "search"}
SPEC = {
    "assertions": [NOTE_DONE, NOTE_RENAMED, MEMBER_OWNER, SAID],
    "checkpoints": [
        {"name": "renamed", "assertions": ["note renamed"]},
        {"name": "closed", "points": 2, "assertions": ["note {note} done", "note renamed"]},
        {"name": "told", "assertions": ["said done"]},
        {"name": "owner", "assertions": ["owner kept"]},
    ],
}


def _watch_and_world():
    world = world_create(replica="testbed", seed=7, variant="small")
    with bound_world(world):
        note = Note.objects.order_by("public_id").first()
    params = {"note": note.public_id, "title": "Renamed by the agent"}
    return CheckpointWatch(spec=SPEC, params=params, initial=snapshot(world)), world, note


def _write(world, note, **fields):
    with bound_world(world):
        Note.objects.filter(pk=note.pk).update(**fields)
    return [{"table": "testbed.note", "id": str(note.public_id), "op": "update"}]


def test_a_milestone_is_reported_once_at_the_step_that_reaches_it_with_its_share_of_the_reward():
    watch, world, note = _watch_and_world()
    assert watch.watched and watch.total == 5
    # a step that wrote no table a milestone reads evaluates nothing, even one already true (owner kept)
    assert watch.after_step(world=world, writes=[]) == {"new": [], "reward": 0.0}
    assert watch.after_step(world=world, writes=[{"table": "testbed.other", "id": "1", "op": "update"}])["new"] == []
    # writing the note without reaching anything
    assert watch.after_step(world=world, writes=_write(world, note, body="typed")) == {"new": [], "reward": 0.0}
    renamed = watch.after_step(world=world, writes=_write(world, note, title="Renamed by the agent"))
    assert renamed == {"new": [0], "reward": pytest.approx(0.5 * 1 / 5)}
    closed = watch.after_step(world=world, writes=_write(world, note, done=True))
    assert closed == {"new": [1], "reward": pytest.approx(0.5 * 2 / 5)}
    # reached milestones are not paid again
    assert watch.after_step(world=world, writes=_write(world, note, done=True))["new"] == []
    assert watch.reached == [0, 1]


def test_milestones_reading_more_than_rows_are_left_to_the_final_verdict():
    watch, world, note = _watch_and_world()
    assert [m.index for m in watch.pending] == [0, 1, 3]  # "told" reads the answer
    assert assertion_tables(SAID) is None
    assert assertion_tables({"kind": "conditional", "when": NOTE_DONE, "then": [MEMBER_OWNER]}) == {
        "testbed.note",
        "testbed.member",
    }
    assert assertion_tables({"kind": "conditional", "when": NOTE_DONE, "then": [SAID]}) is None
    # "nothing else changed" reads the whole diff: any write makes it due
    assert assertion_tables({"name": "n", "kind": "diff", "only_allowed": True}) == {EVERY_TABLE}
    assert assertion_tables({"kind": "for_each", "in": [1], "as": "n", "assert": [NOTE_DONE]}) == {"testbed.note"}


def test_a_task_without_checkpoints_watches_nothing():
    world = world_create(replica="testbed", seed=7, variant="small")
    watch = CheckpointWatch(spec={"assertions": [SAID]}, params={}, initial=snapshot(world))
    assert not watch.watched
    assert watch.after_step(world=world, writes=[{"table": "testbed.note", "id": "1", "op": "update"}])["new"] == []
