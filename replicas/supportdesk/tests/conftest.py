"""Fixtures of the support desk's tests: support desk worlds by default, the seed-7 "small"
template built once per module (tests/templates.py), production's security settings for browser tests."""

import pytest

from tests.templates import module_template

REPLICA = "supportdesk"


@pytest.fixture
def make_world(make_world):
    """The root fixture, making support desk worlds unless a test names another replica."""

    def make(replica=REPLICA, **kwargs):
        return make_world(replica=replica, **kwargs)

    return make


desk_template = module_template(REPLICA)


@pytest.fixture(autouse=True)
def production_security(request):
    """The support desk's browser tests run with production's security settings (HttpOnly
    session and CSRF cookies, HSTS, DEBUG off), so the pages and scripts are tested as deployed."""
    if request.node.get_closest_marker("browser") is None:
        yield None
        return
    settings = request.getfixturevalue("settings")
    settings.DEBUG = False
    for name, value in settings.PRODUCTION_SECURITY.items():
        setattr(settings, name, value)
    yield settings
