"""schemathesis over the OpenAPI schema, as each role: data that fits the schema and data that does not,
against every operation, and never a server error (validation answers 400 and changes nothing).

A quarter of the examples are grounded in real rows (an existing task, the agent's own episodes), so
the fuzz reaches past "unknown task" and 404 into episode creation, quotas and finishing. Examples per
operation are capped and derandomized: CI stays fast and a failure replays the same way.
"""

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.middleware.csrf import _get_new_csrf_string
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from replicagym.accounts.tokens import token_episode_start
from schemathesis.generation import GenerationMode

from catalogue.packs import task_current
from episodes.models import Episode

pytestmark = pytest.mark.django_db
# Examples per operation, for each role: those the API admits get more than those refused at the door.
EXAMPLES = {"agent": 20, "author": 15, "admin": 8, "annotator": 4, "anonymous": 4}
SCHEMA_EXAMPLES = 2  # GET /api/schema/ regenerates the whole schema each time; its only inputs are format and lang
# What each role must have met, so the fuzz is known to have gone past the door: the agent reaches
# creation (201), its suite scope (403) and its quota (429); staff have no scope or quota; the rest are refused.
REACHED = {
    "agent": {200, 201, 400, 403, 404, 429},
    "author": {200, 201, 400, 404},
    "admin": {200, 201, 400, 404},
    "annotator": {200, 403},  # the schema, and nothing else
    "anonymous": {401},
}
TASKS = ["testbed.open-note", "testbed.report-owner"]


@pytest.fixture(scope="module")
def api_schema():
    return schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))


@pytest.fixture
def app():
    """The project's WSGI application, on the test's database connection.

    Like Django's test client, keep the connection open across requests: the handler would close it
    at the end of each one, and with it the test's transaction.
    """
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield get_wsgi_application()
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


def session_credentials(user) -> dict:
    """Cookies that sign `user` in by session, with a CSRF pair so POSTs reach the view."""
    client = Client()  # one each: signing a second user in on one client would end the first one's session
    client.force_login(user)
    csrf = _get_new_csrf_string()
    session = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    return {
        "cookies": {django_settings.SESSION_COOKIE_NAME: session, django_settings.CSRF_COOKIE_NAME: csrf},
        "headers": {"X-CSRFToken": csrf},
    }


@pytest.fixture
def credentials(agent_token, admin_user, author_user, annotator_user):
    return {
        "agent": {"headers": {"Authorization": f"Token {agent_token.secret}"}},
        "admin": session_credentials(admin_user),
        "author": session_credentials(author_user),
        "annotator": session_credentials(annotator_user),
        "anonymous": {},
    }


def ground(case, pick: int, episode_ids: list[int]) -> None:
    """Point a generated case at real rows: one of the agent's episodes, an existing task."""
    if case.path_parameters and "episode_id" in case.path_parameters:
        case.path_parameters["episode_id"] = episode_ids[pick % len(episode_ids)]
    if isinstance(case.body, dict) and "task" in case.body:
        case.body["task"] = TASKS[pick % len(TASKS)]


@pytest.mark.parametrize("who", list(EXAMPLES))
def test_no_operation_answers_a_server_error_to_any_role(api_schema, app, credentials, agent_token, who):
    api_schema.app = app
    # not through Django's test client: it would reconnect the signal that closes the connection
    episode_ids = [token_episode_start(token=agent_token.token, task=task_current(TASKS[0])).pk]
    operations = {result.ok().label: result.ok() for result in api_schema.get_all_operations()}
    assert set(operations) >= {
        "GET /api/tasks",
        "POST /api/episodes",
        "GET /api/episodes/{episode_id}",
        "POST /api/episodes/{episode_id}/finish",
        "GET /api/schema/",
    }
    auth, statuses, server_errors = credentials[who], set(), []
    for label, operation in operations.items():
        strategy = st.one_of(
            operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE)
        )

        @given(case=strategy, pick=st.integers(0, 7))
        @hypothesis_settings(
            max_examples=SCHEMA_EXAMPLES if label == "GET /api/schema/" else EXAMPLES[who],
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def call(case, pick):
            if pick < 2:
                ground(case, pick, episode_ids)
            response = case.call(**auth)
            statuses.add(response.status_code)
            if response.status_code >= 500:
                server_errors.append((case.as_curl_command(), response.status_code, response.text[:300]))

        call()
    assert server_errors == []
    assert REACHED[who] <= statuses, sorted(statuses)
    if who in ("annotator", "anonymous"):  # refused at the door: nothing was made
        assert list(Episode.objects.values_list("pk", flat=True)) == episode_ids
