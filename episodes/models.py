"""Episodes as data: runs, episodes, their steps, screenshots stored once, worker heartbeats."""

from django.conf import settings
from django.db import models


class Run(models.Model):
    """A suite (or a filter of tasks) x agent x attempts, executed by workers (lifecycle: episodes.runs)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        CANCELLED = "cancelled", "Cancelled"

    ENDED = (Status.DONE, Status.CANCELLED)

    suite = models.ForeignKey(
        "catalogue.Suite",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="runs",
        help_text="The suite version run; null when the tasks come from the filter alone.",
    )
    task_filter = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="Shell-style pattern over task ids (shop.checkout-*); blank: every task of the suite.",
    )
    agent = models.CharField(max_length=300)
    agent_settings = models.JSONField(
        default=dict, blank=True, help_text="Settings of the agent (timeout, temperature...)."
    )
    attempts = models.PositiveIntegerField(default=1)
    workers = models.PositiveIntegerField(default=1)
    faults = models.BooleanField(default=True, help_text="Arm each task's faults; off runs the tasks without them.")
    priority = models.SmallIntegerField(default=0, help_text="Workers take episodes of higher-priority runs first.")
    trace = models.BooleanField(default=False, help_text="Record a Playwright trace of each of its episodes.")
    seed = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="Each episode's variation derives from it, the task and the attempt (episodes.variation); "
        "null: every episode plays the task's own seed and picks.",
    )
    shared_variation = models.BooleanField(
        default=False, help_text="Every attempt of a task plays the same variation (a group rollout: one start state)."
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    report = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True, help_text="When it was done or cancelled.")

    def __str__(self):
        return f"run {self.pk} of {self.suite or self.task_filter} by {self.agent}"

    @property
    def is_ended(self) -> bool:
        return self.status in self.ENDED


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
        CANCELLED = "cancelled", "Cancelled"

    # ended with an outcome that counts as an attempt; a cancelled episode ended without one
    FINAL = (Status.SUCCEEDED, Status.FAILED, Status.ERRORED, Status.TIMED_OUT)
    ENDED = (*FINAL, Status.CANCELLED)

    task = models.ForeignKey(
        "catalogue.Task",
        on_delete=models.PROTECT,
        related_name="episodes",
        help_text="The task version the episode ran.",
    )
    agent = models.CharField(
        max_length=300, help_text="Agent spec: oracle, random:SEED, replay:FILE, http:URL, openai:MODEL, external."
    )
    world = models.ForeignKey("worlds.World", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="episodes"
    )
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.CASCADE, related_name="episodes")
    attempt = models.PositiveIntegerField(default=0)
    seed = models.BigIntegerField(default=0, help_text="Seed handed to seeded agents (random).")
    world_seed = models.BigIntegerField(
        default=0, help_text="The world's seed (the task's, unless overridden or varied)."
    )
    variation = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="Seed of the episode's variation: its world seed and its pickers' choices "
        "(episodes.variation); null: the task's fixed picks on world_seed.",
    )
    params = models.JSONField(default=dict, blank=True, help_text="The answer key for this episode's world.")
    faults = models.BooleanField(default=True, help_text="The task's faults are armed in its world.")
    agent_settings = models.JSONField(default=dict, blank=True, help_text="Its run's agent settings.")
    priority = models.SmallIntegerField(default=0, help_text="Its run's priority: workers take higher first.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    queue = models.CharField(
        max_length=200,
        blank=True,
        help_text="The queue workers take it from; blank: its creator runs it (run_suite's pool, the gym, the API).",
    )
    tries = models.PositiveIntegerField(
        default=0, help_text="Times a worker claimed it; a worker lost mid-episode costs one."
    )
    claimed_by = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last sign of life of the worker running it.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    start_screenshot = models.ForeignKey(
        Screenshot,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The start page as the agent first saw it.",
    )
    initial_state = models.ForeignKey(Snapshot, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    final_state = models.ForeignKey(Snapshot, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    messages = models.JSONField(default=list, blank=True, help_text="What the agent sent to the user.")
    verdict = models.JSONField(null=True, blank=True)
    rewards = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    final_url = models.CharField(max_length=2000, blank=True)
    final_title = models.CharField(max_length=500, blank=True)
    clock_end = models.DateTimeField(null=True, blank=True, help_text="The world clock when the episode ended.")
    trace = models.BooleanField(
        default=False, help_text="Record a Playwright trace (opt-in: traces cost time and disk)."
    )
    trace_path = models.CharField(
        max_length=300,
        blank=True,
        default="",
        help_text="Its Playwright trace (zip), relative to DATA_DIR; blank if none.",
    )

    class Meta:
        indexes = [
            models.Index(fields=["status", "heartbeat_at"]),
            models.Index(fields=["run", "status"]),
            models.Index(fields=["queue", "status", "-priority"]),
        ]

    def __str__(self):
        return f"episode {self.pk} ({self.task.task_id}, {self.agent}, {self.status})"

    @property
    def instance(self):
        """The task filled with this episode's params (its world may use another seed than the task's), in the
        wording its variation draws when the task's replica ships other wordings (episodes.variation)."""
        from .variation import task_worded  # noqa: PLC0415 - it imports other apps' models, loaded after these

        return task_worded(self.task.with_params(self.params), self.variation)

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
    changed = models.BooleanField(
        null=True, help_text="The step changed the URL or the page (accessibility tree); null if unknown."
    )
    requests = models.JSONField(
        default=list,
        blank=True,
        help_text="The world's logged requests during the step: seq, method, path, field names, status, clock.",
    )
    writes = models.JSONField(
        null=True, blank=True, help_text='Rows the step wrote: [{"table", "id" (public), "op"}]; null if unknown.'
    )
    screenshot = models.ForeignKey(Screenshot, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    axtree_change = models.TextField(
        blank=True, default="", help_text="How the step changed the accessibility tree: its -/+ lines (capped)."
    )
    target_box = models.JSONField(
        null=True,
        blank=True,
        help_text='Where the element the action targeted was before it ran: {"x", "y", "width", "height"} '
        "in screenshot pixels; null when the action names no element or it was not found.",
    )
    observation = models.TextField(
        blank=True,
        default="",
        help_text="The observation text the agent was given when it chose this step's action, in the episode's "
        "observation mode (episodes.engine.observation.render_observation), so a trainer can rebuild its prompts; "
        "blank for a step of an episode in the agent's own browser, which the platform never observed.",
    )
    target_bid = models.CharField(
        max_length=40,
        blank=True,
        default="",
        help_text="The bid the element the action named carried in the observation it was chosen on (a selector "
        "resolved when the engine ran it), so datasets give the action as a model that sees bids writes it; "
        "blank when the action names no element or none matched.",
    )
    checkpoints = models.JSONField(
        null=True,
        blank=True,
        help_text="With dense checkpoints on (agent_settings dense_checkpoints): the milestones this step reached, "
        "{'new': [index in the spec's checkpoints], 'reward': their share of the partial credit} "
        "(episodes.engine.checkpoints); null when they are off.",
    )
    tabs = models.JSONField(
        null=True,
        blank=True,
        help_text='The browser\'s tabs after the step, in order: [{"url", "active", "app"}], "app" the replica whose '
        "world the tab is on (blank for a page outside the episode's worlds), so the viewer shows which app was "
        "focused; null for a step recorded without them (older steps, the agent's own browser).",
    )

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
