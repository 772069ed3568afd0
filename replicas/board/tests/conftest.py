"""Fixtures of the board's tests: the seed-7 "small" template built once per module (tests/templates.py)."""

from tests.templates import module_template

board_template = module_template("board")
