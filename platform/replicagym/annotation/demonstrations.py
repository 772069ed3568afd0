"""Demonstrations: an author does a draft task in the recording bar, and the task editor pulls the recorded actions.

A demonstration is a Recording with no queue item (so no queue, replay, review or export
ever sees it), in a fresh world of the draft's replica, seed and variant with the draft's
faults armed, as an episode of the task would start. The recorder is the annotators' own:
the recorded steps are engine action strings aimed at the bids the engine's replay sees.
Usage from a view:

    recording = demonstration_start(replica="testbed", variant="small", seed=7, faults=[], user=request.user,
                                    brief={"title": ..., "instruction": ..., "start_page": "/notes"})
    link = demonstration_url(recording, port=request.get_port())     # open it in a new tab
    ...
    recording = demonstration_of(recording_id=posted_id, user=request.user)   # AnnotationError if not theirs
    actions = demonstration_actions(recording)   # ['fill("role=textbox[name='Email']", "ann@...")', 'click("17")']
"""

from replicas.worlds.faults.spec import FaultSpecError
from replicas.worlds.recording import recording_start_url
from replicas.worlds.services import world_create

from .models import Recording
from .services import AnnotationError

BRIEF_KEYS = ("title", "task_id", "instruction", "start_page")


def demonstration_start(
    *, replica: str, variant: str, seed: int, faults: list | None = None, user, brief: dict | None = None
) -> Recording:
    """A demonstration of `user` in a fresh world of (replica, seed, variant) with `faults` armed.

    `brief` ({"title", "task_id", "instruction", "start_page"}, all optional) is what the bar shows.
    Raises AnnotationError (and creates nothing) for a world that cannot be made.
    """
    brief = {k: str(v) for k, v in (brief or {}).items() if k in BRIEF_KEYS and v is not None}
    start = brief.get("start_page", "/")
    if not start.startswith("/") or start.startswith("//"):
        brief["start_page"] = "/"
    try:
        world = world_create(replica=replica, seed=seed, variant=variant, faults=list(faults or []))
    except (FaultSpecError, LookupError) as exc:  # a bad fault spec, an unknown replica or variant
        raise AnnotationError(f"no world for the demonstration: {str(exc).strip(chr(34))}") from None
    return Recording.objects.create(item=None, annotator=user, world=world, brief=brief)


def demonstration_of(*, recording_id, user) -> Recording:
    """The user's own demonstration `recording_id`, still open; AnnotationError says why not."""
    try:
        pk = int(recording_id)
    except (TypeError, ValueError):
        raise AnnotationError(f"{recording_id!r} is not a recording id: start a demonstration first") from None
    recording = Recording.objects.filter(pk=pk).select_related("world").first()
    if recording is None or recording.annotator_id != user.pk:
        # another person's recording is as absent as a missing one: its id tells nothing
        raise AnnotationError(f"no demonstration {pk} of yours: start one with \u201cRecord by demonstration\u201d")
    if not recording.is_demonstration:
        raise AnnotationError(f"recording {pk} is an annotation of a queue item, not a demonstration")
    if recording.status != Recording.Status.RECORDING:
        raise AnnotationError(f"demonstration {pk} is {recording.status}")
    return recording


def demonstration_url(recording: Recording, *, port: int | None = None) -> str:
    """Where to send the author's browser: the world, with the recording bar and the recorder."""
    if recording.status != Recording.Status.RECORDING or recording.world is None:
        raise AnnotationError(f"recording {recording.pk} is {recording.status}: it cannot be opened for recording")
    return recording_start_url(world=recording.world, session=recording.pk, port=port)


def demonstration_actions(recording: Recording) -> list[str]:
    """The recorded action strings, in order (so far, while the author is still recording), each addressing its
    element by the robust selector the recorder found for it (role and name, #id) where it found one: a task's
    reference plays on other seeds, where the element's bid may differ."""
    return [step.robust_action for step in recording.steps.order_by("index")]
