"""`manage.py verify_tasks`: the reference passes, the empty run and every negative example fail."""

import json
from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db

TASK = {
    "slug": "name-the-note",
    "title": "Name the open note",
    "difficulty": "easy",
    "replica": "testbed",
    "seed": 7,
    "variant": "small",
    "params": "tests.verifiers.pack_params:first_open_note",
    "instruction": "Tell me the number of the oldest open note.",
    "start_page": "/",
    "limits": {"max_steps": 5, "max_seconds": 60},
    "verifier": {
        "assertions": [
            {
                "name": "told the number",
                "kind": "answer",
                "type": "regex",
                "pattern": "#?{note}",
                "match": "search",
                "candidates": r"#?\d+",
            }
        ]
    },
    "reference_solution": ['send_msg_to_user("It is note #{note}.")'],
    "negative_examples": [
        {"name": "a longer number holding it", "actions": ['send_msg_to_user("It is note #1{note}.")']},
        {"name": "two numbers", "actions": ['send_msg_to_user("Either #{note} or #9{note}.")']},
    ],
}


@pytest.fixture
def pack(tmp_path):
    def write(**changes):
        doc = {**TASK, **changes}
        (tmp_path / f"{doc['slug']}.json").write_text(json.dumps(doc))
        return tmp_path

    return write


def run(*args):
    out = StringIO()
    try:
        call_command("verify_tasks", *args, stdout=out)
    except CommandError as e:
        return out.getvalue(), str(e)
    return out.getvalue(), None


def fake_play(passes):
    """An engine stand-in whose verdict says `passes(actions)` of the actions the agent spec plays on the task:
    exercises the command's bookkeeping only."""

    def play(*, task_id, agent):
        from catalogue.packs import task_current
        from episodes.agents import agent_from_spec

        passed = passes(agent_from_spec(agent, task=task_current(task_id)).actions)
        return SimpleNamespace(
            pk=1,
            status="succeeded" if passed else "failed",
            error="",
            verdict={
                "passed": passed,
                "assertions": [{"name": "a", "required": True, "passed": passed, "detail": "d"}],
            },
            rewards={"task_completion": 1.0 if passed else 0.0},
        )

    return play


def reference(actions) -> bool:
    from catalogue.packs import task_current

    return actions == task_current("testbed.name-the-note").reference_solution


def test_a_right_verifier_is_reported_ok(pack, monkeypatch):
    monkeypatch.setattr("episodes.driver.episode_play", fake_play(reference))
    out, error = run("testbed", "--directory", str(pack()))
    assert error is None, out
    lines = out.splitlines()
    assert lines[0].split() == ["task", "reference", "empty", "negatives", "ok"]
    assert lines[1].split() == ["testbed.name-the-note", "pass", "fail", "2/2", "fail", "ok"]
    assert lines[-1] == "1 of 1 task(s) ok"


def test_a_verifier_that_passes_doing_nothing_is_wrong(pack, monkeypatch):
    monkeypatch.setattr(
        "episodes.driver.episode_play", fake_play(lambda actions: not actions or "#1" not in actions[0])
    )
    out, error = run("testbed", "--directory", str(pack()))
    assert error == "1 of 1 task(s) have a verifier that is wrong"
    assert "testbed.name-the-note: empty: doing nothing passes the verifier" in out


def test_a_verifier_that_fails_the_reference_or_passes_a_negative_is_wrong(pack, monkeypatch):
    monkeypatch.setattr("episodes.driver.episode_play", fake_play(lambda actions: bool(actions) and "or" in actions[0]))
    out, error = run("testbed", "--directory", str(pack()), "--json")
    assert error is not None
    doc = json.loads(out.splitlines()[0])
    assert doc["ok"] is False
    assert doc["problems"][0].startswith("reference: must pass, failed")
    assert "negative 'two numbers': must fail, passed" in doc["problems"]


def test_a_task_without_reference_solution_is_wrong(pack, monkeypatch):
    monkeypatch.setattr("episodes.driver.episode_play", fake_play(lambda actions: False))
    out, error = run("testbed", "--directory", str(pack(reference_solution=[])))
    assert error and "reference: the task has no reference solution" in out


def test_an_invalid_pack_is_reported_with_its_paths(pack):
    bad = {
        "assertions": [
            {"name": "x", "kind": "state", "table": "testbed.note", "where": {"titel": "open"}, "expect": {"count": 1}}
        ]
    }
    out, error = run("testbed", "--directory", str(pack(verifier=bad)))
    assert "verifier.assertions[0].where.titel: unknown field 'titel' of testbed.note" in error


def test_an_unknown_pack_is_refused():
    assert run("nosuchdesk")[1].startswith("unknown pack(s): nosuchdesk")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)  # the browser reaches the in-process server on its own connection
def test_verify_tasks_runs_real_episodes_end_to_end(pack):
    out, error = run("testbed", "--directory", str(pack()))
    assert error is None, out
    assert out.splitlines()[1].split() == ["testbed.name-the-note", "pass", "fail", "2/2", "fail", "ok"]
