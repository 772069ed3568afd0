"""Writes of annotation: queue items, claims and skips, recordings and their steps, replay, review.

Each raises AnnotationError with a message for the person when the request cannot be
honoured, and then changes nothing.
"""

import json
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from catalogue.models import Task
from catalogue.packs import task_current, task_params
from catalogue.task_templates import NoCandidate
from episodes.creation import episode_create
from episodes.models import Episode
from episodes.runs import DEFAULT_QUEUE, enqueue_episodes
from episodes.trajectory import FORMAT, VERSION
from replicas.worlds.services import world_create
from verifiers.actions import ActionError, parse_action

from .models import Item, RecordedStep, Recording, Skip, robust_action

MAX_STEPS = 500  # a recording longer than this is a person who forgot to submit
MAX_THOUGHT = 4000
TAB_ACTIONS = ("tab_focus", "new_tab", "tab_close")


class AnnotationError(ValueError):
    """A request about annotation that cannot be honoured; the message says why."""


# --- the queue --------------------------------------------------------------------------


def _task(task) -> Task:
    if isinstance(task, Task):
        return task
    try:
        return task_current(task)
    except LookupError:
        raise AnnotationError(f"no task {task!r} in the catalogue") from None


class QueuedItems(list):
    """The items queued, and `skipped`: {seed: why} for each seed whose world has nothing the task can be about."""

    def __init__(self, items, skipped):
        super().__init__(items)
        self.skipped = skipped


def items_create(*, task, seeds: list[int] | None = None, assignee=None, created_by=None) -> QueuedItems:
    """Queue items of `task` (a version or a task id), one per seed (default: the task's own), for `assignee` or all.

    A seed whose world has no candidate for the task's params is skipped and reported, the rest queued;
    when no seed has one, nothing is queued and the error names them all."""
    task = _task(task)
    seeds = [task.seed] if not seeds else seeds
    if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
        raise AnnotationError(f"seeds must be non-negative integers, not {seeds!r}")
    if len(set(seeds)) != len(seeds):
        raise AnnotationError("each seed once, please")
    keys, skipped = {}, {}
    for seed in seeds:  # the answer key of each world, computed before anything is written
        try:
            keys[seed] = task.params if seed == task.seed else task_params({**task.spec, "seed": seed})
        except (NoCandidate, LookupError) as exc:  # the catalogue's and the replicas' pickers' "nothing to pick"
            skipped[seed] = str(exc) or type(exc).__name__
    if not keys:
        raise AnnotationError(
            "no item queued: "
            + "; ".join(f"seed {seed} has no world the task can be about ({why})" for seed, why in skipped.items())
        )
    with transaction.atomic():
        items = [
            Item.objects.create(
                task=task,
                world_seed=seed,
                params=params,
                faults=task.with_params(params).faults,
                assignee=assignee,
                created_by=created_by,
            )
            for seed, params in keys.items()
        ]
    return QueuedItems(items, skipped)


def item_assign(*, item_id: int, assignee) -> Item:
    """Give an open item to one annotator (None: open to all)."""
    with transaction.atomic():
        item = Item.objects.select_for_update().filter(pk=item_id).first()
        if item is None:
            raise AnnotationError(f"no item {item_id}")
        if item.status != Item.Status.OPEN:
            raise AnnotationError(f"item {item_id} is {item.status}: only an open item can be assigned")
        item.assignee = assignee
        item.save(update_fields=["assignee"])
    return item


def item_claim(*, item_id: int, user) -> Item:
    """Take an open item of the user's queue; two annotators claiming at once: one gets it."""
    taken = Item.objects.filter(available_to(user), pk=item_id, status=Item.Status.OPEN).update(
        status=Item.Status.CLAIMED, claimed_by=user
    )
    if taken != 1:
        item = Item.objects.filter(pk=item_id).first()
        if item is None:
            raise AnnotationError(f"no item {item_id}")
        if item.status != Item.Status.OPEN:
            raise AnnotationError(f"item {item_id} is already {item.get_status_display().lower()}")
        raise AnnotationError(f"item {item_id} is assigned to someone else")
    return Item.objects.get(pk=item_id)


def available_to(user) -> Q:
    """Items a user may take: open to all or assigned to them, and not skipped by them."""
    return (Q(assignee__isnull=True) | Q(assignee=user)) & ~Q(skips__user=user)


def item_skip(*, item_id: int, user, reason: str) -> Skip:
    """Pass on an item (open, or claimed by the user), with a reason; it goes back to the queue for the others."""
    reason = (reason or "").strip()
    if not reason:
        raise AnnotationError("say why you skip the item")
    if len(reason) > 500:
        raise AnnotationError("the reason is longer than 500 characters")
    with transaction.atomic():
        item = Item.objects.select_for_update().filter(pk=item_id).first()
        if item is None:
            raise AnnotationError(f"no item {item_id}")
        mine = item.status == Item.Status.CLAIMED and item.claimed_by_id == user.pk
        if item.status != Item.Status.OPEN and not mine:
            raise AnnotationError(f"item {item_id} is {item.status}: you can skip an open item or one you claimed")
        if Skip.objects.filter(item=item, user=user).exists():
            raise AnnotationError(f"you skipped item {item_id} already")
        if mine:
            Recording.objects.filter(item=item, annotator=user, status=Recording.Status.RECORDING).delete()
            item.status, item.claimed_by = Item.Status.OPEN, None
            if item.assignee_id == user.pk:  # an item assigned to them goes back to everyone
                item.assignee = None
            item.save(update_fields=["status", "claimed_by", "assignee"])
        return Skip.objects.create(item=item, user=user, reason=reason)


# --- recording ----------------------------------------------------------------------------


def recording_start(*, item_id: int, user) -> Recording:
    """The annotator's recording of a claimed item, in a fresh world of its task, seed and faults (one at a time)."""
    item = Item.objects.select_related("task").filter(pk=item_id).first()
    if item is None:
        raise AnnotationError(f"no item {item_id}")
    if item.status != Item.Status.CLAIMED or item.claimed_by_id != user.pk:
        raise AnnotationError(f"item {item_id} is not claimed by you: claim it first")
    current = Recording.objects.filter(item=item, annotator=user, status=Recording.Status.RECORDING).first()
    if current is not None:
        return current
    task = item.task
    world = world_create(replica=task.replica, seed=item.world_seed, variant=task.variant, faults=item.faults)
    return Recording.objects.create(item=item, annotator=user, world=world)


def recording_restart(*, recording: Recording) -> Recording:
    """Start over: a fresh world and no steps (the old world is left for the gc)."""
    if recording.status != Recording.Status.RECORDING:
        raise AnnotationError(f"recording {recording.pk} is {recording.status}: it cannot start over")
    if recording.is_demonstration:
        raise AnnotationError("a demonstration starts over as a new one, from the task editor")
    task = recording.item.task
    with transaction.atomic():
        recording.steps.all().delete()
        recording.world = world_create(
            replica=task.replica, seed=recording.item.world_seed, variant=task.variant, faults=recording.item.faults
        )
        recording.started_at = timezone.now()
        recording.save(update_fields=["world", "started_at"])
    return recording


def _page(url: str) -> str:
    parts = urlsplit(url or "")
    return parts.path + (f"?{parts.query}" if parts.query else "")


def recording_step_add(
    *,
    recording: Recording,
    action: str,
    url: str = "",
    tab: str = "",
    at_ms: int = 0,
    thought: str = "",
    replace: bool = False,
    selector: str = "",
) -> RecordedStep:
    """Append one recorded action (or, with `replace`, put it in place of the last: a click that became a double
    click). `selector` is the recorder's robust alternative to the action's bid (role=button[name='Save'], #id),
    kept with the step so a demonstration pulled into a task names the element in a way that holds on other seeds.
    """
    if recording.status != Recording.Status.RECORDING:
        raise AnnotationError(f"recording {recording.pk} is {recording.status}: it takes no more steps")
    if not isinstance(action, str):
        raise AnnotationError("action must be a string")
    try:
        parse_action(action)
    except ActionError as exc:
        raise AnnotationError(f"not an action of the engine's grammar: {exc}") from None
    if selector is None:
        selector = ""
    if not isinstance(selector, str):
        raise AnnotationError("selector must be a string")
    try:
        robust_action(action, selector)
    except ActionError as exc:
        raise AnnotationError(f"the step's selector: {exc}") from None
    if not isinstance(thought, str) or len(thought) > MAX_THOUGHT:
        raise AnnotationError(f"a thought is text of at most {MAX_THOUGHT} characters")
    if isinstance(at_ms, bool) or not isinstance(at_ms, int) or at_ms < 0:
        raise AnnotationError("at_ms must be a non-negative integer")
    if not isinstance(url, str) or not isinstance(tab, str) or len(tab) > 40:
        raise AnnotationError("url and tab must be short strings")
    with transaction.atomic():
        last = recording.steps.select_for_update().order_by("-index").first()
        if replace:
            if last is None:
                raise AnnotationError("there is no step to replace")
            last.action, last.at_ms, last.selector = action, at_ms, selector
            last.thought = thought or last.thought
            last.save(update_fields=["action", "at_ms", "thought", "selector"])
            return last
        index = 0 if last is None else last.index + 1
        if index >= MAX_STEPS:
            raise AnnotationError(f"a recording holds at most {MAX_STEPS} steps: submit it")
        return RecordedStep.objects.create(
            recording=recording,
            index=index,
            action=action,
            selector=selector,
            thought=thought.strip(),
            url=_page(url)[:2000],
            tab=tab,
            at_ms=at_ms,
        )


def recording_thought_set(*, recording: Recording, index: int, thought: str) -> RecordedStep:
    if recording.status != Recording.Status.RECORDING:
        raise AnnotationError(f"recording {recording.pk} is {recording.status}: its steps are final")
    if not isinstance(thought, str) or len(thought) > MAX_THOUGHT:
        raise AnnotationError(f"a thought is text of at most {MAX_THOUGHT} characters")
    step = recording.steps.filter(index=index).first()
    if step is None:
        raise AnnotationError(f"no step {index} in recording {recording.pk}")
    step.thought = thought.strip()
    step.save(update_fields=["thought"])
    return step


def recording_trajectory_path(recording: Recording) -> Path:
    return settings.DATA_DIR / "annotation" / f"recording-{recording.pk}.jsonl"


def _trajectory_write(recording: Recording, steps: list[RecordedStep]) -> Path:
    """The recording in the engine's trajectory format, for the replay agent (replay:FILE)."""
    item = recording.item
    header = {
        "format": FORMAT,
        "version": VERSION,
        "task": item.task.task_id,
        "task_version": item.task.content_hash,
        "replica": item.task.replica,
        "world_seed": item.world_seed,
        "variant": item.task.variant,
        "agent": f"annotator:{recording.annotator.get_username()}",
        "recording": recording.pk,
        "steps": len(steps),
    }
    lines = [json.dumps(header, sort_keys=True, ensure_ascii=False)]
    lines += [
        json.dumps(
            {"index": s.index, "action": s.action, "thought": s.thought, "url": s.url, "at_ms": s.at_ms},
            sort_keys=True,
            ensure_ascii=False,
        )
        for s in steps
    ]
    path = recording_trajectory_path(recording)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def recording_submit(*, recording: Recording, user, queue: str = DEFAULT_QUEUE) -> Recording:
    """Close the recording and queue its replay by the engine in a fresh world (a worker runs it)."""
    if recording.is_demonstration:
        raise AnnotationError("a demonstration is not submitted: pull its actions into the task editor")
    if recording.annotator_id != user.pk:
        raise AnnotationError("only the annotator who recorded it can submit it")
    if recording.status != Recording.Status.RECORDING:
        raise AnnotationError(f"recording {recording.pk} is {recording.status}: submitted already")
    steps = list(recording.steps.order_by("index"))
    if not steps:
        raise AnnotationError("nothing was recorded: do the task in the world first")
    item = recording.item
    with transaction.atomic():
        path = _trajectory_write(recording, steps)
        episode = episode_create(
            task=item.task, agent=f"replay:{path}", seed=item.world_seed, owner=recording.annotator
        )
        enqueue_episodes([episode.pk], queue=queue)
        recording.status, recording.submitted_at, recording.replay = Recording.Status.REPLAYING, timezone.now(), episode
        recording.save(update_fields=["status", "submitted_at", "replay"])
        Item.objects.filter(pk=item.pk).update(status=Item.Status.SUBMITTED)
    return recording


# --- after the replay --------------------------------------------------------------------


def divergence_find(recorded: list[RecordedStep], replayed: list, messages_expected: int = 0) -> dict | None:
    """The first step where the engine's replay left the recording: an action that failed, or another page.

    Replay step i's URL is the page after action i; recorded step i+1 was done on the page
    the person saw after action i. Tab actions are compared by their errors only.
    """
    for i, step in enumerate(replayed):
        if i >= len(recorded):
            break
        if step.error:
            return {"step": i, "reason": f"the action failed in the replay: {step.error}"}
        nxt = recorded[i + 1] if i + 1 < len(recorded) else None
        if (
            nxt is None
            or nxt.url == ""
            or any(nxt.action.startswith(a) or recorded[i].action.startswith(a) for a in TAB_ACTIONS)
        ):
            continue
        if _page(step.url) != nxt.url:
            return {
                "step": i,
                "reason": f"the replay was on {_page(step.url)} after this step; the recording on {nxt.url}",
            }
    if len(replayed) < len(recorded):
        return {"step": len(replayed), "reason": f"the replay stopped after {len(replayed)} of {len(recorded)} steps"}
    return None


def recording_replay_collect(*, recording: Recording) -> Recording:
    """Once its replay episode has finished: the verdict decides the status, and any divergence is kept."""
    if recording.status != Recording.Status.REPLAYING or recording.replay_id is None:
        return recording
    episode = Episode.objects.get(pk=recording.replay_id)
    if not episode.is_final:
        return recording
    recorded = list(recording.steps.order_by("index"))
    replayed = list(episode.steps.order_by("index"))
    divergence = divergence_find(recorded, replayed)
    if episode.status == Episode.Status.SUCCEEDED:
        status = Recording.Status.VERIFIED
    elif episode.status == Episode.Status.FAILED:
        status = Recording.Status.FAILED
    else:
        status = Recording.Status.ERRORED
        divergence = divergence or {
            "step": len(replayed),
            "reason": f"the replay {episode.status}: {episode.error[:300]}",
        }
    updated = Recording.objects.filter(pk=recording.pk, status=Recording.Status.REPLAYING).update(
        status=status, divergence=divergence
    )
    if updated:
        recording.status, recording.divergence = status, divergence
    return recording


def recordings_collect() -> int:
    """Collect every recording whose replay has finished; returns how many changed."""
    changed = 0
    pending = Recording.objects.filter(status=Recording.Status.REPLAYING, replay__status__in=Episode.FINAL)
    for recording in pending.select_related("item"):
        changed += recording_replay_collect(recording=recording).status != Recording.Status.REPLAYING
    return changed


# --- review -----------------------------------------------------------------------------------


def recording_review(*, recording_id: int, reviewer, accept: bool, comment: str = "") -> Recording:
    """Accept a verified recording, or reject one (its item goes back to the queue)."""
    comment = (comment or "").strip()
    if len(comment) > 4000:
        raise AnnotationError("the comment is longer than 4000 characters")
    with transaction.atomic():
        recording = Recording.objects.select_for_update().filter(pk=recording_id).first()
        if recording is None:
            raise AnnotationError(f"no recording {recording_id}")
        if recording.status not in Recording.REVIEWABLE:
            raise AnnotationError(
                f"recording {recording_id} is {recording.get_status_display().lower()}: nothing to review"
            )
        if recording.annotator_id == reviewer.pk:
            raise AnnotationError("you cannot review your own recording")
        if accept and recording.status != Recording.Status.VERIFIED:
            raise AnnotationError("only a recording whose replay passed the verifier can be accepted")
        if not accept and not comment:
            raise AnnotationError("say why you reject it: the annotator reads the comment")
        recording.status = Recording.Status.ACCEPTED if accept else Recording.Status.REJECTED
        recording.reviewer, recording.review_comment, recording.reviewed_at = reviewer, comment, timezone.now()
        recording.save(update_fields=["status", "reviewer", "review_comment", "reviewed_at"])
        if accept:
            Item.objects.filter(pk=recording.item_id).update(status=Item.Status.ACCEPTED)
        else:
            Item.objects.filter(pk=recording.item_id).update(status=Item.Status.OPEN, claimed_by=None)
    return recording
