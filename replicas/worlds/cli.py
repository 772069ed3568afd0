"""Argument parsing for management commands that promise one clear line on stderr."""
import sys

from django.core.management.base import CommandParser


class OneLineParser(CommandParser):
    def error(self, message):
        if self.called_from_command_line:
            sys.stderr.write(f"error: {message}\n")
            sys.exit(2)
        super().error(message)


def one_line_errors(parser: CommandParser) -> CommandParser:
    parser.__class__ = OneLineParser
    return parser


def seed_arg(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, not {value}")
    return value
