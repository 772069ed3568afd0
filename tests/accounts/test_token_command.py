"""`manage.py token create|list|revoke`: the secret printed once, never listed; bad input exits 2 with one clear
line.
"""

import json

import pytest
from django.core.management import ManagementUtility
from django.db import connections
from replicagym.accounts.models import AgentToken
from replicagym.accounts.tokens import token_authenticate

pytestmark = pytest.mark.django_db


@pytest.fixture
def manage(monkeypatch, capsys):
    """Runs `manage.py ...` in this process as from a shell: (exit code, stdout, stderr)."""
    # a command run from the command line closes the connections when done; the test's transaction must stay
    monkeypatch.setattr(connections, "close_all", lambda: None)

    def run(*argv):
        code = 0
        try:
            ManagementUtility(["manage.py", *argv]).execute()
        except SystemExit as exc:
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_create_prints_the_secret_once_and_list_never_shows_it(agent_token, manage):
    code, out, err = manage(
        "token",
        "create",
        "--user",
        "agent",
        "--suites",
        "smoke,testbed",
        "--expires-days",
        "7",
        "--concurrent",
        "3",
        "--per-hour",
        "9",
        "--name",
        "ci",
    )
    assert code == 0 and "shown only now" in err
    created = json.loads(out)
    token = token_authenticate(created["secret"])
    assert (token.pk, token.suites, token.max_concurrent, token.max_per_hour) == (
        created["id"],
        ["smoke", "testbed"],
        3,
        9,
    )
    assert created["state"] == "active" and created["user"] == "agent"
    code, out, _ = manage("token", "list", "--user", "agent")
    listed = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [t["id"] for t in listed] == [agent_token.token.pk, created["id"]]
    assert created["secret"] not in out and token.digest not in out and all("secret" not in t for t in listed)


def test_create_names_the_model_agents_a_token_may_run(agent_token, manage):
    code, out, _ = manage(
        "token",
        "create",
        "--user",
        "agent",
        "--suites",
        "smoke",
        "--expires-days",
        "1",
        "--model-agents",
        "openai:gpt-4o, openai:o3",
    )
    assert code == 0 and json.loads(out)["model_agents"] == ["openai:gpt-4o", "openai:o3"]
    assert AgentToken.objects.get(pk=json.loads(out)["id"]).model_agents == ["openai:gpt-4o", "openai:o3"]


def test_revoke_by_id_ends_the_token(agent_token, manage):
    code, out, _ = manage("token", "revoke", str(agent_token.token.pk))
    assert code == 0 and json.loads(out)["state"] == "revoked"
    assert AgentToken.objects.get(pk=agent_token.token.pk).revoked_at is not None


@pytest.mark.parametrize(
    "argv, message",
    [
        (["create", "--user", "nobody", "--suites", "smoke", "--expires-days", "1"], "no user named 'nobody'"),
        (["create", "--user", "agent", "--suites", "smoke,nope", "--expires-days", "1"], "unknown suite(s) nope"),
        (
            ["create", "--user", "agent", "--suites", "smoke,,x", "--expires-days", "1"],
            "must be suite names separated by commas",
        ),
        (
            ["create", "--user", "agent", "--suites", "smoke", "--expires-days", "0"],
            "must be a positive whole number, not 0",
        ),
        (["create", "--user", "agent", "--suites", "smoke", "--expires-days", "9999"], "from 1 to 3650"),
        (["create", "--user", "agent", "--suites", "smoke", "--expires-days", "1", "--concurrent", "x"], "not 'x'"),
        (["create", "--user", "agent", "--suites", "smoke"], "--expires-days"),
        (
            ["create", "--user", "agent", "--suites", "smoke", "--expires-days", "1", "--model-agents", "gpt-4o"],
            "model agents are written openai:MODEL, not 'gpt-4o'",
        ),
        (["revoke", "abc"], "must be a positive whole number, not 'abc'"),
        (["revoke", "999999"], "no token with id 999999"),
        (["rotate"], "invalid choice: 'rotate'"),
    ],
)
def test_bad_input_exits_2_with_one_clear_line_and_changes_nothing(agent_token, manage, argv, message):
    before = list(AgentToken.objects.values_list("pk", "revoked_at"))
    code, out, err = manage("token", *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert list(AgentToken.objects.values_list("pk", "revoked_at")) == before
