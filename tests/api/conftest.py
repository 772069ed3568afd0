import pytest
from replicagym.accounts.tokens import token_create

from tests.episodes.fixtures import sync_test_pack


@pytest.fixture
def test_pack(db):
    return sync_test_pack()


@pytest.fixture
def agent_client(agent_token, api_client_for):
    client = api_client_for(secret=agent_token.secret)
    client.user = agent_token.token.user
    return client


@pytest.fixture
def other_agent_client(agent_token, api_client_for, django_user_model):
    """Another user's agent token, with the same suites: it must not see the first agent's episodes."""
    user = django_user_model.objects.create_user(username="other-agent", password="pw-123456")
    issued = token_create(user=user, suites=["smoke", "testbed"], expires_days=1)
    client = api_client_for(secret=issued.secret)
    client.user = user
    return client
