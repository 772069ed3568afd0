"""How one failed episode is read: its first failing assertion, error kinds and action patterns (no browser)."""

import pytest
from django.core.management import CommandError, call_command
from replicagym.reports.diagnosis import (
    ELEMENT_NOT_FOUND,
    GAVE_UP,
    INEFFECTIVE,
    LOOP,
    REFUSED_NAVIGATION,
    REPEATED_WRITES,
    DiagnosisError,
    action_patterns,
    diagnose,
    first_failing_assertion,
    parse_run_ids,
)


def step(action, error="", changed=True, writes=None):
    out = {"action": action, "error": error, "changed": changed, "fault_events": []}
    if writes is not None:
        out["writes"], out["state_changed"] = writes, bool(writes)
    return out


def test_the_first_required_assertion_that_failed_names_the_failure():
    verdict = {
        "assertions": [
            {"name": "optional", "required": False, "passed": False},
            {"name": "the ticket is solved", "passed": True},
            {"name": "one refund", "passed": False},
            {"name": "nothing else changed", "passed": False},
        ]
    }
    assert first_failing_assertion(verdict) == "one refund"
    assert first_failing_assertion(None) is None


def test_three_steps_on_one_element_are_a_loop_and_two_are_not():
    looping = [step('click("a12")', changed=False)] * 3
    assert LOOP in action_patterns(looping, reference_steps=3, hit_limit=False)
    twice = [step('click("a12")'), step('click("a12")'), step('click("a13")')]
    assert LOOP not in action_patterns(twice, reference_steps=3, hit_limit=False)


def test_writing_the_same_row_twice_is_a_repeated_write():
    refund = [{"table": "testbed.note", "id": "N1", "op": "insert"}]
    steps = [step('click("a1")', writes=refund), step('click("a2")', writes=[]), step('click("a1")', writes=refund)]
    assert REPEATED_WRITES in action_patterns(steps, reference_steps=3, hit_limit=False)
    once = [step('click("a1")', writes=refund), step('click("a2")', writes=[])]
    assert REPEATED_WRITES not in action_patterns(once, reference_steps=2, hit_limit=False)


def test_stopping_short_of_the_reference_is_giving_up_unless_a_limit_stopped_it_or_it_answered():
    short = [step('click("a1")')]
    assert GAVE_UP in action_patterns(short, reference_steps=5, hit_limit=False)
    assert GAVE_UP not in action_patterns(short, reference_steps=5, hit_limit=True)
    assert GAVE_UP not in action_patterns([step('send_msg_to_user("done")')], reference_steps=5, hit_limit=False)
    infeasible = [step('click("a1")')] * 6 + [step('report_infeasible("cannot")')]
    assert GAVE_UP in action_patterns(infeasible, reference_steps=5, hit_limit=False)


@pytest.mark.parametrize(
    "answer", ['send_message_to_user("done")', 'send_msg_to_user ( "done" )', "report_infeasible('no')"]
)
def test_an_answer_by_any_of_its_names_is_an_answer_not_an_acting_step(answer):
    # report_infeasible is giving up by definition; the message, under its alias too, is an answer
    assert (GAVE_UP in action_patterns([step(answer)], reference_steps=5, hit_limit=False)) == answer.startswith(
        "report"
    )
    # half the acting steps idle is not "mostly": the answer, which changes no page, is no acting step
    steps = [step('click("a1")'), step('click("a2")', changed=False), step(answer, changed=False)]
    assert INEFFECTIVE not in action_patterns(steps, reference_steps=3, hit_limit=False)


def test_mostly_failing_or_idle_steps_are_actions_that_change_nothing():
    idle = [
        step('click("a1")', error='click: no element matches "a1" on this page'),
        step("scroll(0, 200)", changed=False),
        step('click("a2")'),
    ]
    assert INEFFECTIVE in action_patterns(idle, reference_steps=3, hit_limit=False)
    assert INEFFECTIVE not in action_patterns(idle[1:] + [step('click("a3")')], reference_steps=3, hit_limit=False)


def test_the_engine_wording_of_errors_is_what_the_kinds_match():
    # the marks diagnosis looks for are the engine's own messages (episodes.engine.browser)
    from pathlib import Path

    source = (Path(__file__).resolve().parents[2] / "episodes" / "engine" / "browser.py").read_text()
    assert "no element matches" in source and "was refused" in source and "was blocked" in source
    assert ELEMENT_NOT_FOUND and REFUSED_NAVIGATION


@pytest.mark.parametrize(
    "text, message", [("", "at least one run"), ("1,x", "'x' is not a run id"), ("0", "not a run id")]
)
def test_run_ids_are_checked(text, message):
    with pytest.raises(DiagnosisError, match=message):
        parse_run_ids(text)


@pytest.mark.django_db
def test_unknown_runs_are_refused_by_the_function_and_the_command():
    with pytest.raises(DiagnosisError, match="no run 99"):
        diagnose(run_ids=[99])
    with pytest.raises(CommandError, match="no run 98, 99"):
        call_command("diagnose", "98,99")


@pytest.mark.django_db
def test_the_page_refuses_bad_run_ids_with_the_reason(client, author_user):
    client.force_login(author_user)
    assert b"is not a run id" in (answer := client.get("/runs/diagnose?runs=1,x")).content and answer.status_code == 400
    assert b"no run 42" in (answer := client.get("/runs/diagnose?runs=42")).content and answer.status_code == 400
    assert client.get("/runs/diagnose").status_code == 200
