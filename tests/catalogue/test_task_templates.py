"""Declarative task templates: params as queries over the world, one template over many seeds. On the testbed: its
notes (a decimal estimate), members, the `member` picker and the `editable_owners` policy; a product replica's own
tables, pickers and policies are tested in its folder (replicas/<name>/tests/test_task_templates.py)."""

from datetime import timedelta
from decimal import Decimal

import pytest

from catalogue.task_templates import NoCandidate, TemplateError, template_errors, template_params
from replicas.worlds.services import template_get_or_build
from replicas.worlds.snapshot import snapshot

pytestmark = pytest.mark.django_db

OPEN_NOTE = [
    {
        "name": "note",
        "pick": {
            "table": "testbed.note",
            "where": {"done": False, "title": {"matches": "^(Audit|Hiring|Roadmap) "}},
            "order_by": ["public_id"],
            "choose": "first",
        },
    },
    {"name": "owner_email", "field": "note.owner__email"},
    {"name": "owner", "field": "note.owner"},
    {"name": "notes", "aggregate": {"op": "count", "table": "testbed.note", "where": {"owner": "{owner}"}}},
    {"name": "due", "date": {"from": "clock", "add": "+3d", "format": "date"}},
    {"name": "greeting", "text": "Hello {owner_email}"},
]


def _world(seed=7):
    return template_get_or_build(replica="testbed", seed=seed, variant="small")


def test_a_template_reads_records_related_fields_counts_and_the_clock_from_the_world():
    world = _world()
    params = template_params(OPEN_NOTE, world=world)
    tables = snapshot(world)["tables"]
    notes = tables["testbed.note"]
    candidates = sorted(
        int(k)
        for k, row in notes.items()
        if not row["done"] and row["title"].split()[0] in ("Audit", "Hiring", "Roadmap")
    )
    assert params["note"] == candidates[0]
    row = notes[str(params["note"])]
    assert params["owner"] == int(row["owner"])  # a reference gives the record it names, as a pick would
    assert params["owner_email"] == tables["testbed.member"][row["owner"]]["email"]
    assert params["notes"] == sum(1 for n in notes.values() if n["owner"] == row["owner"]) > 0
    assert params["due"] == (world.clock.date() + timedelta(days=3)).isoformat()
    assert params["greeting"] == f"Hello {params['owner_email']}"


def test_a_seeded_choice_is_stable_per_seed_and_varies_across_seeds():
    seeded = [{"name": "note", "pick": {"table": "testbed.note", "choose": "seeded"}}]
    first = [template_params(seeded, world=_world(seed))["note"] for seed in (7, 8, 9)]
    again = [template_params(seeded, world=_world(seed))["note"] for seed in (7, 8, 9)]
    assert first == again


def test_a_seed_with_no_candidate_is_a_clear_error():
    impossible = [{"name": "note", "pick": {"table": "testbed.note", "where": {"title": "no such title ever"}}}]
    with pytest.raises(NoCandidate) as err:
        template_params(impossible, world=_world())
    assert err.value.path == "params[0]" and "seed 7" in str(err.value) and "testbed.note" in str(err.value)


def test_sum_min_and_max_follow_the_field_type():
    steps = [
        {"name": "total", "aggregate": {"op": "sum", "table": "testbed.note", "field": "estimate_hours"}},
        {"name": "biggest", "aggregate": {"op": "max", "table": "testbed.note", "field": "estimate_hours"}},
        {"name": "smallest", "aggregate": {"op": "min", "table": "testbed.note", "field": "estimate_hours"}},
        {"name": "count", "aggregate": {"op": "sum", "table": "testbed.member", "field": "public_id"}},
    ]
    params = template_params(steps, world=_world())
    tables = snapshot(_world())["tables"]
    hours = [Decimal(n["estimate_hours"]) for n in tables["testbed.note"].values()]
    assert len(set(hours)) > 1  # a decimal max of strings would order "11.75" before "8.50"
    assert isinstance(params["total"], str) and Decimal(params["total"]) == sum(hours)
    assert Decimal(params["biggest"]) == max(hours) and Decimal(params["smallest"]) == min(hours)
    assert params["count"] == sum(m["public_id"] for m in tables["testbed.member"].values())  # an int stays an int


@pytest.mark.parametrize(
    "steps, path, words",
    [
        ([{"name": "t", "pick": {"table": "testbed.ntoe"}}], "params[0].pick.table", "unknown table"),
        (
            [{"name": "t", "pick": {"table": "testbed.note", "where": {"doen": False}}}],
            "params[0].pick.where.doen",
            "unknown field",
        ),
        (
            [{"name": "t", "pick": {"table": "testbed.member", "where": {"role": "ownr"}}}],
            "params[0].pick.where.role",
            "ownr",
        ),
        ([{"name": "t", "field": "nothing.title"}], "params[0].field", "not a record"),
        ([{"name": "t", "text": "{later}"}], "params[0]", "names no param"),
        (
            [{"name": "t", "aggregate": {"op": "sum", "table": "testbed.note"}}],
            "params[0].aggregate.field",
            "needs the field",
        ),
        (
            [{"name": "t", "aggregate": {"op": "sum", "table": "testbed.note", "field": "title"}}],
            "params[0].aggregate.field",
            "cannot sum",
        ),
        ([{"name": "t", "policy": "no_such_policy"}], "params[0].policy", "no policy"),
        ([{"name": "t", "picker": "no_such_picker"}], "params[0].picker", "no picker"),
        ([{"name": "Bad Name", "value": 1}], "params[0].name", "lowercase"),
        ([{"name": "t", "value": 1, "text": "x"}], "params[0]", "exactly one"),
        ([{"name": "t", "date": {"add": "three days"}}], "params[0].date.add", "offset"),
    ],
)
def test_bad_templates_are_refused_with_the_json_path(steps, path, words):
    errors = template_errors(steps, replica="testbed")
    assert any(p == path and words in m for p, m in errors), errors
    with pytest.raises(TemplateError):
        template_params(steps, world=_world())


def test_a_reference_field_gives_the_record_it_names_as_a_pick_would():
    steps = [
        {"name": "note", "pick": {"table": "testbed.note", "where": {"owner": {"is_null": False}}, "choose": "first"}},
        {"name": "owner", "field": "note.owner"},
        {"name": "again", "pick": {"table": "testbed.member", "where": {"public_id": "{owner}"}, "choose": "first"}},
        {"name": "name", "field": "note.owner__name"},
    ]
    params = template_params(steps, world=_world())
    assert isinstance(params["owner"], int) and params["again"] == params["owner"]
    assert params["name"] == snapshot(_world())["tables"]["testbed.member"][str(params["owner"])]["name"]


def test_internal_params_serve_later_params_and_stay_out_of_the_answer_key():
    steps = [
        {"name": "editor", "picker": "member", "args": {"role": "member"}, "internal": True},
        {"name": "owners", "policy": "editable_owners", "args": {"member": "{editor_id}"}, "internal": True},
        {"name": "note", "pick": {"table": "testbed.note", "where": {"owner": {"in": "{owners}"}}, "choose": "first"}},
        {"name": "greeting", "text": "{editor_name} edits #{note}"},
    ]
    params = template_params(steps, world=_world())
    assert set(params) == {"note", "greeting"}
    # the policy let the member edit only their own notes
    notes, members = snapshot(_world())["tables"]["testbed.note"], snapshot(_world())["tables"]["testbed.member"]
    editor = members[notes[str(params["note"])]["owner"]]
    assert editor["role"] == "member" and params["greeting"] == f"{editor['name']} edits #{params['note']}"


def test_a_picker_s_keys_take_its_prefix_and_an_empty_prefix_keeps_them():
    default = template_params([{"name": "member", "picker": "member"}], world=_world())
    other = template_params([{"name": "member", "picker": "member", "prefix": "who_"}], world=_world())
    bare = template_params(
        [{"name": "member", "picker": "member", "prefix": ""}, {"name": "hi", "text": "Hi {name}"}], world=_world()
    )
    assert set(default) == {"member_email", "member_name", "member_password", "member_id"}
    assert {k.removeprefix("who_"): v for k, v in other.items()} == {
        k.removeprefix("member_"): v for k, v in default.items()
    }
    assert bare["name"] == default["member_name"] and bare["hi"] == f"Hi {default['member_name']}"


def test_a_picker_with_no_candidate_and_a_policy_given_bad_arguments_are_clear_errors():
    with pytest.raises(NoCandidate, match="seed 7: picker 'member' found no candidate"):
        template_params([{"name": "m", "picker": "member", "args": {"role": "auditor"}}], world=_world())
    with pytest.raises(TemplateError) as err:
        template_params([{"name": "o", "policy": "editable_owners", "args": {"who": 100}}], world=_world())
    assert err.value.path == "params[0].args" and "does not take these arguments" in err.value.message


@pytest.mark.parametrize(
    "steps, path, words",
    [
        ([{"name": "t", "value": 1, "prefix": "x_"}], "params[0].prefix", "only a picker"),
        ([{"name": "t", "picker": "member", "prefix": "Bad-"}], "params[0].prefix", "lowercase"),
        ([{"name": "t", "value": 1, "internal": "yes"}], "params[0].internal", "must be true or false"),
    ],
)
def test_bad_prefixes_and_internal_flags_are_refused(steps, path, words):
    errors = template_errors(steps, replica="testbed")
    assert any(p == path and words in m for p, m in errors), errors
