"""From a world's origin, nothing of the platform answers: not the API, the admin, the catalogue's
specs and answer keys, nor the rewards. Such probes get a 404 and are logged."""

import logging
import re
from urllib.parse import unquote

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db


def platform_paths(patterns=None, prefix=""):
    """A concrete path for every URL the platform host serves (sample values for converters)."""
    patterns = get_resolver(settings.ROOT_URLCONF).url_patterns if patterns is None else patterns
    for p in patterns:
        route = str(p.pattern)
        route = re.sub(r"\(\?P<\w+>[^)]*\)", "1", route)  # regex groups
        route = re.sub(r"<(?:\w+:)?\w+>", "1", route).lstrip("^").rstrip("$").replace("\\", "")  # path converters
        if isinstance(p, URLResolver):
            yield from platform_paths(p.url_patterns, prefix + route)
        elif isinstance(p, URLPattern):
            yield "/" + prefix + route


PROBES = [
    "/api/",
    "/api/tasks",
    "/api/episodes/1",
    "/api/schema/",
    "/admin/",
    "/admin/login/",
    "/admin/catalogue/task/",
    "/healthz",
    "/tasks/testbed.complete-note",
    "/verifier",
    "/static/../replicas/testbed/tasks/complete-note.json",
    "/notes/../api/tasks",
    "/%2e%2e/api/tasks",
    "/api/episodes/1/finish",
]


def test_no_platform_url_and_no_probe_answers_on_a_world_origin(world, world_client, client, caplog):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw-pw-pw-pw")
    client.force_login(user)  # even a platform admin's session opens nothing through a world
    paths = sorted({p for p in platform_paths() if p != "/"} | set(PROBES))
    assert "/api/tasks" in paths and "/admin/" in paths
    http = world_client(world)
    with caplog.at_level(logging.WARNING, logger="replicagym.isolation"):
        for path in paths:
            for method in ("get", "post"):
                response = getattr(http, method)(path)
                assert response.status_code == 404, (method, path, response.status_code)
                body = response.content.lower()
                assert b"verifier" not in body and b"reference_solution" not in body and b"reward" not in body
    logged = [r.getMessage() for r in caplog.records if r.name == "replicagym.isolation"]
    guesses = {"/tasks/testbed.complete-note", "/verifier"}  # not platform URLs: plain 404s
    for path in sorted(set(paths) - guesses):
        assert any(unquote(path) in message and world.token in message for message in logged), path


def test_the_world_own_pages_are_not_reported_as_probes(world, world_client, caplog):
    with caplog.at_level(logging.WARNING, logger="replicagym.isolation"):
        for path in ("/", "/notes", "/notes/1", "/notes/999", "/no/such/page"):
            assert world_client(world).get(path).status_code in (200, 302, 401, 403, 404)
    assert not [r for r in caplog.records if r.name == "replicagym.isolation"]


def test_the_platform_host_still_serves_the_platform(client):
    assert client.get("/healthz").json() == {"ok": True}
