"""Every URL of the platform host admits exactly the roles it declares.

The table is built from the URL patterns themselves: a new endpoint is checked for every role
as soon as it exists, and one that declares no roles fails here until it does
(`role_required`/`public` for Django views, `allowed_roles` on API views, see replicagym.accounts.roles).
"""

import re
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver
from replicagym.accounts.roles import PUBLIC, Role, admits
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory, force_authenticate
from rest_framework.views import APIView

pytestmark = pytest.mark.django_db

# The Django admin guards itself (staff only, and only superusers are staff here): admins only,
# but for its own sign-in and sign-out pages.
ADMIN_SITE = frozenset({Role.ADMIN})
ADMIN_PUBLIC = {"login", "logout"}
WHO = {
    "anonymous": frozenset(),
    "outsider": frozenset(),
    "annotator": frozenset({Role.ANNOTATOR}),
    "author": frozenset({Role.AUTHOR}),
    "admin": frozenset({Role.ADMIN}),
    "agent": frozenset({Role.AGENT}),
}


def routes(patterns=None, prefix="", namespace=None):
    """(path with sample arguments, URL pattern, namespace) for every URL the platform host serves."""
    patterns = get_resolver(settings.ROOT_URLCONF).url_patterns if patterns is None else patterns
    for p in patterns:
        route = str(p.pattern)
        route = re.sub(r"\(\?P<\w+>[^)]*\)", "1", route)  # regex groups
        route = re.sub(r"<(?:\w+:)?\w+>", "1", route).lstrip("^").rstrip("$").replace("\\", "")
        if isinstance(p, URLResolver):
            yield from routes(p.url_patterns, prefix + route, p.namespace or namespace)
        elif isinstance(p, URLPattern):
            yield "/" + prefix + route, p, namespace


def declared_roles(pattern, namespace):
    if namespace == "admin":
        return PUBLIC if pattern.name in ADMIN_PUBLIC else ADMIN_SITE
    callback = pattern.callback
    for holder in (callback, getattr(callback, "view_class", None)):
        roles = getattr(holder, "allowed_roles", None)
        if roles is not None:
            return roles
    return None


def is_api(callback) -> bool:
    return hasattr(callback, "cls")  # DRF's as_view(): token authentication applies only there


def test_every_platform_url_declares_its_roles():
    undeclared = [path for path, pattern, ns in routes() if declared_roles(pattern, ns) is None]
    assert not undeclared, f"declare roles (role_required/public/allowed_roles) for: {undeclared}"


def refused(response, path, who, api) -> bool:
    if api:
        return response.status_code == (401 if who == "anonymous" else 403)
    if who in ("anonymous", "agent") or path.startswith("/admin/"):
        # no session: to the sign-in page (the admin has its own), keeping where they were going
        target = urlparse(response.get("Location", ""))
        login = "/admin/login/" if path.startswith("/admin/") else settings.LOGIN_URL
        return response.status_code == 302 and target.path == login and "next=" in target.query
    return response.status_code == 403


@pytest.fixture
def client_of(admin_user, author_user, annotator_user, outsider_user, agent_token, api_client_for):
    users = {"admin": admin_user, "author": author_user, "annotator": annotator_user, "outsider": outsider_user}

    def make(who):  # a fresh client per request: POST to a sign-out URL must not sign the next one out
        if who == "agent":
            return api_client_for(secret=agent_token.secret)
        return api_client_for(user=users.get(who))

    return make


def test_each_role_is_admitted_exactly_where_its_url_says(client_of):
    checked = 0
    for path, pattern, namespace in routes():
        allowed = declared_roles(pattern, namespace)
        api = is_api(pattern.callback)
        # the admin's POSTs are forms of their own (sign-out among them); GET shows who gets in
        methods = ("get",) if namespace == "admin" else ("get", "post")
        for who, roles in WHO.items():
            effective = roles if api or who != "agent" else frozenset()  # a token opens API views only
            for method in methods:
                response = (
                    getattr(client_of(who), method)(path, format="json")
                    if api
                    else getattr(client_of(who), method)(path)
                )
                where = (method.upper(), path, who, response.status_code)
                if allowed == PUBLIC or admits(effective, allowed):
                    assert not refused(response, path, who, api), where
                    # the admin refuses by redirecting (above); its 403 is autocomplete's answer to missing parameters
                    assert namespace == "admin" or response.status_code not in (401, 403), where
                else:
                    assert refused(response, path, who, api), where
                checked += 1
    assert checked >= 6 * 9


class Undeclared(APIView):
    def get(self, request):
        return Response({"ok": True})


def test_an_api_view_that_declares_no_roles_admits_nobody_not_even_an_admin(admin_user):
    request = APIRequestFactory().get("/x")
    force_authenticate(request, user=admin_user)
    response = Undeclared.as_view()(request)
    assert response.status_code == 403 and "declares no roles" in str(response.data["detail"])


def test_signing_in_on_the_platform_leads_to_the_page_asked_for(client, author_user):
    assert client.get("/").url == "/accounts/login/?next=/"
    wrong = client.post("/accounts/login/", {"username": "author", "password": "nope", "next": "/"})
    assert wrong.status_code == 200 and b"didn't match" in wrong.content
    signed_in = client.post("/accounts/login/", {"username": "author", "password": "pw-123456", "next": "/"})
    assert signed_in.url == "/"
    home = client.get("/")
    assert home.status_code == 200 and b"Signed in as <strong>author</strong> (author)" in home.content
    assert client.post("/accounts/logout/").url == "/accounts/login/"
    assert client.get("/").status_code == 302


def test_a_signed_in_user_without_a_role_is_refused(client, outsider_user):
    client.force_login(outsider_user)
    response = client.get("/")
    assert response.status_code == 403
