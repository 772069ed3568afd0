"""tests/waiting.py: a wait returns what it waited for as soon as it holds, and a timeout names what did not happen."""

import time

import pytest

from tests.waiting import wait_until


def test_the_wait_returns_the_first_truthy_value_without_waiting_out_the_timeout():
    values = iter([None, 0, "", {"row": 1}, {"row": 2}])
    started = time.monotonic()
    assert wait_until(lambda: next(values), 30, "a row", interval=0.01) == {"row": 1}
    assert time.monotonic() - started < 5


def test_a_timeout_names_what_did_not_happen_and_the_state_it_ended_in():
    calls = []
    with pytest.raises(AssertionError, match=r"^timed out after 0.05 s waiting for the worker to beat$"):
        wait_until(lambda: calls.append(1), 0.05, "the worker to beat", interval=0.01)
    assert len(calls) >= 2  # polled, and once more at the deadline
    state = iter(["alive: 12 chromium", "alive: 12 chromium"])
    with pytest.raises(AssertionError, match=r"waiting for every process to end; alive: 12 chromium$"):
        wait_until(lambda: False, 0.02, lambda: f"every process to end; {next(state)}", interval=0.01)


def test_a_failed_check_in_the_condition_ends_the_wait_at_once():
    def died():
        raise AssertionError("the command exited 1")

    started = time.monotonic()
    with pytest.raises(AssertionError, match="the command exited 1"):
        wait_until(died, 30, "the command to start")
    assert time.monotonic() - started < 5
