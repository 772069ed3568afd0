"""Tasks and suites of the catalogue, each row one immutable version.

A task's version is fixed by the sha256 of its canonical spec and of its answer
key (params): editing the file, or a generator change that moves the answer,
makes a new row, and episodes keep pointing at the version they ran.
"""

import copy

from django.db import models

from verifiers.interaction import verifier_with_interaction
from verifiers.placeholders import expand_actions, fill, fill_text
from verifiers.spec import fill_params


class Task(models.Model):
    class Difficulty(models.TextChoices):
        EASY = "easy", "Easy"
        MEDIUM = "medium", "Medium"
        HARD = "hard", "Hard"

    task_id = models.CharField(max_length=160, help_text="<replica>.<slug>")
    replica = models.CharField(max_length=64)
    slug = models.SlugField(max_length=96)
    pack = models.CharField(max_length=64, help_text="The task pack the file came from (the replica's name).")
    title = models.CharField(max_length=200)
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices)
    spec = models.JSONField(help_text="The task file as authored, placeholders unfilled.")
    params = models.JSONField(default=dict, blank=True, help_text="The answer key, computed on the template world.")
    content_hash = models.CharField(max_length=64, help_text="sha256 of the canonical spec.")
    params_hash = models.CharField(max_length=64, help_text="sha256 of the canonical params.")
    source = models.CharField(max_length=300, blank=True, help_text="The file the version was loaded from.")
    is_current = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task_id", "content_hash", "params_hash"], name="task_version_once"),
            models.UniqueConstraint(fields=["task_id"], condition=models.Q(is_current=True), name="one_current_task"),
        ]
        ordering = ["task_id", "-created_at"]

    def __str__(self):
        return f"{self.task_id}@{self.content_hash[:8]}"

    @property
    def version(self) -> str:
        return self.content_hash[:12]

    def with_params(self, params: dict) -> "Task":
        """The same version filled from other params (a world of another seed); never saved."""
        if params == self.params:
            return self
        other = copy.copy(self)
        other.params = params
        return other

    # The filled task: what an episode actually runs.
    @property
    def seed(self) -> int:
        return self.spec["seed"]

    @property
    def variant(self) -> str:
        return self.spec.get("variant", "default")

    @property
    def faults(self) -> list:
        return fill(self.spec.get("faults", []), self.params)

    @property
    def limits(self) -> dict:
        # step_seconds: world time per step, so SLAs and "3 minutes ago" move as a person's work would
        return {"max_steps": 30, "max_seconds": 300, "step_seconds": 30, **self.spec.get("limits", {})}

    @property
    def instruction(self) -> str:
        return fill_text(self.spec["instruction"], self.params)

    @property
    def start_page(self) -> str:
        return fill_text(self.spec.get("start_page", "/"), self.params)

    @property
    def verifier(self) -> dict:
        # the verifier's own filling escapes params spliced into regular expressions; a task
        # that requires an interaction is judged on which steps made its writes too
        return fill_params(verifier_with_interaction(self.spec["verifier"], self.spec.get("interaction")), self.params)

    @property
    def reference_solution(self) -> list[str]:
        return expand_actions(self.spec.get("reference_solution", []), self.params)

    @property
    def negative_examples(self) -> list[dict]:
        return [
            {**ex, "actions": expand_actions(ex.get("actions", []), self.params)}
            for ex in self.spec.get("negative_examples", [])
        ]

    @property
    def reward_weights(self) -> dict | None:
        return self.spec.get("reward_weights")


class Suite(models.Model):
    """A named, versioned set of task versions: a benchmark."""

    name = models.SlugField(max_length=96)
    version = models.CharField(max_length=64, help_text="sha256 over the task versions it holds.")
    description = models.CharField(max_length=300, blank=True)
    tasks = models.ManyToManyField(Task, related_name="suites")
    is_current = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="suite_version_once"),
            models.UniqueConstraint(fields=["name"], condition=models.Q(is_current=True), name="one_current_suite"),
        ]

    def __str__(self):
        return f"{self.name}@{self.version[:8]}"
