"""The base of the project's management commands: argument types, and errors on one line.

Commands sit above every layer, so this lives in the lowest one that all of them can
import. A bad argument prints one `error: ...` line and exits 2; a domain error listed
in a command's `user_errors` becomes a CommandError carrying its first line.
"""
import argparse
import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser

from .registry import get_replica


class OneLineParser(CommandParser):
    def error(self, message):
        if self.called_from_command_line:
            sys.stderr.write(f"error: {message}\n")
            sys.exit(2)
        super().error(message)


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
