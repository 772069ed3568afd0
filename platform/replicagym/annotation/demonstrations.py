"""Recording a task's reference solution by demonstration (for the task editor).

The author does the task in their own browser, in the same recording bar annotators
use; the recorded steps are engine action strings aimed at bids, and submitting the
recording replays and verifies them like any annotation. Usage from a view:

    recording = demonstration_start(task="testbed.complete-note", user=request.user,
                                    return_url=request.build_absolute_uri(editor_url))
    return redirect(demonstration_url(recording, port=request.get_port()))
    ...
    actions = demonstration_actions(recording)   # ['fill("14", "ann@...")', 'click("17")', ...]
"""
from django.db import transaction

from replicas.worlds.recording import recording_start_url

from .models import Recording
from .services import AnnotationError, item_claim, items_create, recording_start


def demonstration_start(*, task, user, seed: int | None = None, return_url: str = "") -> Recording:
    """A recording session of `task` (a version or a task id) in a fresh world of `seed` (default: the task's), for `user`.

    It is an item assigned to and claimed by the user, so it never shows in anyone else's queue.
    """
    with transaction.atomic():
        item = items_create(task=task, seeds=None if seed is None else [seed], assignee=user, created_by=user)[0]
        item_claim(item_id=item.pk, user=user)
        recording = recording_start(item_id=item.pk, user=user)
        if return_url:
            recording.return_url = return_url
            recording.save(update_fields=["return_url"])
    return recording


def demonstration_url(recording: Recording, *, port: int | None = None) -> str:
    """Where to send the author's browser: the world, with the recording bar and the recorder."""
    if recording.status != Recording.Status.RECORDING or recording.world is None:
        raise AnnotationError(f"recording {recording.pk} is {recording.status}: it cannot be opened for recording")
    return recording_start_url(world=recording.world, session=recording.pk, port=port)


def demonstration_actions(recording: Recording) -> list[str]:
    """The recorded action strings, in order (so far, while the author is still recording)."""
    return list(recording.steps.order_by("index").values_list("action", flat=True))
