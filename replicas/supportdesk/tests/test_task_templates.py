"""Declarative task templates over the support desk's own tables, pickers and policies: its tickets, related
records (requester, organization), money fields, the desk_agent picker and the assignable_groups policy
(the platform's template tests run on the testbed: tests/catalogue/test_task_templates.py)."""

import pytest

from catalogue.task_templates import NoCandidate, TemplateError, template_errors, template_params
from replicas.worlds.services import template_get_or_build
from replicas.worlds.snapshot import snapshot

pytestmark = pytest.mark.django_db

REFUND_TICKET = [
    {
        "name": "ticket",
        "pick": {
            "table": "supportdesk.ticket",
            "where": {"status": {"in": ["new", "open"]}, "tags": {"contains": "refund"}},
            "order_by": ["public_id"],
            "choose": "first",
        },
    },
    {"name": "requester_email", "field": "ticket.requester__email"},
    {"name": "comments", "aggregate": {"op": "count", "table": "supportdesk.comment", "where": {"ticket": "{ticket}"}}},
    {"name": "due", "date": {"from": "clock", "add": "+3d", "format": "date"}},
    {"name": "greeting", "text": "Hello {requester_email}"},
]


def _world(seed=7):
    return template_get_or_build(replica="supportdesk", seed=seed, variant="small")


def test_a_template_reads_records_related_fields_counts_and_the_clock_from_the_world():
    world = _world()
    params = template_params(REFUND_TICKET, world=world)
    tickets = snapshot(world)["tables"]["supportdesk.ticket"]
    candidates = sorted(
        int(k) for k, row in tickets.items() if row["status"] in ("new", "open") and "refund" in row["tags"]
    )
    assert params["ticket"] == candidates[0]
    row = tickets[str(params["ticket"])]
    users = snapshot(world)["tables"]["supportdesk.user"]
    assert params["requester_email"] == users[str(row["requester"])]["email"]
    comments = snapshot(world)["tables"]["supportdesk.comment"]
    assert params["comments"] == sum(1 for c in comments.values() if c["ticket"] == str(params["ticket"]))
    assert params["due"] == (world.clock.date() + __import__("datetime").timedelta(days=3)).isoformat()
    assert params["greeting"] == f"Hello {params['requester_email']}"


def test_a_seeded_choice_is_stable_per_seed_and_varies_across_seeds():
    seeded = [{**REFUND_TICKET[0], "pick": {**REFUND_TICKET[0]["pick"], "choose": "seeded"}}]
    first = [template_params(seeded, world=_world(seed))["ticket"] for seed in (7, 8, 9)]
    again = [template_params(seeded, world=_world(seed))["ticket"] for seed in (7, 8, 9)]
    assert first == again


def test_a_seed_with_no_candidate_is_a_clear_error():
    impossible = [
        {"name": "ticket", "pick": {"table": "supportdesk.ticket", "where": {"subject": "no such subject ever"}}}
    ]
    with pytest.raises(NoCandidate) as err:
        template_params(impossible, world=_world())
    assert err.value.path == "params[0]" and "seed 7" in str(err.value) and "supportdesk.ticket" in str(err.value)


def test_sum_min_and_max_follow_the_field_type():
    steps = [
        {"name": "total", "aggregate": {"op": "sum", "table": "supportdesk.payment", "field": "amount"}},
        {"name": "biggest", "aggregate": {"op": "max", "table": "supportdesk.payment", "field": "amount"}},
        {"name": "smallest", "aggregate": {"op": "min", "table": "supportdesk.payment", "field": "amount"}},
    ]
    params = template_params(steps, world=_world())
    from decimal import Decimal

    amounts = [Decimal(p["amount"]) for p in snapshot(_world())["tables"]["supportdesk.payment"].values()]
    assert Decimal(params["total"]) == sum(amounts)
    assert Decimal(params["biggest"]) == max(amounts) and Decimal(params["smallest"]) == min(amounts)


@pytest.mark.parametrize(
    "steps, path, words",
    [
        ([{"name": "t", "pick": {"table": "supportdesk.tikcet"}}], "params[0].pick.table", "unknown table"),
        (
            [{"name": "t", "pick": {"table": "supportdesk.ticket", "where": {"statuss": "open"}}}],
            "params[0].pick.where.statuss",
            "unknown field",
        ),
        (
            [{"name": "t", "pick": {"table": "supportdesk.ticket", "where": {"status": "slved"}}}],
            "params[0].pick.where.status",
            "slved",
        ),
        ([{"name": "t", "field": "nothing.subject"}], "params[0].field", "not a record"),
        ([{"name": "t", "text": "{later}"}], "params[0]", "names no param"),
        (
            [{"name": "t", "aggregate": {"op": "sum", "table": "supportdesk.ticket"}}],
            "params[0].aggregate.field",
            "needs the field",
        ),
        ([{"name": "t", "policy": "no_such_policy"}], "params[0].policy", "no policy"),
        ([{"name": "Bad Name", "value": 1}], "params[0].name", "lowercase"),
        ([{"name": "t", "value": 1, "text": "x"}], "params[0]", "exactly one"),
        ([{"name": "t", "date": {"add": "three days"}}], "params[0].date.add", "offset"),
    ],
)
def test_bad_templates_are_refused_with_the_json_path(steps, path, words):
    errors = template_errors(steps, replica="supportdesk")
    assert any(p == path and words in m for p, m in errors), errors
    with pytest.raises(TemplateError):
        template_params(steps, world=_world())


def test_a_reference_field_gives_the_record_it_names_as_a_pick_would():
    steps = [
        {
            "name": "ticket",
            "pick": {"table": "supportdesk.ticket", "where": {"group": {"is_null": False}}, "choose": "first"},
        },
        {"name": "group", "field": "ticket.group"},
        {"name": "again", "pick": {"table": "supportdesk.group", "where": {"public_id": "{group}"}, "choose": "first"}},
        {"name": "org", "field": "ticket.requester__organization"},
    ]
    params = template_params(steps, world=_world())
    assert isinstance(params["group"], int) and params["again"] == params["group"]
    assert params["org"] is None or isinstance(params["org"], int)


def test_internal_params_serve_later_params_and_stay_out_of_the_answer_key():
    steps = [
        {"name": "agent", "picker": "desk_agent", "internal": True},
        {"name": "groups", "policy": "assignable_groups", "args": {"agent": "{agent_id}"}, "internal": True},
        {
            "name": "ticket",
            "pick": {"table": "supportdesk.ticket", "where": {"group": {"in": "{groups}"}}, "choose": "first"},
        },
        {"name": "greeting", "text": "{agent_name} takes #{ticket}"},
    ]
    params = template_params(steps, world=_world())
    assert set(params) == {"ticket", "greeting"}


def test_a_picker_s_keys_take_its_prefix_and_an_empty_prefix_keeps_them():
    default = template_params([{"name": "agent", "picker": "desk_agent"}], world=_world())
    other = template_params([{"name": "agent", "picker": "desk_agent", "prefix": "who_"}], world=_world())
    bare = template_params(
        [{"name": "agent", "picker": "desk_agent", "prefix": ""}, {"name": "hi", "text": "Hi {name}"}], world=_world()
    )
    assert set(default) == {"agent_email", "agent_name", "agent_password", "agent_id"}
    assert {k.removeprefix("who_"): v for k, v in other.items()} == {
        k.removeprefix("agent_"): v for k, v in default.items()
    }
    assert bare["name"] == default["agent_name"] and bare["hi"] == f"Hi {default['agent_name']}"


@pytest.mark.parametrize(
    "steps, path, words",
    [
        ([{"name": "t", "value": 1, "prefix": "x_"}], "params[0].prefix", "only a picker"),
        ([{"name": "t", "picker": "desk_agent", "prefix": "Bad-"}], "params[0].prefix", "lowercase"),
        ([{"name": "t", "value": 1, "internal": "yes"}], "params[0].internal", "must be true or false"),
    ],
)
def test_bad_prefixes_and_internal_flags_are_refused(steps, path, words):
    errors = template_errors(steps, replica="supportdesk")
    assert any(p == path and words in m for p, m in errors), errors
