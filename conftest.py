"""Fixtures shared by the whole suite."""

import pytest
from django.db import connection
from replicagym.accounts.roles import Role, role_grant
from replicagym.accounts.tokens import token_create
from rest_framework.test import APIClient

from episodes.engine.server import replica_server_stop
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_create
from tests.episodes.fixtures import sync_test_pack

# `--cpu-report PATH`: each test's CPU and the costliest files (issue 28: the suite is bound by the CPU)
pytest_plugins = ["tests.cpu_report"]


def _flush_by_delete(truncate):
    """PostgreSQL's flush as one DELETE per table instead of one TRUNCATE of them all, in the one transaction
    Django flushes in (Django's foreign keys there are deferred to its commit, so the order does not matter).

    A transactional test ends with a flush. TRUNCATE takes an exclusive lock on every table (it waits for
    the engine's replica server's connections) and gives each of the ~95 tables new files: measured on the
    loaded 2-core machine, 7-13 s a flush, against 0.1-0.4 s for the DELETEs of a test's few rows. The
    tables end empty either way; sequences are restarted only when asked, and then by `truncate` as before.
    """

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or not tables:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return [f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};" for table in tables]

    return sql_flush


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's test databases, flushed by DELETE on PostgreSQL (`_flush_by_delete`), and the engine's
    replica server stopped before they are dropped: it keeps its connections, and PostgreSQL refuses to drop a
    database somebody is connected to."""
    operations = type(connection.ops)
    truncate = operations.sql_flush
    if connection.vendor == "postgresql":
        operations.sql_flush = _flush_by_delete(truncate)
    yield
    operations.sql_flush = truncate
    replica_server_stop()


@pytest.fixture
def make_world(db):
    def make(replica="testbed", seed=7, variant="small", **kwargs):
        return world_create(replica=replica, seed=seed, variant=variant, **kwargs)

    return make


@pytest.fixture
def world(make_world):
    return make_world()


@pytest.fixture
def in_world(world):
    with bound_world(world):
        yield world


@pytest.fixture
def world_client(client, settings):
    """A test client whose requests go to a world's own origin.

    It is signed in as the replica's default role (ReplicaConfig.sign_in) when the replica
    has sign-in; pass signed_in=False to stay anonymous.
    """

    def for_world(world, signed_in=True):
        client.defaults["HTTP_HOST"] = f"w-{world.token}.localhost:8000"
        client.cookies.pop(settings.SESSION_COOKIE_NAME, None)
        if signed_in and not world.is_template:
            user = get_replica(world.replica).sign_in(world)
            if user is not None:  # a deleted world has no user to sign in as
                client.cookies[settings.SESSION_COOKIE_NAME] = user.session_key
        return client

    return for_world


# --- who is who: an admin (pytest-django's admin_user, a superuser), an author, an annotator,
# an outsider (signed in, no role) and an agent token scoped to the test pack's "smoke" suite.


def _user(django_user_model, name, role=None):
    user = django_user_model.objects.create_user(username=name, password="pw-123456")
    if role is not None:
        role_grant(user=user, role=role)
    return user


@pytest.fixture
def author_user(db, django_user_model):
    return _user(django_user_model, "author", Role.AUTHOR)


@pytest.fixture
def annotator_user(db, django_user_model):
    return _user(django_user_model, "annotator", Role.ANNOTATOR)


@pytest.fixture
def outsider_user(db, django_user_model):
    return _user(django_user_model, "outsider")


@pytest.fixture
def agent_token(db, django_user_model):
    """An IssuedToken (`.token`, `.secret`) of user "agent" for the "smoke" suite: open-note, not report-owner."""
    sync_test_pack()
    return token_create(
        user=_user(django_user_model, "agent"),
        suites=["smoke"],
        expires_days=30,
        max_concurrent=2,
        max_per_hour=5,
        name="fixture",
    )


@pytest.fixture
def api_client_for():
    """An API client authenticated by a token secret or by a signed-in user's session."""

    def make(*, secret=None, user=None):
        client = APIClient()
        if secret is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        if user is not None:
            client.force_login(user)
        return client

    return make


# What gives a test a database: pytest-django refuses any query from a test that has none of these.
DATABASE_FIXTURES = frozenset(
    {"db", "transactional_db", "live_server", "django_db_reset_sequences", "django_db_serialized_rollback"}
)


def _uses_database(item) -> bool:
    marked = any(item.get_closest_marker(mark) is not None for mark in ("django_db", "own_database"))
    return marked or not DATABASE_FIXTURES.isdisjoint(item.fixturenames)


def pytest_collection_modifyitems(config, items):
    """Tests marked `sqlite_only`, and tests that use no database at all, are left out on any other backend; tests
    that drive Chromium or start workers run first (a stable sort keeps their order).

    A test without a database fixture or mark cannot query one (pytest-django blocks it), so what it checks is the
    same whatever DATABASE_URL says (a test whose own processes use DATABASE_URL is marked `own_database`): about a
    third of the suite (the action grammar against a test page in Chromium, parsers, verifiers on given diffs), run
    once, on SQLite.

    `sqlite_only` marks tests that exercise nothing a database backend changes (a browser's behaviour on a
    page, a protocol, a subprocess on a SQLite database of its own): bin/test's PostgreSQL pass would
    repeat the SQLite pass's work for nothing, and the suite's time goal (issue 28) has no room for that.

    xdist hands tests out in collection order: the long ones started early spread over the
    workers, and the many quick ones fill the gaps at the end instead of one long test
    keeping a worker busy after the others are done.
    """
    if connection.vendor != "sqlite":
        kept, left_out = [], []
        for item in items:
            sqlite_only = item.get_closest_marker("sqlite_only") is not None
            (left_out if sqlite_only or not _uses_database(item) else kept).append(item)
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = kept
    items.sort(
        key=lambda item: item.get_closest_marker("browser") is None and item.get_closest_marker("worker") is None
    )
