"""The suite's one way to wait for something another thread or process does: poll a condition until it holds.

A test never sleeps a fixed time to let something happen (too short fails on a loaded machine, too long
wastes every run's time); it waits on the condition itself, bounded, and a timeout names what did not
happen.
"""

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Short enough that a test goes on soon after the condition holds, long enough that polling a
# database row or a process table does not load the shared 2-core machine.
INTERVAL = 0.1


def wait_until(
    predicate: Callable[[], T], timeout: float, what: str | Callable[[], str], *, interval: float = INTERVAL
) -> T:
    """The first truthy value `predicate()` returns, polled every `interval` seconds for at most `timeout`.

    Raises AssertionError "timed out after N s waiting for <what>" when it never holds; `what` may be a
    function, called then, to tell the state the wait ended in. An exception or failed assertion in the
    predicate (a child process that died meanwhile) ends the wait at once.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what() if callable(what) else what}")
        time.sleep(interval)
