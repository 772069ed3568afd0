"""The task language: params where literals go (counts, range bounds), relation paths in where, computed dates,
when/then conditional assertions, list params and for_each."""

from datetime import date, datetime, timedelta

import pytest

from catalogue.packs import filled_errors
from catalogue.task_templates import NoCandidate, template_errors, template_params
from replicas.testbed.models import Member, Note
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import template_get_or_build
from tests.verifiers.conftest import Before
from tests.verifiers.test_audit import BEFORE, _note, _snapshot
from verifiers.audit import audit_reference
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.placeholders import MissingParam, expand_actions, placeholder_paths
from verifiers.spec import SpecError, validate_spec
from verifiers.values import BadValue, calendar_date

pytestmark = pytest.mark.django_db

EMPTY = {"replica": "testbed", "tables": {}}


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


# --- computed dates on the world clock -----------------------------------------------------------

THURSDAY = date(2026, 3, 5)


@pytest.mark.parametrize(
    "rule, args, day, expected",
    [
        ("start_of_week", {}, THURSDAY, date(2026, 3, 2)),
        ("start_of_week", {}, date(2026, 3, 2), date(2026, 3, 2)),
        ("start_of_week", {"n": -1}, THURSDAY, date(2026, 2, 23)),
        ("start_of_month", {}, THURSDAY, date(2026, 3, 1)),
        ("start_of_month", {"n": -3}, THURSDAY, date(2025, 12, 1)),
        ("start_of_quarter", {}, THURSDAY, date(2026, 1, 1)),
        ("start_of_quarter", {}, date(2026, 12, 31), date(2026, 10, 1)),
        ("start_of_quarter", {"n": 1}, date(2026, 12, 31), date(2027, 1, 1)),
        ("start_of_quarter", {"n": -1}, date(2026, 4, 1), date(2026, 1, 1)),
        ("start_of_year", {}, THURSDAY, date(2026, 1, 1)),
        ("business_days", {"n": -5}, THURSDAY, date(2026, 2, 26)),
        ("business_days", {"n": 2}, THURSDAY, date(2026, 3, 9)),
        ("business_days", {"n": 1}, date(2026, 3, 7), date(2026, 3, 9)),  # from a Saturday
        ("business_days", {"n": -1}, date(2026, 3, 9), date(2026, 3, 6)),
        ("nth_weekday", {"weekday": "monday", "n": 1}, THURSDAY, date(2026, 3, 2)),
        ("nth_weekday", {"weekday": "thursday", "n": 1}, THURSDAY, date(2026, 3, 5)),
        ("nth_weekday", {"weekday": "monday", "n": -1}, THURSDAY, date(2026, 3, 30)),
        ("nth_weekday", {"weekday": "friday", "n": 2, "months": 1}, THURSDAY, date(2026, 4, 10)),
        ("nth_weekday", {"weekday": "sunday", "n": 1, "months": -3}, THURSDAY, date(2025, 12, 7)),
    ],
)
def test_calendar_rules(rule, args, day, expected):
    assert calendar_date(rule, args, day) == expected


def test_a_month_without_the_weekday_asked_is_an_error():
    with pytest.raises(BadValue, match="February 2026 has no monday number 5"):
        calendar_date("nth_weekday", {"weekday": "monday", "n": 5}, date(2026, 2, 10))


def _date_answer(expected, message, clock="2026-03-05T10:00:00Z"):
    spec = {"assertions": [{"name": "a", "kind": "answer", "type": "date", "expected": expected}]}
    return verify(spec, VerifierInputs(initial=EMPTY, final=EMPTY, messages=[message], clock=clock, replica="testbed"))


def test_an_answer_date_computed_on_the_world_clock_and_one_business_day_off_fails():
    five_back = {"date": "business_days", "n": -5}
    assert _date_answer(five_back, "It was opened on 2026-02-26.").passed
    for wrong in ("2026-02-25", "2026-02-27", "2026-02-28"):
        assert not _date_answer(five_back, f"It was opened on {wrong}.").passed
    # the clock is the world's: a week later, another date
    assert _date_answer(five_back, "March 5, 2026", clock="2026-03-12T10:00:00Z").passed
    assert _date_answer({"date": "nth_weekday", "weekday": "monday", "n": 1}, "Monday 2 March 2026").passed


@pytest.mark.parametrize(
    "expected, message",
    [
        ({"date": "start_of_decade"}, "unknown date rule 'start_of_decade' (rules: start_of_week, "),
        ({"date": "business_days"}, "business_days needs 'n'"),
        ({"date": "business_days", "n": 0}, "business_days needs n other than 0"),
        ({"date": "business_days", "n": "5"}, "n of business_days must be an integer"),
        ({"date": "start_of_month", "weekday": "monday"}, "start_of_month takes n, not 'weekday'"),
        ({"date": "nth_weekday", "weekday": "mon", "n": 1}, "weekday must be one of monday, "),
        ({"date": "nth_weekday", "weekday": "monday", "n": 6}, "n of nth_weekday is 1 to 5"),
    ],
)
def test_a_bad_computed_date_is_refused_with_its_path(expected, message):
    spec = {"assertions": [{"name": "a", "kind": "answer", "type": "date", "expected": expected}]}
    with pytest.raises(SpecError) as caught:
        validate_spec(spec, replica="testbed")
    assert str(caught.value).startswith(f"assertions[0].expected: {message}")
    state = {"name": "s", "kind": "state", "table": "testbed.note", "where": {"remind_at": {"gte": expected}}}
    with pytest.raises(SpecError) as caught:
        validate_spec({"assertions": [{**state, "expect": {"count": 1}}]}, replica="testbed")
    assert str(caught.value).startswith(f"assertions[0].where.remind_at.gte: {message}")


def test_a_computed_date_in_a_where_compares_the_day_on_the_world_clock(before):
    clock = before.world.clock
    week = calendar_date("start_of_week", {}, clock.date())
    notes = before.initial["tables"]["testbed.note"]
    since = [
        k for k, n in notes.items() if datetime.fromisoformat(n["updated_at"].replace("Z", "+00:00")).date() >= week
    ]
    spec = _state({"updated_at": {"gte": {"date": "start_of_week"}}}, count=len(since))
    validate_spec({"assertions": [spec]}, replica="testbed")
    inputs = before.inputs()
    assert verify({"assertions": [spec]}, inputs).passed
    assert since, "the seed's notes must include some updated this week"
    # a week later no note was updated since that week's Monday: the date is the world clock's, not a fixed one
    later = before.inputs(clock=(clock + timedelta(weeks=1)).isoformat())
    assert not verify({"assertions": [spec]}, later).passed


def test_a_template_date_param_on_a_calendar_rule():
    world = template_get_or_build(replica="testbed", seed=7, variant="small")
    steps = [
        {"name": "quarter", "date": {"on": "start_of_quarter", "format": "date"}},
        {"name": "back5", "date": {"on": "business_days", "n": -5, "format": "date"}},
        {"name": "first_monday", "date": {"on": "nth_weekday", "weekday": "monday", "n": 1, "add": "+9h"}},
    ]
    assert template_errors(steps, replica="testbed") == []
    params = template_params(steps, world=world)
    day = world.clock.date()
    assert params["quarter"] == calendar_date("start_of_quarter", {}, day).isoformat()
    assert params["back5"] == calendar_date("business_days", {"n": -5}, day).isoformat()
    monday = calendar_date("nth_weekday", {"weekday": "monday", "n": 1}, day)
    assert params["first_monday"] == f"{monday.isoformat()}T09:00:00Z"
    bad = [{"name": "d", "date": {"on": "business_days", "n": 0}}, {"name": "e", "date": {"weekday": "monday"}}]
    assert [p for p, _ in template_errors(bad, replica="testbed")] == ["params[0].date", "params[1].date"]


# --- when/then conditional assertions ------------------------------------------------------------

OWNERS_NOTE = {
    "name": "done only when its owner is the workspace owner",
    "kind": "conditional",
    "when": {
        "name": "the note's owner was the workspace owner",
        "kind": "state",
        "table": "testbed.note",
        "at": "initial",
        "where": {"public_id": "{note}", "owner__role": "owner"},
        "expect": {"count": 1},
    },
    "then": [
        {
            "name": "the note is done",
            "kind": "state",
            "table": "testbed.note",
            "where": {"public_id": "{note}"},
            "expect": {"count": 1, "fields": {"done": True}},
        }
    ],
    "else": [
        {
            "name": "the note is left open",
            "kind": "state",
            "table": "testbed.note",
            "where": {"public_id": "{note}"},
            "expect": {"count": 1, "fields": {"done": False}},
        }
    ],
}


def _done(notes_done=(), owner_of_bo="member"):
    after = [_note(n["public_id"], n["title"], owner=n["owner"], done=n["public_id"] in notes_done) for n in BEFORE]
    final = _snapshot(after)
    final["tables"]["testbed.member"]["2"]["role"] = owner_of_bo
    return final


def _judge(spec, note, final):
    inputs = VerifierInputs(initial=_snapshot(BEFORE), final=final, params={"note": note}, clock="2026-03-01T10:00:00Z")
    return verify(spec, inputs)


def test_a_conditional_asks_the_branch_the_world_calls_for():
    spec = {"assertions": [OWNERS_NOTE]}
    validate_spec(spec, replica="testbed")
    assert _judge(spec, 11, _done({11})).passed  # Ada's note, Ada is the owner: done
    missed = _judge(spec, 11, _done()).assertions[0]
    assert not missed["passed"]
    assert missed["detail"].startswith('"the note\'s owner was the workspace owner" holds (1 row(s) of testbed.note')
    assert 'so "the note is done" must hold' in missed["detail"]
    assert _judge(spec, 12, _done()).passed  # Bo's note, Bo is no owner: left open
    wrong = _judge(spec, 12, _done({12})).assertions[0]
    assert not wrong["passed"] and 'so "the note is left open" must hold' in wrong["detail"]


def test_a_when_at_the_start_cannot_be_made_true_by_the_agent():
    """Promoting Bo to owner and then closing his note takes the other branch only for a when read at the end."""
    promoted = _done({12}, owner_of_bo="owner")
    assert not _judge({"assertions": [OWNERS_NOTE]}, 12, promoted).passed
    at_end = {**OWNERS_NOTE, "when": {k: v for k, v in OWNERS_NOTE["when"].items() if k != "at"}}
    assert _judge({"assertions": [at_end]}, 12, promoted).passed


def test_without_else_a_conditional_whose_when_fails_holds():
    spec = {"assertions": [{k: v for k, v in OWNERS_NOTE.items() if k != "else"}]}
    result = _judge(spec, 12, _done({12})).assertions[0]
    assert result["passed"] and result["detail"].endswith("else: nothing asked")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"then": [{**OWNERS_NOTE["then"][0], "required": False}]}, "assertions[0].then[0].required: a conditional's"),
        ({"else": [{**OWNERS_NOTE, "name": "inner"}]}, "assertions[0].else[0].kind: a conditional's parts cannot"),
        ({"else": [{**OWNERS_NOTE["then"][0]}]}, "assertions[0].else[0].name: duplicate assertion name"),
        ({"then": []}, "assertions[0].then: at least 1 item"),
        ({"when": {**OWNERS_NOTE["when"], "where": {"owner__rol": "owner"}}}, "assertions[0].when.where.owner__rol:"),
        ({"when": {**OWNERS_NOTE["when"], "at": "start"}}, "assertions[0].when.at: 'start' is not one of"),
    ],
)
def test_a_bad_conditional_is_refused_with_its_path(change, message):
    with pytest.raises(SpecError) as caught:
        validate_spec({"assertions": [{**OWNERS_NOTE, **change}]}, replica="testbed")
    assert str(caught.value).startswith(message)


def test_the_mutation_audit_mutates_the_work_under_a_conditional():
    allowed = [{"table": "testbed.note", "ops": ["changed"], "where": {"public_id": "{note}"}, "fields": ["done"]}]
    strong = {"assertions": [OWNERS_NOTE, {"name": "nothing else", "kind": "diff", "only_allowed": True}]}
    reference = VerifierInputs(
        initial=_snapshot(BEFORE), final=_done({11}), params={"note": 11}, clock="2026-03-01T10:00:00Z"
    )
    spec = {"instruction": "", "verifier": {**strong, "allowed_changes": allowed}}
    report = audit_reference(task_id="testbed.t", spec=spec, verifier=spec["verifier"], inputs=reference)
    assert report.mutants >= 3 and report.survivors == [] and report.ok
    # without its own collateral rule the same conditional lets another note be ticked off too
    weak = audit_reference(
        task_id="testbed.t",
        spec={"instruction": "", "verifier": {"assertions": [OWNERS_NOTE]}},
        verifier={"assertions": [OWNERS_NOTE]},
        inputs=reference,
    )
    assert "choice:testbed.note[11].done=false" not in {s.id for s in weak.survivors}
    assert any(s.id.startswith("collateral:testbed.note[") for s in weak.survivors)


# --- list params and for_each ------------------------------------------------------------------

EACH_DONE = {
    "name": "each listed note is done",
    "kind": "for_each",
    "in": "{notes}",
    "as": "n",
    "assert": [
        {
            "name": "note {n} is done",
            "kind": "state",
            "table": "testbed.note",
            "where": {"public_id": "{n}"},
            "expect": {"count": 1, "fields": {"done": True}},
        }
    ],
}


def _each(notes_done, notes=(11, 13)):
    inputs = VerifierInputs(
        initial=_snapshot(BEFORE), final=_done(notes_done), params={"notes": list(notes)}, clock="2026-03-01T10:00:00Z"
    )
    return verify({"assertions": [EACH_DONE]}, inputs).assertions[0]


def test_for_each_holds_only_when_every_item_holds_and_names_the_first_that_fails():
    validate_spec({"assertions": [EACH_DONE]}, replica="testbed")
    validate_spec({"assertions": [EACH_DONE]}, replica="testbed", params={"notes": [11, 13]})
    assert _each({11, 13})["passed"]
    assert _each({11, 12, 13})["passed"]  # the verdict of the notes not listed is the diff's business
    missed = _each({11})
    assert not missed["passed"]
    assert missed["detail"].startswith('for n = 13: "note 13 is done" fails: ')
    assert not _each(set())["passed"]
    assert _each(set(), notes=())["passed"]  # nothing to do; a list param never fills to an empty list


@pytest.mark.parametrize(
    "change, message",
    [
        ({"assert": [{**EACH_DONE["assert"][0], "required": True}]}, "assertions[0].assert[0].required: a for_each's"),
        ({"assert": [{**EACH_DONE, "name": "inner"}]}, "assertions[0].assert[0].kind: a for_each's parts cannot"),
        ({"assert": [{**EACH_DONE["assert"][0], "where": {"public_id": 11}}]}, "assertions[0].assert[0]: does not use"),
        ({"as": "N"}, "assertions[0].as: must be a lowercase identifier"),
        ({"in": "notes"}, "assertions[0].in: must be one {placeholder}"),
        ({"assert": []}, "assertions[0].assert: at least 1 item"),
    ],
)
def test_a_bad_for_each_is_refused_with_its_path(change, message):
    with pytest.raises(SpecError) as caught:
        validate_spec({"assertions": [{**EACH_DONE, **change}]}, replica="testbed")
    assert str(caught.value).startswith(message)


def test_a_list_param_lists_the_matching_records_and_a_world_without_any_has_no_task():
    world = template_get_or_build(replica="testbed", seed=7, variant="small")
    steps = [
        {"name": "open_notes", "list": {"table": "testbed.note", "where": {"done": False}, "order_by": ["-public_id"]}}
    ]
    assert template_errors(steps, replica="testbed") == []
    with bound_world(world):
        expected = list(Note.objects.filter(done=False).order_by("-public_id").values_list("public_id", flat=True))
    assert expected and template_params(steps, world=world) == {"open_notes": expected}
    titles = [{"name": "t", "list": {"table": "testbed.note", "where": {"done": False}, "field": "title", "limit": 2}}]
    assert len(template_params(titles, world=world)["t"]) == min(2, len(expected))
    none = [{"name": "x", "list": {"table": "testbed.note", "where": {"title": "no such title at all"}}}]
    with pytest.raises(NoCandidate, match=r"params\[0\]: seed 7: no testbed.note row"):
        template_params(none, world=world)
    bad = [{"name": "y", "list": {"table": "testbed.note", "field": "titel"}}]
    assert [p for p, _ in template_errors(bad, replica="testbed")] == ["params[0].list.field"]


def test_for_each_action_lines_repeat_their_block_per_item_and_the_item_is_no_unfilled_param():
    actions = [
        'goto("/notes")',
        'for_each n in {notes}: goto("/notes/{n}")',
        'for_each n in {notes}: click("Done")',
        'send_msg_to_user("closed {notes}")',
    ]
    assert expand_actions(actions, {"notes": [11, 13]}) == [
        'goto("/notes")',
        'goto("/notes/11")',
        'click("Done")',
        'goto("/notes/13")',
        'click("Done")',
        'send_msg_to_user("closed 11, 13")',
    ]
    assert list(placeholder_paths(actions)) == [("[1]", "notes"), ("[2]", "notes"), ("[3]", "notes")]
    assert list(placeholder_paths({"assertions": [EACH_DONE]})) == [("assertions[0].in", "notes")]
    with pytest.raises(MissingParam, match="for_each needs a list param"):
        expand_actions(actions, {"notes": 11})
    with pytest.raises(MissingParam, match=r"^\[1\]: no param 'notes'"):
        expand_actions(actions, {})
