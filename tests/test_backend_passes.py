"""Which tests bin/test's PostgreSQL pass plays (conftest.py): those that use a database and are not `sqlite_only`."""

import pytest

from conftest import _uses_database


def test_a_test_without_a_database_fixture_or_mark_is_left_to_the_sqlite_pass(request):
    assert not _uses_database(request.node)


def test_the_db_fixture_makes_a_test_use_the_database(request, db):
    assert _uses_database(request.node)


@pytest.mark.django_db(transaction=True)
def test_the_django_db_mark_makes_a_test_use_the_database(request):
    assert _uses_database(request.node)


@pytest.fixture
def some_world(make_world):
    return make_world()


def test_a_fixture_that_needs_the_database_makes_a_test_use_it(request, some_world):
    assert _uses_database(request.node)


@pytest.mark.own_database
def test_a_test_whose_own_processes_use_the_database_is_marked_so(request):
    assert _uses_database(request.node)
