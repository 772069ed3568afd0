"""Self-check runs started from the task editor ("test runs" on its pages): one task version, the episodes that
check its verifier."""

from django.conf import settings
from django.db import models


class SelfCheckRun(models.Model):
    task = models.ForeignKey(
        "catalogue.Task", on_delete=models.PROTECT, related_name="+", help_text="The task version tested."
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"self-check run {self.pk} of {self.task}"


class SelfCheckEpisode(models.Model):
    class Expect(models.TextChoices):
        PASS = "pass", "must pass"
        FAIL = "fail", "must fail"
        ANY = "any", "either (a baseline)"

    run = models.ForeignKey(SelfCheckRun, on_delete=models.CASCADE, related_name="items")
    label = models.CharField(max_length=200)
    expect = models.CharField(max_length=4, choices=Expect.choices)
    episode = models.OneToOneField("episodes.Episode", on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["pk"]
