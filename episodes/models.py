"""Episodes as data: runs, episodes, their steps, screenshots stored once, worker heartbeats."""
from django.conf import settings
from django.db import models


class Run(models.Model):
    """A suite x agent x attempts, executed by workers."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    suite = models.ForeignKey("catalogue.Suite", on_delete=models.PROTECT, related_name="runs")
    agent = models.CharField(max_length=300)
    attempts = models.PositiveIntegerField(default=1)
    workers = models.PositiveIntegerField(default=1)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    report = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"run {self.pk} of {self.suite} by {self.agent}"


class Snapshot(models.Model):
    """A world's state document, stored once per state hash (initial states of one task repeat a lot)."""

    state_hash = models.CharField(max_length=64, unique=True)
    doc = models.JSONField()


class Screenshot(models.Model):
    """A PNG stored once by content hash under DATA_DIR/screenshots/; steps point at it."""

    sha256 = models.CharField(max_length=64, unique=True)
    path = models.CharField(max_length=200, help_text="Relative to DATA_DIR.")
    size = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    def read(self) -> bytes:
        return (settings.DATA_DIR / self.path).read_bytes()


class Episode(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        ERRORED = "errored", "Errored"
        TIMED_OUT = "timed_out", "Timed out"

    FINAL = (Status.SUCCEEDED, Status.FAILED, Status.ERRORED, Status.TIMED_OUT)

    task = models.ForeignKey("catalogue.Task", on_delete=models.PROTECT, related_name="episodes",
                             help_text="The task version the episode ran.")
    agent = models.CharField(max_length=300, help_text="Agent spec: oracle, random:SEED, replay:FILE, http:URL, openai:MODEL, external.")
    world = models.ForeignKey("worlds.World", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="episodes")
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.CASCADE, related_name="episodes")
    attempt = models.PositiveIntegerField(default=0)
    seed = models.BigIntegerField(default=0, help_text="Seed handed to seeded agents (random).")
    world_seed = models.BigIntegerField(default=0, help_text="The world's seed (the task's, unless overridden).")
    params = models.JSONField(default=dict, blank=True, help_text="The answer key for this episode's world.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    queue = models.CharField(max_length=200, blank=True,
                             help_text="The queue workers take it from; blank: its creator runs it (run_suite's pool, the gym, the API).")
    tries = models.PositiveIntegerField(default=0, help_text="Times a worker claimed it; a worker lost mid-episode costs one.")
    claimed_by = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last sign of life of the worker running it.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    initial_state = models.ForeignKey(Snapshot, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    final_state = models.ForeignKey(Snapshot, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    messages = models.JSONField(default=list, blank=True, help_text="What the agent sent to the user.")
    verdict = models.JSONField(null=True, blank=True)
    rewards = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    final_url = models.CharField(max_length=2000, blank=True)
    final_title = models.CharField(max_length=500, blank=True)
    clock_end = models.DateTimeField(null=True, blank=True, help_text="The world clock when the episode ended.")

    class Meta:
        indexes = [models.Index(fields=["status", "heartbeat_at"]), models.Index(fields=["run", "status"]),
                   models.Index(fields=["queue", "status"])]

    def __str__(self):
        return f"episode {self.pk} ({self.task.task_id}, {self.agent}, {self.status})"

    @property
    def instance(self):
        """The task filled with this episode's params (its world may use another seed than the task's)."""
        return self.task.with_params(self.params)

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL

    @property
    def passed(self) -> bool:
        return self.status == self.Status.SUCCEEDED


class Step(models.Model):
    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField()
    action = models.TextField(help_text="The action string as the agent wrote it.")
    parsed = models.JSONField(null=True, blank=True, help_text="The parsed action, null when it did not parse.")
    error = models.TextField(blank=True, help_text="The last action error the agent saw after this step.")
    url = models.CharField(max_length=2000, blank=True)
    title = models.CharField(max_length=500, blank=True)
    action_ms = models.FloatField(default=0)
    settle_ms = models.FloatField(default=0)
    observe_ms = models.FloatField(default=0)
    fault_events = models.JSONField(default=list, blank=True)
    changed = models.BooleanField(null=True, help_text="The step changed the URL or the page (accessibility tree); null if unknown.")
    requests = models.JSONField(default=list, blank=True,
                                help_text="The world's logged requests during the step: seq, method, path, field names, status, clock.")
    writes = models.JSONField(null=True, blank=True,
                              help_text='Rows the step wrote: [{"table", "id" (public), "op"}]; null if unknown.')
    screenshot = models.ForeignKey(Screenshot, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["episode", "index"], name="one_step_per_index")]
        ordering = ["episode", "index"]


class WorkerHeartbeat(models.Model):
    """A worker process's last sign of life (written by the worker_ping task and while running episodes)."""

    name = models.CharField(max_length=200, unique=True, help_text="hostname:pid")
    hostname = models.CharField(max_length=200)
    pid = models.PositiveIntegerField()
    system = models.CharField(max_length=60, help_text="platform.system() inside the worker")
    python = models.CharField(max_length=40)
    seen_at = models.DateTimeField()
