"""The mutation audit (verifiers.audit) finds the wrong work a weak verifier lets through, and none a strong one
does.
"""

import pytest

from verifiers.audit import AuditHints, answer_keys, audit_reference, mutants_of
from verifiers.inputs import VerifierInputs


def _note(public_id, title, owner=1, done=False, body=""):
    return {
        "public_id": public_id,
        "title": title,
        "body": body,
        "owner": owner,
        "done": done,
        "remind_at": None,
        "reminded": False,
        "estimate_hours": "0.00",
        "updated_at": "2026-03-01T09:00:00Z",
    }


def _snapshot(notes):
    members = {
        "1": {"public_id": 1, "name": "Ada", "email": "ada@example.com", "role": "owner"},
        "2": {"public_id": 2, "name": "Bo", "email": "bo@example.com", "role": "member"},
    }
    return {
        "replica": "testbed",
        "tables": {"testbed.member": members, "testbed.note": {str(n["public_id"]): n for n in notes}},
    }


BEFORE = [_note(11, "Draft"), _note(12, "Plan", owner=2), _note(13, "Ideas")]


def _inputs(after, *, trajectory=(), messages=(), params=None):
    return VerifierInputs(
        initial=_snapshot(BEFORE),
        final=_snapshot(after),
        trajectory=list(trajectory),
        messages=list(messages),
        params=params or {},
        clock="2026-03-01T10:00:00Z",
    )


RENAMED = [_note(11, "Final report"), _note(12, "Plan", owner=2), _note(13, "Ideas")]
TYPED = [{"index": 0, "action": 'fill("#id_title", "Final report")', "url": "http://w.localhost/notes/11"}]
TITLE_SET = {
    "name": "title set",
    "kind": "state",
    "table": "testbed.note",
    "where": {"public_id": 11},
    "expect": {"count": 1, "fields": {"title": "Final report"}},
}
ONLY_ALLOWED = {"name": "nothing else", "kind": "diff", "only_allowed": True}
ALLOWED = [{"table": "testbed.note", "ops": ["changed"], "where": {"public_id": 11}, "fields": ["title", "updated_at"]}]


def _audit(verifier, inputs, spec=None):
    spec = {"instruction": "", "verifier": verifier, **(spec or {})}
    return audit_reference(task_id="testbed.t", spec=spec, verifier=verifier, inputs=inputs)


def test_a_verifier_reading_only_that_some_note_got_the_title_lets_the_wrong_note_through():
    weak = {
        "assertions": [
            {
                "name": "a note is titled",
                "kind": "diff",
                "table": "testbed.note",
                "op": "changed",
                "changes": {"title": {"to": {"matches": "report"}}},
            }
        ]
    }
    report = _audit(weak, _inputs(RENAMED, trajectory=TYPED))
    ids = {s.id for s in report.undeclared}
    assert "target:testbed.note[11]->13" in ids  # the same rename on another note
    assert "collateral:testbed.note[13].done=true" in ids  # an unrelated note ticked off as well
    assert "text:testbed.note[11].title=claim0" in ids  # a title with a sentence appended
    assert not report.ok


def test_a_verifier_pinning_row_value_and_collateral_kills_every_mutant():
    strong = {"assertions": [TITLE_SET, ONLY_ALLOWED], "allowed_changes": ALLOWED}
    report = _audit(strong, _inputs(RENAMED, trajectory=TYPED))
    assert report.mutants >= 8
    assert report.survivors == [] and report.ok
    assert report.killed == report.mutants
    assert {"target", "text", "collateral", "structure"} <= set(report.by_kind)


def test_a_declared_survivor_is_reported_with_its_reason_and_a_stale_declaration_is_a_problem():
    verifier = {"assertions": [TITLE_SET]}
    spec = {
        "audit": {
            "equivalent": {
                "collateral:testbed.note[*].done=*": "ticking other notes is allowed here",
                "choice:nowhere*": "matches nothing",
            }
        }
    }
    report = _audit(verifier, _inputs(RENAMED, trajectory=TYPED), spec)
    declared = [s for s in report.survivors if s.reason]
    assert [s.id for s in declared] == ["collateral:testbed.note[13].done=true"]
    assert any("'choice:nowhere*' matches no surviving mutant" in p for p in report.problems)


def test_typed_text_with_a_false_claim_survives_a_one_regex_check_and_not_a_check_of_forbidden_claims():
    after = [_note(11, "Draft", body="We cannot refund order 4419 after 30 days."), *BEFORE[1:]]
    typed = [{"index": 0, "action": 'fill("#body", "We cannot refund order 4419 after 30 days.")', "url": ""}]
    inputs = _inputs(after, trajectory=typed, params={"order": 4419})
    one_regex = {
        "assertions": [
            {
                "name": "body says no",
                "kind": "state",
                "table": "testbed.note",
                "where": {"public_id": 11},
                "expect": {"fields": {"body": {"matches": "cannot refund"}}},
            }
        ]
    }
    ids = {s.id for s in _audit(one_regex, inputs).undeclared}
    assert "text:testbed.note[11].body=claim0" in ids  # "...I have issued a full refund" still passes
    assert "text:testbed.note[11].body=without:4419" in ids  # the order it is about left out
    structural = {
        "assertions": [
            {
                "name": "body refuses, names the order, claims no refund",
                "kind": "state",
                "table": "testbed.note",
                "where": {"public_id": 11},
                "expect": {
                    "fields": {
                        "body": {"matches": r"^(?![\s\S]*\b(issued|refunded)\b)(?=[\s\S]*\b4419\b)[\s\S]*cannot refund"}
                    }
                },
            }
        ]
    }
    ids = {s.id for s in _audit(structural, inputs).undeclared}
    assert not {i for i in ids if i.startswith("text:")} - {
        "text:testbed.note[11].body=claim1"
    }  # "done and closed": not a refund


def test_answer_mutants_one_off_are_killed_by_an_exact_answer_and_survive_a_loose_one():
    inputs = _inputs(BEFORE, messages=["There are 3 notes."])
    exact = {"assertions": [{"name": "count", "kind": "answer", "type": "number", "expected": 3}]}
    report = _audit(exact, inputs)
    assert report.by_kind["answer"] == [2, 0]  # none and number+1 both played, both killed
    loose = {"assertions": [{"name": "said something", "kind": "answer", "type": "regex", "pattern": ".*notes.*"}]}
    assert {s.id for s in _audit(loose, inputs).undeclared} == {"answer:number+1"}


def test_a_channel_mutant_replaces_the_interaction_step_by_the_request_it_sent():
    trajectory = [
        {"index": 0, "action": 'drag_and_drop("a1", "a2")', "url": "http://w-x.localhost/board/", "writes": [1]}
    ]
    mutants = list(
        mutants_of(_inputs(RENAMED, trajectory=trajectory), hints=AuditHints(), interaction_actions={"drag_and_drop"})
    )
    channel = [m for m in mutants if m.kind == "channel"]
    assert len(channel) == 1
    assert channel[0].inputs.trajectory[0]["action"] == "POST /board/"
    assert channel[0].inputs.trajectory[0]["writes"] == [1]


def test_params_named_in_the_instruction_and_read_by_no_assertion_are_problems_unless_declared():
    spec = {
        "instruction": "Rename note #{note} to {new_title}; sign in as {email}.",
        "audit": {"unread_params": {"email": "the sign-in address, not a constraint"}},
    }
    report = _audit(
        {"assertions": [{**TITLE_SET, "where": {"public_id": "{note}"}}]},
        _inputs(RENAMED, trajectory=TYPED, params={"note": 11}),
        spec,
    )
    assert [p for p in report.problems if p.startswith("param")] == [
        "param {new_title} is named in the instruction but read by no assertion"
    ]


@pytest.mark.parametrize(("keys", "varies"), [([3, 3, 3], False), ([3, 4, 3], True)])
def test_answer_keys_are_read_per_seed(keys, varies):
    spec = {"verifier": {"assertions": [{"name": "n", "kind": "answer", "type": "number", "expected": "{n}"}]}}
    got = answer_keys(spec, [{"n": k} for k in keys])
    assert (len(set(got)) > 1) is varies
    assert answer_keys({"verifier": {"assertions": []}}, [{}]) is None


def test_text_facts_kills_every_text_mutant_of_a_refusal_that_names_its_order():
    after = [_note(11, "Draft", body="We cannot refund order 4419 after 30 days."), *BEFORE[1:]]
    typed = [{"index": 0, "action": 'fill("#body", "We cannot refund order 4419 after 30 days.")', "url": ""}]
    facts = {
        "name": "the note refuses, names the order and claims nothing done",
        "kind": "python",
        "check": "text_facts",
        "args": {
            "table": "testbed.note",
            "field": "body",
            "rows": "final",
            "where": {"public_id": 11},
            "require": [r"\bcannot\b", r"\b4419\b"],
            "forbid": [r"\b(issued|refunded|done)\b"],
            "min_words": 5,
        },
    }
    report = _audit({"assertions": [facts]}, _inputs(after, trajectory=typed, params={"order": 4419}))
    assert report.by_kind["text"][0] >= 5
    assert [s.id for s in report.survivors if s.kind == "text"] == []


def test_a_wrong_value_equal_to_the_right_one_is_no_mutant():
    after = [*RENAMED, _note(14, "New", owner=2)]  # an added note with 0.00 hours
    ids = {m.id for m in mutants_of(_inputs(after), hints=AuditHints())}
    assert "choice:testbed.note[14].estimate_hours=+1" in ids
    assert "choice:testbed.note[14].estimate_hours=half" not in ids  # half of 0.00 is 0.00
