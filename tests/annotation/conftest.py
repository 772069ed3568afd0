"""Fixtures of the annotation tests: the testbed's task in the queue, people with passwords, a browser flow."""

import pytest
from replicagym.accounts.roles import Role, role_grant
from replicagym.annotation.services import items_create

from episodes.queue.claims import episode_claim_next
from episodes.queue.workers import episode_execute
from episodes.runs import DEFAULT_QUEUE

TASK = "testbed.complete-note"
PASSWORD = "pw-123456"


@pytest.fixture
def people(db, django_user_model):
    def make(name, role=None):
        user = django_user_model.objects.create_user(username=name, password=PASSWORD)
        if role is not None:
            role_grant(user=user, role=role)
        return user

    return {
        "annie": make("annie", Role.ANNOTATOR),
        "bob": make("bob", Role.ANNOTATOR),
        "rita": make("rita", Role.AUTHOR),
        "root": make("root", Role.ADMIN),
        "olga": make("olga"),
    }


@pytest.fixture
def item(people):
    return items_create(task=TASK)[0]


def run_queued_replays() -> list[str]:
    """What `manage.py worker` does for each queued episode, here in the test's process."""
    statuses = []
    while (pk := episode_claim_next(queue=DEFAULT_QUEUE, worker="test:1")) is not None:
        statuses.append(episode_execute(episode_id=pk))
    return statuses
