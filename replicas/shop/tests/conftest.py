"""Fixtures of the shop's tests: the seed-7 "small" template built once per module (tests/templates.py), and a
world of it."""

import pytest

from tests.templates import module_template

shop_template = module_template("shop")


@pytest.fixture
def shop(make_world):
    return make_world(replica="shop", seed=7, variant="small")
