"""A fresh install's first hour: the roles exist after migrate, the first admin is made once and can sign in,
people are made with a role from the command line, and an empty catalogue is filled from the packs."""

import json
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from replicagym.accounts.roles import GROUP_ROLES, Role, user_roles

from catalogue.models import Task

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_the_role_groups_exist_after_migrate():
    assert set(Group.objects.values_list("name", flat=True)) >= {str(r) for r in GROUP_ROLES}


def test_first_run_makes_one_admin_whose_printed_password_signs_in_and_changes_nothing_when_run_again(client):
    first = run("first_run", "--url", "http://localhost:8123/")
    password = re.search(r"with the password '([^']+)'", first).group(1)
    assert "http://localhost:8123/accounts/login/" in first
    admin = get_user_model().objects.get(username="admin")
    assert user_roles(admin) == {Role.ADMIN}
    assert client.login(username="admin", password=password)
    assert not client.login(username="admin", password=password + "x")

    again = run("first_run")
    assert "admin account" not in again and password not in again
    assert get_user_model().objects.count() == 1


def test_first_run_makes_no_admin_when_there_is_one():
    get_user_model().objects.create_superuser("root", password="a long pass phrase")
    assert "admin account" not in run("first_run")
    assert not get_user_model().objects.filter(username="admin").exists()


def test_first_run_fills_an_empty_catalogue_from_the_packs_and_leaves_a_filled_one(monkeypatch):
    from replicagym.accounts.management.commands import first_run

    synced = []  # the real sync builds worlds for every pack: the pack tests cover it
    monkeypatch.setattr(first_run, "call_command", lambda name, **kw: synced.append(name))
    assert not Task.objects.exists()
    assert "catalogue is empty" in run("first_run")
    assert synced == ["task_sync"]
    Task.objects.create(task_id="testbed.one", replica="testbed", slug="one", pack="testbed", title="One", spec={})
    assert "catalogue is empty" not in run("first_run")
    assert synced == ["task_sync"]


def test_user_create_grants_the_role_and_prints_a_generated_password_once(client):
    doc = json.loads(run("user", "create", "ana", "--role", "annotator"))
    assert doc["roles"] == ["annotator"] and len(doc["password"]) >= 12
    assert client.login(username="ana", password=doc["password"])
    given = json.loads(run("user", "create", "bob", "--role", "author", "--password", "correct horse battery"))
    assert given == {"roles": ["author"], "username": "bob"}
    listed = [json.loads(line) for line in run("user", "list").splitlines()]
    assert [(d["username"], d["roles"]) for d in listed] == [("ana", ["annotator"]), ("bob", ["author"])]


@pytest.mark.parametrize(
    "args, message",
    [
        (["ana", "--role", "author"], "exists already"),
        (["bad name!", "--role", "author"], "username"),
        (["carl", "--role", "author", "--password", "123"], "password"),
        (["dora", "--role", "agent"], "invalid choice"),
    ],
)
def test_user_create_refuses_bad_input_with_the_reason_and_makes_no_one(args, message):
    run("user", "create", "ana", "--role", "annotator", "--password", "correct horse battery")
    with pytest.raises((CommandError, SystemExit)) as caught:
        call_command("user", "create", *args, stdout=StringIO(), stderr=StringIO())
    if isinstance(caught.value, CommandError):
        assert message in str(caught.value)
    assert get_user_model().objects.count() == 1
