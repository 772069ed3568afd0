"""Which tasks the packs' browser tests play: every task in cost-balanced shares on SQLite, and on
PostgreSQL a sample read from the task files that holds every assertion kind of each pack."""

import json

import pytest

from catalogue.packs import task_files
from replicas.worlds.registry import replicas
from tests import pack_episodes
from tests.pack_episodes import answer_instead, assertion_kinds, kind_sample, shares

PACKS = [replica for replica in sorted(replicas()) if task_files(replica)]


def _spec(*kinds: str) -> dict:
    return {"verifier": {"assertions": [{"name": f"a {kind} assertion", "kind": kind} for kind in kinds]}}


def _specs(replica: str) -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text()) for path in task_files(replica)}


@pytest.fixture
def sampled(monkeypatch):
    """Shares as a PostgreSQL run collects them, on whatever backend this test runs."""
    monkeypatch.setattr(pack_episodes, "pack_sampled", lambda: True)


@pytest.fixture
def every_task(monkeypatch):
    monkeypatch.setattr(pack_episodes, "pack_sampled", lambda: False)


def test_the_sample_takes_the_task_holding_most_new_kinds_then_the_cheaper():
    specs = {
        "diff-only": _spec("diff"),
        "state-dear": _spec("diff", "state"),
        "state-cheap": _spec("diff", "state"),
        "answer": _spec("answer", "diff"),
    }
    cost = {"diff-only": 1, "state-dear": 5, "state-cheap": 3, "answer": 2}
    assert kind_sample(specs, cost) == ["answer", "state-cheap"]
    # one task holding every kind is the whole sample, however dear
    assert kind_sample({**specs, "all": _spec("answer", "diff", "state")}, {**cost, "all": 100}) == ["all"]
    # equal in kinds and cost: the first slug, so every xdist worker collects the same tests
    assert kind_sample({"b": _spec("diff"), "a": _spec("diff")}, {"a": 1, "b": 1}) == ["a"]


def test_a_kind_a_pack_gains_is_sampled_without_a_list_to_update():
    specs = {"plain": _spec("diff", "state"), "checked": _spec("diff", "python"), "paged": _spec("page")}
    assert kind_sample(specs, dict.fromkeys(specs, 1)) == ["checked", "paged", "plain"]
    assert kind_sample({}, {}) == []


@pytest.mark.parametrize("replica", PACKS)
def test_on_postgresql_each_pack_plays_a_sample_holding_every_assertion_kind(sampled, replica):
    specs = _specs(replica)
    played = [slug for share in shares(replica) for slug in share]
    assert {kind for slug in played for kind in assertion_kinds(specs[slug])} == set().union(
        *map(assertion_kinds, specs.values())
    )
    # at most one task per kind: the greedy pick adds a kind with every task it takes
    assert len(played) == len(set(played)) <= len(set().union(*map(assertion_kinds, specs.values())))


def test_the_sample_is_taken_among_the_tasks_the_test_plays(sampled):
    """The shop's browser test leaves answer-only tasks out: its sample holds none, and no kind they alone hold."""
    answers = [slug for slug, spec in _specs("shop").items() if "answer" in assertion_kinds(spec)]
    assert answers
    played = [
        slug for share in shares("shop", plays=lambda spec: "answer" not in assertion_kinds(spec)) for slug in share
    ]
    assert played and not set(played) & set(answers)


@pytest.mark.parametrize("replica", PACKS)
def test_on_sqlite_the_shares_play_every_task_once(every_task, replica):
    played = [slug for share in shares(replica) for slug in share]
    assert sorted(played) == sorted(_specs(replica))


SIGN_IN = ['goto("/login")', 'fill("#id_email", "a@example.com")', "click(\"role=button[name='Sign in']\")"]


def test_only_a_negative_that_acts_as_the_reference_but_answers_otherwise_is_judged_on_the_reference():
    played = [*SIGN_IN, 'goto("/orders/7")', 'send_msg_to_user("Order 7 came to $12.00.")']
    # the same steps, another answer (the alias too): judged on the reference's episode with that answer
    assert (
        answer_instead(played, [*played[:-1], 'send_msg_to_user("Order 7 came to $10.00.")'])
        == "Order 7 came to $10.00."
    )
    assert answer_instead(played, [*played[:-1], 'send_message_to_user("$10.00")']) == "$10.00"
    # anything else it does otherwise may change the world or the page: it needs an episode of its own
    assert answer_instead(played, [*SIGN_IN, 'goto("/orders/8")', 'send_msg_to_user("$10.00")']) is None
    assert answer_instead(played, [*SIGN_IN, 'send_msg_to_user("$10.00")']) is None
    assert answer_instead(played, [*played[:-1], 'report_infeasible("no such order")']) is None
    assert answer_instead(played, [*played[:-1], "click(\"role=button[name='Refund']\")"]) is None
    assert answer_instead(played, played[:-1]) is None
    assert answer_instead(played, []) is None
    # a reference that does not end by answering has no answer to swap
    assert answer_instead(played[:-1], [*SIGN_IN, 'send_msg_to_user("$10.00")']) is None
