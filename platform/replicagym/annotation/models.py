"""Annotation as data: queue items, the recordings annotators make of them, their steps, reviews and exports."""

import re

from django.conf import settings
from django.db import models
from django.utils import timezone

from verifiers.actions import ActionError, DragAndDrop, ElementAction, parse_action

# The selectors the recorder makes (replicas/worlds/static/worlds/recorder.js): a role and its exact accessible name
# (a Playwright role selector, as the engine's browser resolves it) or a CSS id without digits.
ROBUST_SELECTOR = re.compile(
    r"role=(?:button|link|tab|menuitem|checkbox|radio|option|combobox|textbox)\[name='(?:[^'\\\n]|\\.)+'\]"
    r"|#[A-Za-z][A-Za-z_-]*"
)


def robust_action(action: str, selector: str) -> str:
    """`action` addressing its element by `selector` instead of its bid; ActionError if the pair cannot be one
    action: a selector the recorder does not make, an action with no element or with two (a drag), a result the
    grammar refuses. An empty selector leaves the action as it is."""
    parsed = parse_action(action)
    if not selector:
        return action
    if not isinstance(selector, str) or len(selector) > 500 or not ROBUST_SELECTOR.fullmatch(selector):
        raise ActionError(f"{selector!r} is not a selector the recorder makes (role=ROLE[name='NAME'] or #id)")
    if not isinstance(parsed, ElementAction) or isinstance(parsed, DragAndDrop):
        raise ActionError(f"{parsed.name}() does not address one element: it takes no selector")
    return str(parse_action(str(parsed.with_element(selector))))


class Item(models.Model):
    """One thing to do in the queue: a task version in the world of one seed (with the task's faults)."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CLAIMED = "claimed", "Claimed"
        SUBMITTED = "submitted", "Submitted"
        ACCEPTED = "accepted", "Accepted"

    task = models.ForeignKey("catalogue.Task", on_delete=models.PROTECT, related_name="+")
    world_seed = models.BigIntegerField()
    faults = models.JSONField(
        default=list, blank=True, help_text="The task's faults, armed in every world of the item."
    )
    params = models.JSONField(default=dict, blank=True, help_text="The answer key of the seed's world (never shown).")
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Blank: open to every annotator.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["status", "assignee"])]

    def __str__(self):
        return f"item {self.pk}: {self.task.task_id} seed {self.world_seed}"


class Skip(models.Model):
    """An annotator passed on an item, saying why; the item leaves their queue, not anyone else's."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="skips")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "user"], name="one_skip_per_annotator")]


class Recording(models.Model):
    """One person's steps, recorded in their browser in a world of their own.

    Most are an annotator's attempt at a queue item: replayed by the engine, reviewed, exported.
    A recording with no item is a demonstration: an author doing a draft task in the task editor,
    whose actions the editor pulls into the reference solution or a negative example; it is never
    submitted, replayed or reviewed, and its `brief` holds what the bar shows in place of the item's.
    """

    class Status(models.TextChoices):
        RECORDING = "recording", "Recording"
        REPLAYING = "replaying", "Replaying"
        VERIFIED = "verified", "Verified"  # the replay passed the verifier: ready for review
        FAILED = "failed", "Failed verification"
        ERRORED = "errored", "Replay errored"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

    REVIEWABLE = (Status.VERIFIED, Status.FAILED, Status.ERRORED)

    item = models.ForeignKey(
        Item,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="recordings",
        help_text="The queue item recorded; blank for an author's demonstration.",
    )
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    world = models.ForeignKey(
        "worlds.World",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The world the annotator works in (never the replay's).",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RECORDING)
    return_url = models.CharField(
        max_length=500, blank=True, help_text="The platform page the bar returns to on submit."
    )
    started_at = models.DateTimeField(default=timezone.now)
    submitted_at = models.DateTimeField(null=True, blank=True)
    replay = models.ForeignKey(
        "episodes.Episode",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The engine's replay: the canonical trajectory, verified.",
    )
    divergence = models.JSONField(
        null=True, blank=True, help_text='Where the replay left the recording: {"step", "reason"}; null if it did not.'
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    review_comment = models.TextField(blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    brief = models.JSONField(
        default=dict,
        blank=True,
        help_text='A demonstration\'s {"title", "task_id", "instruction", "start_page"}, shown in the bar.',
    )

    class Meta:
        ordering = ["-pk"]

    def __str__(self):
        return f"recording {self.pk} of {self.item}" if self.item_id else f"demonstration {self.pk}"

    @property
    def is_demonstration(self) -> bool:
        return self.item_id is None

    def briefing(self) -> dict:
        """What the recording bar tells the person: title, task id, seed, the instruction and where to start."""
        if self.is_demonstration:
            return {
                "title": "",
                "task_id": "",
                "instruction": "",
                "start_page": "/",
                **self.brief,
                "seed": self.world.seed if self.world else None,
            }
        item = self.item
        instance = item.task.with_params(item.params)
        return {
            "title": item.task.title,
            "task_id": item.task.task_id,
            "seed": item.world_seed,
            "instruction": instance.instruction,
            "start_page": instance.start_page,
        }

    @property
    def seconds(self) -> float | None:
        if self.submitted_at is None:
            return None
        return (self.submitted_at - self.started_at).total_seconds()


class RecordedStep(models.Model):
    """One action as the recorder saw it in the annotator's browser."""

    recording = models.ForeignKey(Recording, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField()
    action = models.TextField(help_text="An action string of the engine's grammar.")
    selector = models.CharField(
        max_length=500,
        blank=True,
        help_text="A selector for the action's element that holds on other seeds (role=button[name='Save'], #id), "
        "found unique in the page when recorded; empty if none was.",
    )
    thought = models.TextField(blank=True)
    url = models.CharField(max_length=2000, blank=True, help_text="Path and query of the page the action was done on.")
    tab = models.CharField(max_length=40, blank=True)
    at_ms = models.BigIntegerField(help_text="Milliseconds since the recording started.")

    class Meta:
        ordering = ["recording", "index"]
        constraints = [models.UniqueConstraint(fields=["recording", "index"], name="one_recorded_step_per_index")]

    @property
    def robust_action(self) -> str:
        """The action addressing its element by the robust selector where there is one, else by its bid."""
        return robust_action(self.action, self.selector)


class StepObservation(models.Model):
    """What the agent saw before one step of an episode: captured by replaying it (datasets need the AX tree)."""

    episode = models.ForeignKey("episodes.Episode", on_delete=models.CASCADE, related_name="+")
    index = models.PositiveIntegerField()
    url = models.CharField(max_length=2000)
    title = models.CharField(max_length=500, blank=True)
    axtree = models.TextField()
    screenshot = models.ForeignKey("episodes.Screenshot", null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["episode", "index"]
        constraints = [models.UniqueConstraint(fields=["episode", "index"], name="one_observation_per_step")]


class DatasetExport(models.Model):
    """An export started from the UI; the page follows its progress."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    format = models.CharField(max_length=4)
    suite = models.CharField(max_length=96)
    sources = models.JSONField(default=list)
    out = models.CharField(max_length=1000)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    card = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-pk"]
