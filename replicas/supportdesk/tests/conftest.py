"""The support desk's browser tests run with production's security settings (HttpOnly
session and CSRF cookies, HSTS, DEBUG off), so the pages and scripts are tested as deployed."""
import pytest


@pytest.fixture(autouse=True)
def production_security(request):
    if request.node.get_closest_marker("browser") is None:
        yield None
        return
    settings = request.getfixturevalue("settings")
    settings.DEBUG = False
    for name, value in settings.PRODUCTION_SECURITY.items():
        setattr(settings, name, value)
    yield settings
