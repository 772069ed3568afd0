"""The task language: params where literals go (counts, range bounds), relation paths in where."""

import pytest
from replicagym.catalogue.packs import filled_errors

from replicas.testbed.models import Member, Note
from replicas.worlds.scoping import bound_world
from tests.verifiers.conftest import Before
from verifiers.engine import verify
from verifiers.spec import SpecError, validate_spec

pytestmark = pytest.mark.django_db


def _notes_spec(count):
    return {"assertions": [{"name": "n", "kind": "state", "table": "testbed.note", "expect": {"count": count}}]}


def _verdict(before, spec, params):
    return verify(spec, before.inputs(params=params)).assertions[0]


def test_a_count_from_a_param_counts_exactly_and_one_off_fails(before):
    held = len(before.initial["tables"]["testbed.note"])
    spec = _notes_spec("{n}")
    validate_spec(spec, replica="testbed")  # the template: a {param} where the count goes
    assert _verdict(before, spec, {"n": held})["passed"]
    for wrong in (held - 1, held + 1):
        result = _verdict(before, spec, {"n": wrong})
        assert not result["passed"]
        assert result["detail"].startswith(f"{held} row(s) of testbed.note match, expected {wrong}")


def test_count_bounds_from_params(before):
    held = len(before.initial["tables"]["testbed.note"])
    spec = _notes_spec({"min": "{lo}", "max": "{hi}"})
    validate_spec(spec, replica="testbed")
    assert _verdict(before, spec, {"lo": held, "hi": held + 2})["passed"]
    assert not _verdict(before, spec, {"lo": held + 1, "hi": held + 2})["passed"]
    assert not _verdict(before, spec, {"lo": 0, "hi": held - 1})["passed"]


@pytest.mark.parametrize("value", ["3", 2.5, True, -1, None, [3]])
def test_a_count_param_that_fills_to_no_count_is_refused_with_its_path(value):
    spec = _notes_spec("{n}")
    with pytest.raises(SpecError, match=r"^assertions\[0\]\.expect\.count: must be a count"):
        validate_spec(spec, replica="testbed", params={"n": value})
    with pytest.raises(SpecError, match=r"^assertions\[0\]\.expect\.count\.max: must be an integer >= 0"):
        validate_spec(_notes_spec({"max": "{n}"}), replica="testbed", params={"n": value})


def test_a_count_that_is_text_but_no_placeholder_is_refused():
    with pytest.raises(SpecError, match=r"expect\.count: must be a count"):
        validate_spec(_notes_spec("{n} rows"), replica="testbed")


def test_min_above_max_is_refused_once_filled():
    spec = _notes_spec({"min": "{lo}", "max": "{hi}"})
    validate_spec(spec, replica="testbed")
    with pytest.raises(SpecError, match="min is greater than max"):
        validate_spec(spec, replica="testbed", params={"lo": 3, "hi": 2})


def test_an_unfilled_count_at_episode_time_fails_its_assertion(before):
    result = _verdict(before, _notes_spec("{n}"), {})
    assert not result["passed"] and "count {n} is not filled" in result["detail"]


def test_a_range_bound_from_a_param_is_typed_once_filled(before):
    spec = {
        "assertions": [
            {
                "name": "n",
                "kind": "state",
                "table": "testbed.note",
                "where": {"estimate_hours": {"gte": "{least}"}},
                "expect": {"count": {"min": 0}},
            },
            {
                "name": "m",
                "kind": "state",
                "table": "testbed.member",
                "where": {"public_id": {"lt": "{below}"}},
                "expect": {"count": {"min": 1}},
            },
        ]
    }
    validate_spec(spec, replica="testbed")
    with pytest.raises(SpecError, match=r"^assertions\[1\]\.where\.public_id\.lt: expected an integer"):
        validate_spec(spec, replica="testbed", params={"least": "1.5", "below": "many"})
    lowest = min(int(k) for k in before.initial["tables"]["testbed.member"])
    filled = {"least": "0", "below": lowest}
    assert not verify(spec, before.inputs(params=filled)).assertions[1]["passed"]
    assert verify(spec, before.inputs(params={**filled, "below": lowest + 1})).assertions[1]["passed"]


def test_a_pack_task_whose_count_param_fills_to_text_is_refused_at_import():
    task = {"verifier": _notes_spec("{stale_count}")}
    assert filled_errors(task, {"stale_count": 2}, "testbed") == []
    assert filled_errors(task, {"stale_count": "two"}, "testbed") == [
        (
            "verifier.assertions[0].expect.count",
            "must be a count: an integer >= 0, a {param} holding one, or {min, max} of those; not 'two'",
        )
    ]


# --- relation paths in where ---------------------------------------------------------------------


def _state(where, count=None, fields=None):
    expect = {k: v for k, v in (("count", count), ("fields", fields)) if v is not None}
    return {"name": "s", "kind": "state", "table": "testbed.note", "where": where, "expect": expect}


@pytest.mark.parametrize(
    "where, message",
    [
        ({"owner__nmae": "x"}, "assertions[0].where.owner__nmae: unknown field 'nmae' of testbed.member (fields: "),
        ({"title__owner": "x"}, "assertions[0].where.title__owner: testbed.note.title is not a reference"),
        ({"owner__role": "ownr"}, "assertions[0].where.owner__role: 'ownr' is not a choice of field 'role'"),
        ({"owner__public_id": {"gt": "many"}}, "assertions[0].where.owner__public_id.gt: expected an integer"),
    ],
)
def test_a_relation_path_is_checked_against_the_models_with_its_json_path(where, message):
    with pytest.raises(SpecError) as caught:
        validate_spec({"assertions": [_state(where, count=1)]}, replica="testbed")
    assert str(caught.value).startswith(message)


def _owners(snap):
    notes, members = snap["tables"]["testbed.note"], snap["tables"]["testbed.member"]
    by_name = {}
    for note in notes.values():
        by_name.setdefault(members[str(note["owner"])]["name"], []).append(note)
    return by_name


def test_a_where_through_a_relation_counts_the_related_rows_and_another_owner_fails(before):
    by_name = _owners(before.initial)
    assert len({len(v) for v in by_name.values()}) > 1, "the seed's members must own different numbers of notes"
    inputs = before.inputs()
    for name, notes in by_name.items():
        spec = {"assertions": [_state({"owner__name": name}, count=len(notes))]}
        assert verify(spec, inputs).passed, name
        others = [n for n in by_name if len(by_name[n]) != len(notes)]
        spec = {"assertions": [_state({"owner__name": others[0]}, count=len(notes))]}
        assert not verify(spec, inputs).passed


def test_a_relation_where_on_a_change_reads_the_final_related_row(before):
    with before.bound():
        note = Note.objects.order_by("public_id").first()
        old = note.owner
        new = Member.objects.exclude(pk=old.pk).order_by("public_id").first()
        note.owner = new
        note.save()
    inputs = before.inputs()

    def changed(owner_name):
        where = {"owner__name": owner_name, "owner__role": new.role}
        return {"assertions": [{"name": "d", "kind": "diff", "table": "testbed.note", "op": "changed", "where": where}]}

    assert verify(changed(new.name), inputs).passed
    assert not verify(changed(old.name), inputs).passed
    rule = {"table": "testbed.note", "ops": ["changed"], "where": {"owner__name": old.name}}
    spec = {**changed(new.name), "allowed_changes": [rule]}
    assert [c["key"] for c in verify(spec, inputs).collateral] == [str(note.public_id)]
    assert verify({**spec, "allowed_changes": [{**rule, "where": {"owner__name": new.name}}]}, inputs).collateral_ok


def test_a_relation_where_never_reads_another_world(make_world):
    """Two worlds of one seed hold the same public keys: a path followed outside the snapshot (an unscoped ORM
    lookup by key) would find the other world's member."""

    mine, other = Before(make_world()), make_world()
    with bound_world(other):
        Member.objects.filter(public_id=100).update(name="Only In The Other World")
    spec = {"assertions": [_state({"owner__name": "Only In The Other World"}, count={"min": 1})]}
    assert not verify(spec, mine.inputs()).passed
    with bound_world(other):
        assert verify(spec, Before(other).inputs()).passed
