"""A compiled replica's episode played by tool calls (replicas/worlds/enterprise/toolplay.py): the agent calls the
replica's operations as the person it signed in as, each call a step with the requests and rows it wrote, and the
task's own verifier judges the world. A task's tool reference solution (tool_solutions.json) passes; a wrong
sequence of calls fails, each refused call saying why."""

import json
from pathlib import Path

import pytest

from catalogue.packs import task_current
from factory.build import tool_solutions
from replicas.worlds.enterprise.toolplay import ToolCallError, tool_call, tool_call_parse
from replicas.worlds.registry import get_replica, replicas
from verifiers.placeholders import expand_actions

built = pytest.mark.skipif("timeoff" not in replicas(), reason="the timeoff replica is not built")


def test_a_tool_call_reads_back_as_written_and_a_malformed_one_says_how_to_write_it():
    # a department's field `name` is an argument like any other
    text = tool_call("edit_department", {"number": 1004, "name": 'A "lead"', "description": None})
    assert text == 'tool("edit_department", number=1004, name="A \\"lead\\"", description=None)'
    assert tool_call_parse(text) == ("edit_department", {"number": 1004, "name": 'A "lead"', "description": None})
    assert tool_call_parse('click("a")') is None  # a browser action goes to the browser
    for bad in ('tool("x", **{"a": 1})', "tool(x)", 'tool("x", number=open("f"))', 'tool("x"'):
        with pytest.raises(ToolCallError, match="NAME"):
            tool_call_parse(bad)


@built
def test_every_task_has_a_tool_reference_solution_that_signs_in_then_calls_the_replicas_tools():
    folder = Path(get_replica("timeoff").path)
    solutions = tool_solutions(folder)
    assert set(solutions) == {p.stem for p in (folder / "tasks").glob("*.json")}
    graph = json.loads(get_replica("timeoff").runtime().graph_path.read_text())
    names = {tool["name"] for tool in graph["tools"]}
    for slug, calls in solutions.items():
        parsed = [tool_call_parse(call) for call in calls]
        assert parsed[0] == ("sign_in", {"email": "{user_email}", "password": "{user_password}"}), slug
        assert len(parsed) > 1 and all(name in names for name, _args in parsed[1:]), slug


@built
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)  # the replica server's threads read the episode's world
def test_a_task_passes_by_its_tool_calls_and_a_wrong_sequence_of_calls_fails():
    from factory.tools import tool_solution_play  # noqa: PLC0415 - loads the episode engine

    folder = Path(get_replica("timeoff").path)
    slug = next(s for s in sorted(tool_solutions(folder)) if s.startswith("approve-time-off-request-"))
    number = int(slug.rsplit("-", 1)[1])
    task = task_current(f"timeoff.{slug}")

    episode = tool_solution_play(task.task_id)
    steps = list(episode.steps.order_by("index"))
    assert episode.passed and episode.rewards["task_completion"] == 1, [(s.action, s.error, s.requests) for s in steps]
    assert [s.action for s in steps] == expand_actions(tool_solutions(folder)[slug], task.params)
    assert [s.error for s in steps] == ["", ""]
    # the call is the REST endpoint's request on the world's server, logged with the rows it wrote
    assert [r["path"] for r in steps[1].requests] == [f"/api/time-off-requests/{number}/approve"]
    assert {w["table"] for w in steps[1].writes} == {"timeoff.timeoffrequest", "timeoff.auditentry"}

    wrong = [
        'tool("approve_time_off_request", number=1)',  # nobody is signed in yet
        'tool("sign_in", email="{user_email}", password="not-it")',
        'tool("sign_in", email="{user_email}", password="{user_password}")',
        f'tool("approve_time_off_request", number="{number}x")',  # not a number: the tool's own type check
        f'tool("decline_time_off_request", number={number})',  # the endpoint's own rule: no comment, no decline
        f'tool("decline_time_off_request", number={number}, comment="Not now.")',  # the wrong move, made
    ]
    failed = tool_solution_play(task.task_id, wrong)
    assert failed.status == "failed" and failed.rewards["task_completion"] < 1
    errors = [s.error for s in failed.steps.order_by("index")]
    assert errors[0].startswith("sign in first") and errors[1] == "Wrong email or password."
    assert errors[2] == "" and "validation error" in errors[3] and "number" in errors[3]
    assert "400: The record is not valid." in errors[4] and "A comment is required." in errors[4]
    assert errors[5] == ""
