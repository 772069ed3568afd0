""" "Open this world": a fresh world of the editor's seed, and a link that signs the browser in on the world's
origin.
"""

import re
from html import unescape
from urllib.parse import urlparse

import pytest
from django.conf import settings

from replicas.worlds.models import World

pytestmark = pytest.mark.django_db


def test_open_this_world_signs_the_browser_in_on_the_worlds_own_origin(client, author_user):
    client.force_login(author_user)
    html = client.post(
        "/tasks/editor/world/",
        {"s:replica": "testbed", "s:variant": "small", "i:seed": "3", "s:start_page": "/notes", "world_role": "owner"},
    ).content.decode()
    world = World.objects.get(is_template=False, replica="testbed", seed=3)
    link = unescape(re.search(r'href="([^"]+)" target="_blank"', html).group(1))
    url = urlparse(link)
    assert url.hostname == f"w-{world.token}.{settings.WORLD_DOMAIN}" and url.path == "/__replicagym/signin"
    response = client.get(f"{url.path}?{url.query}", HTTP_HOST=url.netloc)
    assert response.status_code == 302 and response["Location"] == "/notes"
    session = response.cookies[settings.SESSION_COOKIE_NAME].value
    page = client.get("/notes", HTTP_HOST=url.netloc, HTTP_COOKIE=f"{settings.SESSION_COOKIE_NAME}={session}")
    assert page.status_code == 200
    # a link for one world opens no other, and a forged one nothing at all
    other = client.get(f"{url.path}?t=forged", HTTP_HOST=url.netloc)
    assert other.status_code == 404


def test_open_this_world_refuses_a_bad_seed_or_variant(client, author_user):
    client.force_login(author_user)
    html = client.post(
        "/tasks/editor/world/", {"s:replica": "testbed", "s:variant": "gigantic", "i:seed": "-1"}
    ).content.decode()
    assert "choose one of the variants" in html and "0 or more" in html
    assert not World.objects.filter(is_template=False).exists()


def test_an_expired_link_says_so_and_signs_nobody_in(client, author_user, monkeypatch):
    """It became a bare "Page not found" after 120 s."""
    from django.core import signing

    client.force_login(author_user)
    html = client.post(
        "/tasks/editor/world/",
        {"s:replica": "testbed", "s:variant": "small", "i:seed": "3", "s:start_page": "/notes", "world_role": "owner"},
    ).content.decode()
    url = urlparse(unescape(re.search(r'href="([^"]+)" target="_blank"', html).group(1)))
    real_loads = signing.loads
    monkeypatch.setattr(signing, "loads", lambda *a, **kw: real_loads(*a, **{**kw, "max_age": -1}))  # 15 min later
    response = client.get(f"{url.path}?{url.query}", HTTP_HOST=url.netloc)
    assert response.status_code == 410 and settings.SESSION_COOKIE_NAME not in response.cookies
    page = response.content.decode()
    assert "This sign-in link has expired" in page and "Open this world</strong> again" in page
