"""Trajectory assertions and registered Python checks."""

import sys

import pytest

from replicas.testbed.models import Member, Note
from verifiers.checks import register_check
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs

EMPTY = {"replica": "testbed", "tables": {}}


def step(i, action, url="/agent/tickets/8001", error=None, faults=()):
    return {
        "index": i,
        "action": action,
        "error": error,
        "url": f"http://w-abc.localhost:8000{url}",
        "fault_events": list(faults),
    }


TRAJECTORY = [
    step(0, 'fill("a12", "49.99")'),
    step(1, "click(\"role=button[name='Refund']\")", faults=[{"kind": "http_500", "step": 1}]),
    step(2, "click(\"role=button[name='Refund']\")"),
    step(3, 'send_msg_to_user("Refunded $49.99")', url="/agent/filters/unsolved"),
]


def trajectory(steps=TRAJECTORY, **assertion):
    spec = {"assertions": [{"name": "t", "kind": "trajectory", **assertion}]}
    return verify(spec, VerifierInputs(initial=EMPTY, final=EMPTY, trajectory=steps, replica="testbed")).assertions[0]


def test_max_steps():
    assert trajectory(max_steps=4)["passed"]
    assert trajectory(max_steps=3)["detail"] == "4 steps taken, at most 3 allowed"


def test_forbidden_actions_by_name_and_argument_pattern():
    assert not trajectory(forbidden_actions=[{"action": "fill"}])["passed"]
    assert trajectory(forbidden_actions=[{"action": "goto"}])["passed"]
    assert not trajectory(forbidden_actions=[{"action": "click", "args": "Refund"}])["passed"]
    assert trajectory(forbidden_actions=[{"action": "click", "args": "Delete"}])["passed"]


def test_forbidden_pages_match_visited_paths():
    assert not trajectory(forbidden_pages=["/agent/filters/.*"])["passed"]
    assert trajectory(forbidden_pages=["/admin/.*"])["passed"]


def test_order_of_events_a_fault_before_a_retry():
    retry = [{"fault": "http_500"}, {"action": "click", "args": "Refund"}, {"action": "send_msg_to_user"}]
    assert trajectory(order=retry)["passed"]
    no_retry = TRAJECTORY[:2] + TRAJECTORY[3:]
    result = trajectory(no_retry, order=retry)
    assert not result["passed"] and result["detail"].startswith("events in order: matched 1 of 3")
    assert not trajectory(order=[{"action": "send_msg_to_user"}, {"action": "fill"}])["passed"]


@register_check(
    "test_message_count",
    args_schema={
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
        "additionalProperties": False,
    },
)
def _message_count(inputs, *, n):
    return len(inputs.messages) == n, f"{len(inputs.messages)} message(s)"


@register_check("test_mutates_its_inputs")
def _mutates(inputs):
    inputs.messages.append("tampered")
    inputs.final["tables"]["x"] = {}
    return True, "mutated its copy"


@register_check("test_raises")
def _raises(inputs):
    raise RuntimeError("boom")


def python(check, messages=("hi",), **args):
    spec = {"assertions": [{"name": "p", "kind": "python", "check": check, **({"args": args} if args else {})}]}
    inputs = VerifierInputs(
        initial=EMPTY, final={"replica": "testbed", "tables": {}}, messages=list(messages), replica="testbed"
    )
    return verify(spec, inputs), inputs


def test_a_registered_check_is_called_with_its_args():
    verdict, _ = python("test_message_count", n=1)
    assert verdict.passed and verdict.assertions[0]["detail"] == "1 message(s)"
    verdict, _ = python("test_message_count", n=2)
    assert not verdict.passed


def test_a_check_works_on_a_copy_of_the_inputs():
    verdict, inputs = python("test_mutates_its_inputs")
    assert verdict.passed and inputs.messages == ["hi"] and inputs.final["tables"] == {}


def test_a_check_that_raises_fails_its_assertion_not_the_verdict():
    verdict, _ = python("test_raises")
    assert verdict.assertions[0]["detail"] == "error while checking: RuntimeError: boom" and not verdict.passed


@pytest.mark.django_db
def test_the_builtin_duplicate_check_catches_a_write_done_twice(before):
    check = {
        "name": "once",
        "kind": "python",
        "check": "no_duplicate_additions",
        "args": {"table": "testbed.note", "fields": ["owner", "title"]},
    }
    with before.bound():
        owner = Member.objects.order_by("public_id").first()
        top = max(Note.objects.values_list("public_id", flat=True))
        Note.objects.create(public_id=top + 1, owner=owner, title="Refunded", updated_at=before.world.clock)
    assert verify({"assertions": [check]}, before.inputs()).passed
    with before.bound():
        Note.objects.create(public_id=top + 2, owner=owner, title="Refunded", updated_at=before.world.clock)
    verdict = verify({"assertions": [check]}, before.inputs())
    assert not verdict.passed
    assert (
        verdict.assertions[0]["detail"]
        == f"testbed.note rows {top + 1} and {top + 2} were both added with the same owner, title"
    )


def test_a_replica_registers_its_own_checks_in_its_checks_module(tmp_path, monkeypatch):
    from replicas.worlds.registry import replicas
    from verifiers import checks

    (tmp_path / "fakedesk_checks.py").write_text(
        "from verifiers.checks import register_check\n\n"
        "@register_check('fakedesk.always')\n"
        "def always(inputs):\n    return True, 'registered by the replica'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    config = sorted(replicas().values(), key=lambda c: c.label)[0]
    monkeypatch.setattr(config, "checks_module", "fakedesk_checks")
    monkeypatch.setattr(checks, "_REGISTRY", dict(checks._REGISTRY))  # restored after the test
    monkeypatch.setattr(checks, "_LOADED", set())
    monkeypatch.delitem(sys.modules, "fakedesk_checks", raising=False)
    assert checks.get_check("fakedesk.always") is None
    checks.load_checks(config.label)
    assert checks.get_check("fakedesk.always").fn(None) == (True, "registered by the replica")
    sys.modules.pop("fakedesk_checks", None)


def test_checks_of_an_unknown_replica_are_refused():
    from replicas.worlds.registry import UnknownReplica
    from verifiers import checks

    with pytest.raises(UnknownReplica, match="nosuchdesk"):
        checks.load_checks("nosuchdesk")
