"""The episode viewer marks the step that reached each checkpoint (dense checkpoints, issue 32), by name:
staff see names; a step that reached none, or an episode that did not watch, shows no mark."""

import pytest

from catalogue.models import Task

pytestmark = pytest.mark.django_db


def test_the_step_that_reached_a_checkpoint_shows_its_name(client, author_user, finished_run):
    client.force_login(author_user)
    episode = finished_run({"testbed.complete-note": [True]}).episodes.get()
    task = Task.objects.get(pk=episode.task_id)
    spec = {**task.spec, "verifier": {**task.spec["verifier"]}}
    spec["verifier"]["checkpoints"] = [
        {"name": "marked done", "assertions": ["the note is done"]},
        {"name": "left alone", "assertions": ["nothing else changed"]},
    ]
    Task.objects.filter(pk=task.pk).update(spec=spec)
    episode.steps.filter(index=0).update(checkpoints={"new": [], "reward": 0.0})
    episode.steps.filter(index=1).update(checkpoints={"new": [1, 0], "reward": 0.5})
    page = client.get(f"/runs/episodes/{episode.pk}/").content.decode()
    first, second = page.split('data-step="1"')
    assert 'data-testid="checkpoint-reached"' not in first
    assert "checkpoint: left alone" in second and "checkpoint: marked done" in second
    # no watch: no mark
    episode.steps.update(checkpoints=None)
    assert 'data-testid="checkpoint-reached"' not in client.get(f"/runs/episodes/{episode.pk}/").content.decode()
