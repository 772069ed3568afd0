"""Agents a run launched over the API (or the UI) may name: http agents only at endpoints an admin
allow-lists, on public addresses; openai agents, which spend the platform's key, only for staff or a
token whose scope names them. The command line (run_suite) is the operator's and is not fenced."""

import socket

import pytest
from replicagym.accounts.tokens import token_create

from catalogue.packs import suite_current
from episodes.agents import agent_from_spec
from episodes.agents import endpoints as endpoints_module
from episodes.agents.endpoints import endpoint_allow_listed
from episodes.models import Episode, Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(django_user_model):
    suite_current("testbed")
    user = django_user_model.objects.create_user(username="remote", password="pw-123456")
    return token_create(
        user=user,
        suites=["testbed"],
        expires_days=1,
        max_concurrent=10,
        max_per_hour=60,
        model_agents=["openai:gpt-4o"],
    )


@pytest.fixture
def api(token, api_client_for):
    return api_client_for(secret=token.secret)


def launch(client, agent: str):
    return client.post("/api/runs", {"suite": "testbed", "agent": agent}, format="json")


def test_a_remote_agent_that_no_admin_allow_listed_is_a_400(api):
    response = launch(api, "http:http://127.0.0.1:9000/internal")
    assert response.status_code == 400
    assert "http://127.0.0.1:9000/internal is not an allow-listed agent endpoint" in response.json()["detail"]
    assert not Run.objects.exists() and not Episode.objects.exists()


@pytest.mark.parametrize(
    "url, kind",
    [
        ("http://127.0.0.1:9000/internal", "loopback"),
        ("http://localhost:9000/act", "loopback"),  # a name is judged by what it resolves to
        ("http://[::1]:9000/act", "loopback"),
        ("http://[::ffff:127.0.0.1]:9000/act", "loopback"),
        ("http://10.1.2.3/act", "private"),
        ("http://192.168.0.7:8080/act", "private"),
        ("http://172.16.5.4/act", "private"),
        ("http://169.254.169.254/latest/meta-data", "link-local"),  # a cloud's metadata service
        ("http://0.0.0.0:9000/act", "unspecified"),
    ],
)
def test_loopback_private_and_link_local_agents_are_refused_by_default_even_when_allow_listed(api, settings, url, kind):
    settings.REMOTE_AGENT_ENDPOINTS = [url]
    response = launch(api, f"http:{url}")
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert f"a {kind} address: remote agents must be on public addresses" in detail
    assert not Run.objects.exists() and not Episode.objects.exists()


def test_an_allow_listed_public_endpoint_is_accepted_and_an_admin_may_allow_private_ones(api, settings):
    settings.REMOTE_AGENT_ENDPOINTS = ["http://93.184.216.34/agents/", "http://127.0.0.1:9000/"]
    assert launch(api, "http:http://93.184.216.34/agents/act").status_code == 201
    assert launch(api, "http:http://127.0.0.1:9000/act").status_code == 400
    settings.REMOTE_AGENT_PRIVATE = True
    assert launch(api, "http:http://127.0.0.1:9000/act").status_code == 201


@pytest.mark.parametrize(
    "url, allowed",
    [
        ("https://agents.example.com/v1/", True),
        ("https://agents.example.com/v1/act", True),
        ("https://AGENTS.example.com:443/v1/act", True),
        ("https://agents.example.com/v10/act", False),  # a sibling path, not one below
        ("https://agents.example.com.evil.net/v1/act", False),
        ("https://agents.example.com@evil.net/v1/act", False),  # the host is evil.net
        ("http://agents.example.com/v1/act", False),
        ("https://agents.example.com:8443/v1/act", False),
    ],
)
def test_the_allow_list_compares_scheme_host_port_and_path_not_text(settings, url, allowed):
    settings.REMOTE_AGENT_ENDPOINTS = ["https://agents.example.com/v1/"]
    assert endpoint_allow_listed(url) is allowed


def test_a_name_that_resolves_to_loopback_after_the_launch_is_refused_before_the_worker_posts(settings, monkeypatch):
    settings.REMOTE_AGENT_ENDPOINTS = ["http://agent.example:9000/"]
    answers = iter(
        [
            [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 9000))],
            [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 9000))],
        ]
    )
    monkeypatch.setattr(endpoints_module.socket, "getaddrinfo", lambda *a, **k: next(answers))
    agent = agent_from_spec("http:http://agent.example:9000/act", fenced=True)  # at launch: public
    assert agent.act(observation=None) == "noop()"  # at the step: refused, nothing sent
    assert "resolves to 127.0.0.1, a loopback address" in agent.errors[-1]


def test_the_command_line_is_not_fenced():
    agent = agent_from_spec("http:http://127.0.0.1:9000/act")
    assert agent.url == "http://127.0.0.1:9000/act"


def test_model_agents_need_a_token_scope_that_names_them_or_staff(api, api_client_for, author_user):
    refused = launch(api, "openai:gpt-5-expensive")
    assert refused.status_code == 403
    assert "openai:gpt-5-expensive spends the platform's model key" in refused.json()["detail"]
    assert "(openai:gpt-4o)" in refused.json()["detail"]
    assert launch(api, "openai:gpt-4o").status_code == 201
    assert launch(api_client_for(user=author_user), "openai:gpt-5-expensive").status_code == 201
    assert list(Run.objects.order_by("pk").values_list("agent", flat=True)) == [
        "openai:gpt-4o",
        "openai:gpt-5-expensive",
    ]
