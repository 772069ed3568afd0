import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.episodes.fixtures import sync_test_pack


@pytest.fixture
def test_pack(db):
    return sync_test_pack()


def _client_for(django_user_model, name):
    user = django_user_model.objects.create_user(username=name, password="pw-123456")
    token = Token.objects.create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    client.user = user
    return client


@pytest.fixture
def agent_client(db, django_user_model):
    return _client_for(django_user_model, "agent")


@pytest.fixture
def outsider_client(db, django_user_model):
    return _client_for(django_user_model, "outsider")
