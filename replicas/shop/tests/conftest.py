"""Fixtures of the shop's tests: the seed-7 "small" template built once per module (tests/templates.py)."""

from tests.templates import module_template

shop_template = module_template("shop")
