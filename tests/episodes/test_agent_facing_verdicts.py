"""What an agent is told of its verdict never gives the answer key away.

Every task of every installed pack is finished wrongly, through the REST API
(finish, then GET) and through the gym env's step path, and no value of the
task's answer key that the agent was not already given (in the task id, title,
instruction or start page) may appear anywhere in those payloads. Staff keep the detail.
"""

import json
import re
from datetime import date, datetime

import pytest
from rest_framework.test import APIClient

from catalogue.models import Task
from catalogue.packs import task_current, task_sync_all
from episodes.agents import task_info
from episodes.creation import API_CLAIM, episode_create
from episodes.driver import EpisodeDriver
from episodes.gym import ReplicaEnv
from episodes.models import Episode
from replicas.worlds.registry import replicas
from tests.episodes.browserless import BrowserlessSession
from verifiers.agent_view import agent_view
from verifiers.values import BadValue, parse_date, to_decimal

JUNK = "I checked everything: it is 0, or maybe 1,000,000.00 USD, on 1999-01-01."


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif value is not None and not isinstance(value, bool):
        yield value


def spellings(value) -> set[str]:
    """The ways a value of the answer key could be written in a payload: 12.5, "12.50", March 5, 2026, ..."""
    text = str(value).strip()
    forms = {text}
    try:
        number = to_decimal(value)
    except (BadValue, ArithmeticError, ValueError):
        number = None
    if number is not None and number.is_finite():
        forms |= {format(number.normalize(), "f"), f"{number:.2f}"}
        if number == number.to_integral_value():
            forms.add(str(int(number)))
    try:
        day = parse_date(text) if isinstance(value, str) else value if isinstance(value, date) else None
    except BadValue:
        day = None
    if isinstance(day, datetime):
        day = day.date()
    if day is not None:
        forms |= {day.isoformat(), f"{day:%B} {day.day}, {day.year}", f"{day.month}/{day.day}/{day.year}"}
    # one- and two-character values (a count, a tier "B") turn up in any payload by chance
    return {f for f in forms if len(f) >= 3}


def secrets_of(task, instance, params: dict) -> set[str]:
    """Spellings of the answer key the agent was not given at the start (task id, title, instruction, start page)."""
    given = " ".join((task.task_id, task.title, instance.instruction, instance.start_page)).casefold()
    return {form for value in _leaves(params) for form in spellings(value) if form.casefold() not in given}


def leaks(payload, secrets: set[str]) -> list[str]:
    text = json.dumps(payload, default=str, ensure_ascii=False)
    return sorted(s for s in secrets if re.search(rf"(?<![\w.]){re.escape(s)}(?![\w]|\.\d)", text, re.IGNORECASE))


@pytest.fixture
def all_packs(db):
    task_sync_all()
    tasks = list(Task.objects.filter(is_current=True).order_by("task_id"))
    apps = {name for t in tasks for name in (t.spec.get("workspace") or {"replicas": [t.replica]})["replicas"]}
    assert apps == set(replicas()) and len(tasks) >= 10
    return tasks


@pytest.fixture
def agent(db, django_user_model):
    user = django_user_model.objects.create_user(username="agent-view", password="pw-123456", is_superuser=True)
    client = APIClient()
    client.force_authenticate(user=user)
    client.user = user
    return client


def test_no_agent_facing_payload_of_a_wrong_finish_reveals_the_answer_key(all_packs, agent):
    for task in all_packs:
        # both are refused in one's own browser (tests/api/test_interaction_tasks.py, tests/crossapp)
        if task.spec.get("interaction") or task.spec.get("workspace"):
            continue
        instance = task.with_params(task.params)
        secrets = secrets_of(task, instance, task.params)
        episode = episode_create(
            task=task,
            agent="external",
            owner=agent.user,
            status=Episode.Status.RUNNING,
            claimed_by=f"{API_CLAIM}{agent.user.pk}",
        )
        finished = agent.post(f"/api/episodes/{episode.pk}/finish", {"messages": [JUNK]}, format="json")
        assert finished.status_code == 200, (task.task_id, finished.content)
        assert finished.json()["verdict"]["passed"] is False, task.task_id
        shown = agent.get(f"/api/episodes/{episode.pk}").json()
        episode.refresh_from_db()
        # the gym env builds the same `info` on every step and at the end (ReplicaEnv._info)
        env = ReplicaEnv(task.task_id)
        env.episode = episode
        for where, payload in (
            ("REST finish", finished.json()),
            ("REST episode", shown),
            ("gym info", env._info()),
            ("agent task info", task_info(instance)),
        ):
            assert leaks(payload, secrets) == [], f"{task.task_id}: {where} reveals the answer key"
        assert any(a["detail"] for a in episode.verdict["assertions"]), "staff keep the detail"


def test_gym_step_that_ends_the_episode_gives_the_agent_view_in_info(test_pack):
    task = task_current("testbed.report-owner")
    env = ReplicaEnv(task.task_id)
    env.episode = episode_create(task=task, agent="gym", status=Episode.Status.RUNNING, claimed_by="gym:test")
    env.driver = EpisodeDriver(env.episode)
    env.driver.session = BrowserlessSession()
    _obs, reward, terminated, _truncated, info = env.step(f"send_msg_to_user({json.dumps(JUNK)})")
    assert terminated and reward == 0.0
    assert info["verdict"] == {"passed": False} and info["status"] == "failed"  # never the assertions
    assert set(info["rewards"].values()) == {0.0}
    assert leaks(info, secrets_of(task, task.with_params(task.params), task.params)) == []
    stored = Episode.objects.get(pk=env.episode.pk).verdict["assertions"][0]["detail"]
    assert task.params["owner"] in stored  # staff see what was expected


def test_agent_view_keeps_passed_and_the_signals_only():
    verdict = {
        "passed": False,
        "partial": 0.5,
        "collateral_ok": False,
        "collateral": [{"table": "testbed.note", "op": "added", "key": "1000", "title": "Refund of 12.50"}],
        "assertions": [
            {
                "name": "reports the total",
                "kind": "answer",
                "required": True,
                "passed": False,
                "detail": 'the last message ("x") does not answer {"amount": "12.50", "currency": "USD"}',
            },
            {"name": "nothing else changed", "kind": "diff", "required": False, "passed": True, "detail": "re_1"},
        ],
    }
    view = agent_view(verdict, {"task_completion": 0.0, "collateral": 0.0, "note": "12.50"})
    assert view == {"verdict": {"passed": False}, "rewards": {"task_completion": 0.0, "collateral": 0.0}}
    assert agent_view(None, None) == {"verdict": None, "rewards": None}
    # a verdict that held, in an episode whose rewards do not count it (it timed out), did not pass
    assert agent_view({**verdict, "passed": True}, {"task_completion": 0.0})["verdict"] == {"passed": False}
    assert agent_view({**verdict, "passed": True}, {"task_completion": 1.0})["verdict"] == {"passed": True}
