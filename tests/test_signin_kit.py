"""The worlds' sign-in kit, held by every replica that has a sign-in page: passwords the public
seed does not give, sessions that only their own world accepts, and a `next` that stays home."""

from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.test import override_settings

from replicas.worlds.registry import replicas
from replicas.worlds.snapshot import canonical_json, snapshot
from tests.templates import module_template

pytestmark = pytest.mark.django_db

WITH_SIGN_IN = sorted(name for name, config in replicas().items() if config.login_path)

# every world of these tests clones one template per replica, built once for the module
_templates = {name: module_template(name) for name in WITH_SIGN_IN}
globals().update({f"template_{name}": fixture for name, fixture in _templates.items()})


def _on(client, world):
    client.defaults["HTTP_HOST"] = f"w-{world.token}.localhost:8000"
    return client


def _sign_in_form(client, config, world, *, login: str, password: str, next_url: str = ""):
    client.cookies.clear()
    return _on(client, world).post(config.login_path, {"email": login, "password": password, "next": next_url})


def _protected_page(client, config, world) -> str:
    """A start page an anonymous visitor is sent to the sign-in page from (every replica with
    sign-in has one: the test would be empty without it)."""
    client.cookies.clear()
    for path in config.start_pages.values():
        answer = _on(client, world).get(path)
        if answer.status_code == 302 and urlsplit(answer["Location"]).path == config.login_path:
            return path
    raise AssertionError(f"{config.label}: no start page needs sign-in")


def test_the_kit_covers_every_replica_with_a_sign_in_page():
    assert {"supportdesk", "shop", "board", "testbed"} <= set(WITH_SIGN_IN)


@pytest.mark.parametrize("replica", WITH_SIGN_IN)
def test_passwords_do_not_follow_from_the_seed_alone(replica, make_world, client):
    config = replicas()[replica]
    world = make_world(replica=replica, seed=7, variant="small")
    # everything the seed generator writes for this seed: a password computable from the seed
    # and the generator's code would have to come from here
    generated = canonical_json(snapshot(world))
    for role in config.roles:
        user = config.sign_in(world, role)
        assert user is not None, f"{replica} has no {role} in a small world"
        assert user.password not in generated
        with override_settings(WORLD_SECRET="another installation's secret"):
            elsewhere = config.sign_in(world, role).password
        assert elsewhere != user.password  # same seed, same generator, another secret: another password
        refused = _sign_in_form(client, config, world, login=user.login, password=elsewhere, next_url="/")
        assert refused.status_code == 400
        accepted = _sign_in_form(client, config, world, login=user.login, password=user.password, next_url="/")
        assert accepted.status_code == 302


@pytest.mark.parametrize("replica", WITH_SIGN_IN)
def test_a_session_of_one_world_is_refused_by_another(replica, make_world, client):
    config = replicas()[replica]
    mine, other = make_world(replica=replica), make_world(replica=replica)
    page = _protected_page(client, config, mine)
    user = config.sign_in(mine)
    signed_in = _sign_in_form(client, config, mine, login=user.login, password=user.password, next_url=page)
    assert signed_in.status_code == 302 and signed_in["Location"] == page
    assert _on(client, mine).get(page).status_code == 200
    # the same cookie (and the same credentials: same seed) on another world of the replica
    refused = _on(client, other).get(page)
    assert refused.status_code == 302 and urlsplit(refused["Location"]).path == config.login_path
    # a session made without the form is bound the same way
    client.cookies.clear()
    client.cookies[settings.SESSION_COOKIE_NAME] = user.session_key
    assert _on(client, mine).get(page).status_code == 200
    assert _on(client, other).get(page).status_code == 302


UNSAFE_NEXT = [
    "//evil.example/steal",
    "https://evil.example/steal",
    "http://evil.example",
    "javascript:alert(document.cookie)",
    "/\\evil.example/steal",
    "\\\\evil.example",
    "/\t/evil.example",
    " //evil.example",
]


@pytest.mark.parametrize("replica", WITH_SIGN_IN)
def test_an_unsafe_next_is_not_followed(replica, make_world, client):
    config = replicas()[replica]
    world = make_world(replica=replica)
    user = config.sign_in(world)
    for next_url in UNSAFE_NEXT:
        answer = _sign_in_form(client, config, world, login=user.login, password=user.password, next_url=next_url)
        assert answer.status_code == 302, next_url
        target = answer["Location"]
        assert "evil" not in target and "javascript" not in target, (next_url, target)
        assert target.startswith("/") and not target.startswith("//"), (next_url, target)
        # the sign-in page does not carry it on in its form either
        client.cookies.clear()
        form = _on(client, world).get(config.login_path, {"next": next_url})
        assert b"evil.example" not in form.content and b"javascript:" not in form.content, next_url
