"""Spec validation refuses bad specs with the JSON path of the problem; answer keys fill placeholders.
Checked against the support desk's models: their field kinds (choices, tag lists, money, child rows)
are what the validator's type checks are about."""

import pytest

from verifiers.spec import SpecError, fill_params, validate_spec


def state(**extra):
    return {
        "name": "solved",
        "kind": "state",
        "table": "supportdesk.ticket",
        "where": {"public_id": 8001},
        "expect": {"fields": {"status": "solved"}},
        **extra,
    }


def refused(spec, **kwargs) -> str:
    with pytest.raises(SpecError) as caught:
        validate_spec(spec, replica="supportdesk", **kwargs)
    return str(caught.value)


def test_a_well_formed_spec_over_every_kind_is_accepted():
    spec = {
        "assertions": [
            state(),
            {
                "name": "status changed",
                "kind": "diff",
                "table": "supportdesk.ticket",
                "op": "changed",
                "where": {"public_id": "{ticket}"},
                "changes": {"status": {"from": {"ne": "solved"}, "to": "solved"}},
                "count": 1,
            },
            {"name": "only the ticket", "kind": "diff", "only_allowed": True},
            {
                "name": "on the ticket page",
                "kind": "page",
                "url": r"/agent/tickets/\d+",
                "element": {"role": "button", "name": "Submit"},
                "state": "visible",
            },
            {
                "name": "told the amount",
                "kind": "answer",
                "type": "money",
                "expected": {"amount": "49.99", "currency": "USD"},
            },
            {
                "name": "no admin",
                "kind": "trajectory",
                "max_steps": 20,
                "forbidden_pages": ["/admin/.*"],
                "order": [{"fault": "http_500"}, {"action": "click", "args": "Submit"}],
            },
            {
                "name": "no double",
                "kind": "python",
                "check": "no_duplicate_additions",
                "args": {"table": "supportdesk.comment", "fields": ["ticket"]},
                "required": False,
            },
        ],
        "allowed_changes": [{"table": "supportdesk.ticket", "ops": ["changed"], "fields": ["status", "updated_at"]}],
    }
    validate_spec(spec, replica="supportdesk")


def test_an_unknown_field_is_refused_with_its_path():
    message = refused({"assertions": [state(), state(name="b", where={"statuss": "open"})]})
    assert message.startswith("assertions[1].where.statuss: unknown field 'statuss' of supportdesk.ticket (fields: ")


def test_an_unknown_model_is_refused_with_its_path():
    message = refused({"assertions": [state(table="supportdesk.tiket")]})
    assert message.startswith("assertions[0].table: unknown model 'supportdesk.tiket'")


def test_a_bad_operator_is_refused_with_its_path():
    message = refused({"assertions": [state(where={"public_id": {"equals": 8001}})]})
    assert message.startswith("assertions[0].where.public_id.equals: bad operator 'equals'")


def test_an_operator_that_does_not_fit_the_field_type_is_refused():
    message = refused({"assertions": [state(where={"subject": {"gt": "a"}})]})
    assert message.startswith("assertions[0].where.subject.gt: operator 'gt' does not apply to a text field")


@pytest.mark.parametrize(
    "where, path",
    [
        ({"public_id": "8001"}, "assertions[0].where.public_id"),
        ({"created_at": "last tuesday"}, "assertions[0].where.created_at"),
        ({"created_at": {"gte": {"clock": "+3 days"}}}, "assertions[0].where.created_at.gte"),
        ({"status": "slved"}, "assertions[0].where.status"),
        ({"status": {"in": ["open", "slved"]}}, "assertions[0].where.status.in[1]"),
        ({"subject": {"matches": "(unclosed"}}, "assertions[0].where.subject.matches"),
        ({"tags": {"contains": {"a": 1}}}, "assertions[0].where.tags.contains"),
        ({"status": {"eq": "open", "tolerance": 1}}, "assertions[0].where.status.tolerance"),
    ],
)
def test_a_value_of_the_wrong_type_for_its_field_is_refused(where, path):
    assert refused({"assertions": [state(where=where)]}).startswith(path + ":")


def test_an_unknown_kind_is_refused():
    message = refused({"assertions": [{"name": "x", "kind": "telepathy"}]})
    assert message.startswith("assertions[0].kind: unknown kind 'telepathy'")


def test_an_unknown_key_in_an_assertion_is_refused_with_its_path():
    message = refused({"assertions": [state(wher={"status": "open"})]})
    assert message.startswith("assertions[0].wher: unknown key 'wher'")


def test_an_unknown_python_check_is_refused():
    message = refused({"assertions": [{"name": "x", "kind": "python", "check": "telepathy"}]})
    assert message.startswith("assertions[0].check: unknown python check 'telepathy'")


def test_python_check_arguments_are_checked_against_the_models():
    spec = {
        "assertions": [
            {
                "name": "x",
                "kind": "python",
                "check": "no_duplicate_additions",
                "args": {"table": "supportdesk.comment", "fields": ["tikcet"]},
            }
        ]
    }
    assert refused(spec) == "assertions[0].args: unknown field 'tikcet' of supportdesk.comment"


def test_allowed_changes_are_checked_against_the_models():
    spec = {"assertions": [state()], "allowed_changes": [{"table": "supportdesk.ticket", "fields": ["stauts"]}]}
    assert refused(spec) == "allowed_changes[0].fields[0]: unknown field 'stauts' of supportdesk.ticket"


def test_only_allowed_needs_allowed_changes():
    spec = {"assertions": [{"name": "x", "kind": "diff", "only_allowed": True}]}
    assert refused(spec).startswith("assertions[0].only_allowed:")


def test_duplicate_assertion_names_are_refused():
    assert refused({"assertions": [state(), state()]}).startswith("assertions[1].name: duplicate")


def test_an_answer_of_the_wrong_shape_is_refused():
    spec = {"assertions": [{"name": "a", "kind": "answer", "type": "money", "expected": "forty"}]}
    assert refused(spec).startswith("assertions[0].expected:")
    spec = {"assertions": [{"name": "a", "kind": "answer", "type": "regex", "pattern": "[a-"}]}
    assert refused(spec).startswith("assertions[0].pattern: bad regular expression")


def test_a_spec_with_no_assertions_is_refused():
    assert refused({"assertions": []}).startswith("assertions:")


def test_placeholders_are_accepted_unfilled_and_checked_once_filled():
    spec = {"assertions": [state(where={"public_id": "{ticket}"})]}
    validate_spec(spec, replica="supportdesk")
    validate_spec(spec, replica="supportdesk", params={"ticket": 8001})
    assert refused(spec, params={"ticket": "8001"}).startswith("assertions[0].where.public_id: expected an integer")


def test_fill_params_keeps_the_json_type_of_whole_placeholders_and_splices_text():
    spec = {
        "a": "{ticket}",
        "b": "Ticket #{ticket} for {name}",
        "c": ["{amount}"],
        "url": r"/agent/tickets/{name}",
        "d": "{{literal}}",
    }
    filled = fill_params(spec, {"ticket": 8001, "name": "a.b", "amount": {"amount": "49.99", "currency": "USD"}})
    assert filled == {
        "a": 8001,
        "b": "Ticket #8001 for a.b",
        "c": [{"amount": "49.99", "currency": "USD"}],
        "url": r"/agent/tickets/a\.b",
        "d": "{literal}",
    }
    assert spec["a"] == "{ticket}"  # the spec itself is left as it was


def test_fill_params_refuses_a_placeholder_with_no_param_naming_its_path():
    with pytest.raises(SpecError) as caught:
        fill_params({"assertions": [{"where": {"public_id": "{ticket}"}}]}, {"order": 1})
    assert str(caught.value).startswith("assertions[0].where.public_id: no param 'ticket'")


def test_a_page_assertion_with_nothing_to_check_says_what_it_needs():
    assert (
        refused({"assertions": [{"name": "p", "kind": "page"}]}) == "assertions[0]: needs one of: url, title, element"
    )


def test_a_spec_that_passed_is_checked_again_only_after_it_changes():
    spec = {"assertions": [state(name="cached")]}
    validate_spec(spec, replica="supportdesk")
    validate_spec(spec, replica="supportdesk")  # served from the cache of valid specs
    spec["assertions"][0]["where"] = {"statuss": "open"}
    assert refused(spec).startswith("assertions[0].where.statuss: unknown field")


def test_filling_leniently_twice_changes_nothing_more():
    spec = {"where": {"subject": "Order {order}", "body": {"matches": "{order}"}}, "x": "{ticket}"}
    params = {"order": "ORD-{1}", "ticket": 8001}
    once = fill_params(spec, params)
    assert fill_params(once, params, strict=False) == once
    assert fill_params({"x": "{nope} and {order}"}, params, strict=False) == {"x": "{nope} and ORD-{1}"}


def test_answer_options_are_checked_even_when_the_expected_value_is_a_placeholder():
    spec = {"assertions": [{"name": "a", "kind": "answer", "type": "number", "expected": "{n}", "tolerance": "lots"}]}
    assert refused(spec).startswith("assertions[0].tolerance: tolerance must be a number")
    spec = {"assertions": [{"name": "a", "kind": "answer", "type": "date", "expected": "{d}", "tolerance": 1}]}
    assert refused(spec).startswith("assertions[0].tolerance: tolerance does not apply")


def test_a_spec_with_no_required_assertion_is_refused():
    assert refused({"assertions": [state(required=False)]}) == "assertions: at least one assertion must be required"
