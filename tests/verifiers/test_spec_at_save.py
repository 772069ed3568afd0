"""A task whose verifier spec is bad is refused when its pack is loaded into the catalogue, naming the file and path."""
import json

import pytest
from replicagym.catalogue.models import Task
from replicagym.catalogue.packs import PackError, task_sync

from tests.verifiers.test_verify_tasks import TASK

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "assertion, message",
    [
        ({"name": "a", "kind": "state", "table": "supportdesk.refnd", "expect": {"count": 1}},
         "verifier.assertions[0].table: unknown model 'supportdesk.refnd'"),
        ({"name": "a", "kind": "state", "table": "supportdesk.refund", "where": {"amout": "1"}, "expect": {"count": 1}},
         "verifier.assertions[0].where.amout: unknown field 'amout' of supportdesk.refund"),
        ({"name": "a", "kind": "state", "table": "supportdesk.refund", "where": {"amount": {"about": "1"}}, "expect": {"count": 1}},
         "verifier.assertions[0].where.amount.about: bad operator 'about'"),
        ({"name": "a", "kind": "state", "table": "supportdesk.refund", "where": {"amount": "{nope}"}, "expect": {"count": 1}},
         "verifier.assertions[0].where.amount: placeholder {nope} is not filled by params"),
    ],
)
def test_a_bad_verifier_is_refused_at_save_with_its_path(tmp_path, assertion, message):
    (tmp_path / f"{TASK['slug']}.json").write_text(json.dumps({**TASK, "verifier": {"assertions": [assertion]}}))
    with pytest.raises(PackError) as caught:
        task_sync(replica="supportdesk", directory=tmp_path)
    assert message in str(caught.value)
    assert "name-the-ticket.json: " in str(caught.value)  # the file it is in
    assert not Task.objects.filter(task_id="supportdesk.name-the-ticket").exists()
