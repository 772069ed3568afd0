"""The in-process replica server and the external-server setting."""
import urllib.request

import pytest
from django.core.exceptions import ImproperlyConfigured

from episodes.server import external_server, replica_server


def test_replica_server_starts_once_and_serves_the_platform():
    first = replica_server()
    assert first == replica_server()
    host, port = first
    assert host == "127.0.0.1" and port > 0
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
        assert response.status == 200 and b'"ok": true' in response.read()


def test_serve_url_setting_points_the_engine_at_an_external_server(settings):
    settings.SERVE_URL = "http://127.0.0.1:8123"
    assert replica_server() == ("127.0.0.1", 8123)


@pytest.mark.parametrize("url", ["127.0.0.1:8000", "ftp://host:21", "http://host:notaport", "http://"])
def test_bad_serve_url_is_refused_with_the_variable_named(url):
    with pytest.raises(ImproperlyConfigured, match="REPLICAGYM_SERVE_URL"):
        external_server(url)
