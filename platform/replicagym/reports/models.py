"""The quality gate's results, per task version: how often a baseline agent solved each task out of k."""

from django.conf import settings
from django.db import models


class QualityGate(models.Model):
    """One pass of the gate over a suite: a run of the baseline agent with k attempts per task."""

    suite = models.ForeignKey(
        "catalogue.Suite", on_delete=models.PROTECT, related_name="quality_gates", help_text="The suite version gated."
    )
    run = models.OneToOneField("episodes.Run", on_delete=models.CASCADE, related_name="quality_gate")
    agent = models.CharField(max_length=300, help_text="The baseline agent's spec, e.g. noisy-oracle:0.1.")
    k = models.PositiveIntegerField(help_text="Attempts per task.")
    low = models.PositiveIntegerField(help_text="Fewest passes out of k for a task to be kept.")
    high = models.PositiveIntegerField(help_text="Most passes out of k for a task to be kept.")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(
        null=True, blank=True, help_text="When the results were recorded; null while the run goes on."
    )

    def __str__(self):
        return f"quality gate {self.pk} of {self.suite} by {self.agent} ({self.low}..{self.high} of {self.k})"


class GateResult(models.Model):
    """A task version's outcome in one gate: passes out of attempts, and whether the gate keeps it."""

    class Verdict(models.TextChoices):
        KEPT = "kept", "Kept"
        TOO_EASY = "too_easy", "Too easy"
        TOO_HARD = "too_hard", "Too hard"

    gate = models.ForeignKey(QualityGate, on_delete=models.CASCADE, related_name="results")
    task = models.ForeignKey(
        "catalogue.Task",
        on_delete=models.PROTECT,
        related_name="gate_results",
        help_text="The task version the baseline ran.",
    )
    passes = models.PositiveIntegerField()
    attempts = models.PositiveIntegerField()
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["gate", "task"], name="one_gate_result_per_task")]
        indexes = [models.Index(fields=["task", "-created_at"])]

    @property
    def kept(self) -> bool:
        return self.verdict == self.Verdict.KEPT

    def __str__(self):
        return f"{self.task} {self.passes}/{self.attempts} {self.verdict}"
