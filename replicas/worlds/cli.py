"""The base of the project's management commands: argument types, errors on one line, and stopping on signals.

Commands sit above every layer, so this lives in the lowest one that all of them can
import. A bad argument prints one `error: ...` line and exits 2; a domain error listed
in a command's `user_errors` becomes a CommandError carrying its first line. A command
that starts processes calls `stop_on_signals()` and stops them in `finally` blocks.
"""

import argparse
import os
import signal
import sys
import threading
from contextlib import contextmanager

from django.core.management.base import BaseCommand, CommandError, CommandParser

from .registry import get_replica


class OneLineParser(CommandParser):
    def error(self, message):
        if self.called_from_command_line:
            sys.stderr.write(f"error: {message}\n")
            sys.exit(2)
        super().error(message)


def _exit_on_signal(signum, _frame):
    raise SystemExit(128 + signum)


def stop_on_signals() -> None:
    """SIGTERM and SIGINT end this command by raising SystemExit(128 + signal) in its main thread.

    SIGTERM's default action ends a process at once, skipping the `finally` blocks that
    stop the processes it started (they run in sessions of their own and would be left
    behind), and a command started in the background by a script inherits SIGINT ignored.
    """
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_on_signal)


@contextmanager
def signals_held():
    """Teardown must finish: a second Ctrl-C or SIGTERM while it runs waits until it has."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending = []
    old = {sig: signal.signal(sig, lambda s, _: pending.append(s)) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for sig in pending[:1]:
            os.kill(os.getpid(), sig)


def one_line_errors(parser: CommandParser) -> CommandParser:
    parser.__class__ = OneLineParser
    return parser


def first_line(exc: BaseException) -> str:
    """An exception's message (a KeyError's without the quotes str() adds), first line only."""
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


class ReplicaGymCommand(BaseCommand):
    """A management command whose parser errors are one line and whose `user_errors`
    (bad input the user can fix) end it with a one-line CommandError, not a traceback."""

    user_errors: tuple[type[BaseException], ...] = ()

    def create_parser(self, prog_name, subcommand, **kwargs):
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except self.user_errors as exc:
            raise CommandError(first_line(exc)) from None


def _integer(text: str, low: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {what}, not {value}")
    return value


def positive_int(text: str) -> int:
    return _integer(text, 1, "an integer of at least 1")


def seed_arg(text: str) -> int:
    try:
        return _integer(text, 0, "a non-negative integer")
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"seed {exc}") from None


def replica_arg(text: str) -> str:
    """An installed replica's name (the error lists the known ones)."""
    try:
        return get_replica(text).label
    except LookupError as exc:
        raise argparse.ArgumentTypeError(first_line(exc)) from None
