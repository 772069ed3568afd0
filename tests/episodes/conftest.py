import pytest

from tests.episodes.fixtures import sync_test_pack


@pytest.fixture
def test_pack(db):
    return sync_test_pack()


@pytest.fixture
def live_pack(transactional_db):
    """The test pack for tests whose browser reaches the in-process server (its own DB connection)."""
    return sync_test_pack()
