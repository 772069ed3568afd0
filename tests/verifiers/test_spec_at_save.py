"""A task whose verifier spec is bad is refused when its pack is loaded into the catalogue, naming the file and path."""

import json

import pytest

from catalogue.models import Task
from catalogue.packs import PackError, task_sync
from tests.verifiers.test_verify_tasks import TASK

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "assertion, message",
    [
        (
            {"name": "a", "kind": "state", "table": "testbed.nte", "expect": {"count": 1}},
            "verifier.assertions[0].table: unknown model 'testbed.nte'",
        ),
        (
            {"name": "a", "kind": "state", "table": "testbed.note", "where": {"titel": "1"}, "expect": {"count": 1}},
            "verifier.assertions[0].where.titel: unknown field 'titel' of testbed.note",
        ),
        (
            {
                "name": "a",
                "kind": "state",
                "table": "testbed.note",
                "where": {"title": {"about": "1"}},
                "expect": {"count": 1},
            },
            "verifier.assertions[0].where.title.about: bad operator 'about'",
        ),
        (
            {
                "name": "a",
                "kind": "state",
                "table": "testbed.note",
                "where": {"title": "{nope}"},
                "expect": {"count": 1},
            },
            "verifier.assertions[0].where.title: placeholder {nope} is not filled by params",
        ),
    ],
)
def test_a_bad_verifier_is_refused_at_save_with_its_path(tmp_path, assertion, message):
    (tmp_path / f"{TASK['slug']}.json").write_text(json.dumps({**TASK, "verifier": {"assertions": [assertion]}}))
    with pytest.raises(PackError) as caught:
        task_sync(replica="testbed", directory=tmp_path)
    assert message in str(caught.value)
    assert "name-the-note.json: " in str(caught.value)  # the file it is in
    assert not Task.objects.filter(task_id="testbed.name-the-note").exists()
