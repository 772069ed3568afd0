"""Episode lifecycle: create (fresh world), claim (once), run (the agent loop), finish (verify, reward).

Every write that must not be half-done runs in a transaction; the loop itself never
sleeps: it waits only on the browser's settle signal and the agent's answer.
"""
import dataclasses
import hashlib
import logging
import os
import platform
import socket
import tempfile
import threading
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, connection, models, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from replicagym.catalogue.models import Task
from replicagym.catalogue.packs import task_current, task_params

from replicas.worlds.clock import world_clock_advance
from replicas.worlds.faults import fault_events, world_step
from replicas.worlds.models import World
from replicas.worlds.requestlog import (
    last_page,
    logged_requests,
    request_log_close,
    request_log_open,
    requests_so_far,
)
from replicas.worlds.routing import world_origin
from replicas.worlds.services import world_create, world_delete
from replicas.worlds.snapshot import diff, snapshot, state_hash
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.rewards import reward_signals

from .actions import ActionError, parse_action
from .agents import ScriptedAgent, agent_from_spec, task_info
from .browser import BrowserCrashed, EpisodeSession, shutdown_browser
from .models import Episode, Screenshot, Snapshot, Step, WorkerHeartbeat
from .server import replica_server

log = logging.getLogger("replicagym.episodes")

STOP_ACTIONS = {"send_msg_to_user", "report_infeasible"}
API_CLAIM = "api:"
# An episode driven by a process with no heartbeat thread (the gym, run_suite's own
# process) only beats at each step: it counts as abandoned after longer than an agent
# may think about one step (remote agents get 600 s).
ABANDONED_AFTER = timedelta(minutes=11)


class EpisodeError(ValueError):
    """A request about an episode that cannot be honoured (bad state, bad input)."""


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# --- stored once ------------------------------------------------------------

def snapshot_store(*, doc: dict, known_hash: str | None = None) -> Snapshot:
    digest = known_hash or state_hash(doc)
    try:
        with transaction.atomic():
            return Snapshot.objects.get_or_create(state_hash=digest, defaults={"doc": doc})[0]
    except IntegrityError:  # another worker stored the same state at the same moment
        return Snapshot.objects.get(state_hash=digest)


def _world_snapshot(world: World, *, initial: bool = False) -> Snapshot:
    # A fresh clone holds its template's state, whose hash is known: skip the read if stored.
    if initial and world.state_hash:
        found = Snapshot.objects.filter(state_hash=world.state_hash).first()
        if found is not None:
            return found
    doc = snapshot(world)
    return snapshot_store(doc=doc)


def screenshot_store(*, png: bytes) -> Screenshot:
    """Store a PNG once per content hash (file under DATA_DIR/screenshots/, row per hash)."""
    digest = hashlib.sha256(png).hexdigest()
    found = Screenshot.objects.filter(sha256=digest).first()
    if found is not None:
        return found
    rel = Path("screenshots") / digest[:2] / f"{digest}.png"
    target = settings.DATA_DIR / rel
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        # write then rename, so a reader never sees half a file even with two writers
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(png)
        os.replace(tmp, target)
    try:
        with transaction.atomic():
            return Screenshot.objects.get_or_create(sha256=digest, defaults={"path": str(rel), "size": len(png)})[0]
    except IntegrityError:
        return Screenshot.objects.get(sha256=digest)


# --- create and claim -------------------------------------------------------

def _resolve_task(task) -> Task:
    if isinstance(task, Task):
        return task
    return task_current(task)


def episode_create(*, task, agent: str, run=None, attempt: int = 0, owner=None, seed: int | None = None,
                   agent_seed: int | None = None, status: str = Episode.Status.QUEUED, claimed_by: str = "") -> Episode:
    """A queued episode of `task` (a Task version or a task id) in a fresh world with the task's faults armed.

    `seed` overrides the task's world seed; the answer key is then computed for that world.
    """
    task = _resolve_task(task)
    world_seed = task.seed if seed is None else seed
    params = task.params if world_seed == task.seed else task_params({**task.spec, "seed": world_seed})
    instance = task.with_params(params)
    with transaction.atomic():
        world = world_create(replica=task.replica, seed=world_seed, variant=task.variant, faults=instance.faults)
        initial = _world_snapshot(world, initial=True)
        now = timezone.now()
        running = status == Episode.Status.RUNNING
        if running and claimed_by.startswith(API_CLAIM):
            # An episode in the agent's own browser has no engine watching: its world logs
            # the session as its steps, enforces the limits, moves its clock per step and
            # keeps the pages it serves (the last one is the final page).
            limits = instance.limits
            request_log_open(
                world=world, keep_pages=True, max_steps=int(limits["max_steps"]),
                deadline=time.time() + float(limits["max_seconds"]), step_seconds=float(limits["step_seconds"]),
            )
        return Episode.objects.create(
            task=task, agent=agent, world=world, run=run, attempt=attempt, owner=owner,
            seed=attempt if agent_seed is None else agent_seed, world_seed=world_seed, params=params,
            initial_state=initial, status=status,
            claimed_by=(claimed_by or worker_name()) if running else "", started_at=now if running else None,
            heartbeat_at=now if running else None, tries=1 if running else 0,
        )


def episode_claim(*, episode_id: int, worker: str) -> bool:
    """Move a queued episode to running for `worker`; False if anyone else got it first."""
    now = timezone.now()
    claimed = Episode.objects.filter(pk=episode_id, status=Episode.Status.QUEUED).update(
        status=Episode.Status.RUNNING, claimed_by=worker, started_at=now, heartbeat_at=now, tries=F("tries") + 1,
    )
    return claimed == 1


def episode_claim_next(*, queue: str, worker: str) -> int | None:
    """Claim the oldest queued episode of `queue` for `worker` (the embedded default's queue is the rows themselves).

    The claim is a conditional UPDATE: of two workers reading the same oldest row, one
    gets it and the other moves on to the next, and a message is never lost in a
    fetch, because there is none: the row stays queued until a worker holds it.
    """
    while True:
        pk = (Episode.objects.filter(queue=queue, status=Episode.Status.QUEUED)
              .order_by("pk").values_list("pk", flat=True).first())
        if pk is None:
            return None
        if episode_claim(episode_id=pk, worker=worker):
            return pk


def heartbeat_write(*, name: str | None = None) -> WorkerHeartbeat:
    name = name or worker_name()
    host, _, pid = name.rpartition(":")
    beat, _ = WorkerHeartbeat.objects.update_or_create(
        name=name,
        defaults={
            "hostname": host, "pid": int(pid), "system": platform.system(),
            "python": platform.python_version(), "seen_at": timezone.now(),
        },
    )
    return beat


# One heartbeat thread per worker process. It beats for the process, and for the
# episode the process is running whatever the episode is doing (an agent may think
# for minutes between steps), so a silent episode means a lost worker, nothing else.
_beat_lock = threading.Lock()
_beat = {"pid": None, "episode": None}


def heartbeat_start() -> None:
    """Start this process's heartbeat thread, once per process (a forked pool child starts its own)."""
    with _beat_lock:
        if _beat["pid"] == os.getpid():
            return
        _beat.update(pid=os.getpid(), episode=None)
        name = worker_name()
        heartbeat_write(name=name)
        threading.Thread(target=_heartbeat_loop, args=(name,), daemon=True, name="replicagym-heartbeat").start()


def _heartbeat_loop(name: str) -> None:
    while True:
        time.sleep(settings.WORKER_HEARTBEAT_SECONDS)
        try:
            connection.close_if_unusable_or_obsolete()
            heartbeat_write(name=name)
            current = _beat["episode"]
            if current is not None:
                Episode.objects.filter(pk=current, status=Episode.Status.RUNNING, claimed_by=name).update(
                    heartbeat_at=timezone.now())
        except Exception:  # a busy or restarting database: the next beat tries again
            log.warning("heartbeat of %s failed", name, exc_info=True)


@contextmanager
def episode_heartbeat(episode_id: int):
    """While the block runs, this process's heartbeat thread also beats for `episode_id`."""
    _beat["episode"] = episode_id
    try:
        yield
    finally:
        _beat["episode"] = None


def episode_sweep(*, stale_after: timedelta | None = None, max_tries: int | None = None) -> dict:
    """Put the running episodes of lost workers back in their queue, or error them with the reason.

    A worker is lost when its heartbeat and its episode's are older than `stale_after`
    (default WORKER_LOST_SECONDS); an episode of a process that keeps no heartbeat is
    lost after ABANDONED_AFTER without a step. The episode goes back to its queue with a fresh world and no
    steps, so its next try starts from the task's initial state and records one set of
    steps; after `max_tries` claims (default EPISODE_MAX_TRIES), or when it belongs to
    no queue, it is errored. Returns {"requeued": [ids], "errored": [ids]}.
    """
    stale_after = timedelta(seconds=settings.WORKER_LOST_SECONDS) if stale_after is None else stale_after
    max_tries = settings.EPISODE_MAX_TRIES if max_tries is None else max_tries
    now = timezone.now()
    cutoff = now - stale_after
    silent_worker = WorkerHeartbeat.objects.filter(name=OuterRef("claimed_by"), seen_at__lt=cutoff)
    # episodes driven through the API by a client's own browser have no worker to lose
    running = (Episode.objects.filter(status=Episode.Status.RUNNING, heartbeat_at__lt=cutoff)
               .filter(Exists(silent_worker) | models.Q(heartbeat_at__lt=now - ABANDONED_AFTER))
               .exclude(claimed_by__startswith=API_CLAIM))
    out = {"requeued": [], "errored": []}
    for pk in list(running.order_by("pk").values_list("pk", flat=True)):
        outcome = _episode_recover(pk=pk, cutoff=cutoff, stale_after=stale_after, max_tries=max_tries)
        if outcome:
            out[outcome].append(pk)
    return out


@transaction.atomic
def _episode_recover(*, pk: int, cutoff, stale_after: timedelta, max_tries: int) -> str | None:
    # conditional again, under the row lock: the worker may have finished or beaten since the read
    episode = (Episode.objects.select_for_update(of=("self",)).select_related("task", "world")
               .filter(pk=pk, status=Episode.Status.RUNNING, heartbeat_at__lt=cutoff).first())
    if episode is None:
        return None
    silence = (timezone.now() - episode.heartbeat_at).total_seconds()
    lost = f"worker {episode.claimed_by} lost: no heartbeat for {silence:.0f} s"
    if not episode.queue or episode.tries >= max_tries:
        why = f"after {episode.tries} tries" if episode.queue else "it belongs to no queue, so no worker can take it again"
        Episode.objects.filter(pk=pk).update(status=Episode.Status.ERRORED, finished_at=timezone.now(),
                                             error=f"{lost}; {why}")
        return "errored"
    old_world = episode.world
    fresh = world_create(replica=episode.task.replica, seed=episode.world_seed, variant=episode.task.variant,
                         faults=episode.instance.faults)
    episode.steps.all().delete()
    Episode.objects.filter(pk=pk).update(status=Episode.Status.QUEUED, world=fresh, claimed_by="", started_at=None,
                                         heartbeat_at=None, error="")
    if old_world is not None:
        world_delete(world=old_world)
    log.warning("episode %s: %s; back in queue %s (try %s of %s)", pk, lost, episode.queue, episode.tries + 1, max_tries)
    return "requeued"


# --- the loop -----------------------------------------------------------------

def _obs_get(obs, name, default=None):
    if isinstance(obs, dict):
        return obs.get(name, default)
    return getattr(obs, name, default)


def _parsed_action(text: str):
    try:
        action = parse_action(text)
    except ActionError:
        return None, None
    return action, action.to_dict()


def _action_name(action) -> str:
    return getattr(action, "name", None) or type(action).__name__


def _page_changed(before, after) -> bool | None:
    if before is None or after is None:
        return None
    return any(_obs_get(before, k) != _obs_get(after, k) for k in ("url", "axtree"))


def _record_step(*, episode, index, action_text, parsed, result, obs, fault_events, timings, changed=None,
                 requests=(), writes=None):
    png = _obs_get(obs, "screenshot")
    shot = screenshot_store(png=png) if isinstance(png, (bytes, bytearray)) and png else None
    with transaction.atomic():
        Step.objects.create(
            episode=episode, index=index, action=action_text, parsed=parsed,
            error=_obs_get(result, "error") or "", url=_obs_get(obs, "url", "")[:2000],
            title=(_obs_get(obs, "title") or "")[:500],
            action_ms=timings.get("action", 0), settle_ms=timings.get("settle", 0), observe_ms=timings.get("observe", 0),
            fault_events=fault_events, screenshot=shot, changed=changed, requests=list(requests), writes=writes,
        )
        Episode.objects.filter(pk=episode.pk).update(heartbeat_at=timezone.now())


def _timings(result, measured_ms: float) -> dict:
    found = _obs_get(result, "timings") or {}
    out = {k: float(found.get(f"{k}_ms", 0) or 0) for k in ("action", "settle", "observe")}
    if not any(out.values()):  # a session that does not time its phases: the whole step is the action
        out = {"action": measured_ms, "settle": 0.0, "observe": 0.0}
    return out


def session_open(*, world, start_page: str, instruction: str):
    # Playwright's sync API runs an asyncio loop in this thread; the engine's ORM calls
    # beside it are plain synchronous calls, which Django refuses unless told so.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    _host, port = replica_server()
    origin = world_origin(world, port)
    # the page's own Date.now() reads the world clock too, so screenshots repeat across runs
    return EpisodeSession.open(origin=origin, start_url=origin + start_page, instruction=instruction, frozen_time=world.clock)


def agent_for(episode):
    """The agent object for an episode's agent spec (see episodes.agents), reset for its task."""
    return agent_from_spec(episode.agent, task=episode.instance, seed=episode.seed)


class EpisodeDriver:
    """Drives one running episode step by step: the loop of episode_run, and the gym env's step().

    Each step: arm step-triggered faults, execute the action in the browser (an
    invalid action or a missing element becomes the observation's last action
    error, and the episode goes on), record the Step, advance the world clock.
    """

    def __init__(self, episode: Episode):
        if episode.status != Episode.Status.RUNNING:
            raise EpisodeError(f"episode {episode.pk} is {episode.status}, not running: claim it first")
        self.episode = episode
        self.instance = episode.instance
        self.world = episode.world
        self.limits = self.instance.limits
        self.session = None
        self.index = 0
        self.deadline = None
        self.observation = None
        self._since = 0  # fault events are numbered per world; a step records those after this one
        self._seen = 0  # so are the world's logged requests

    def open(self):
        self.deadline = time.monotonic() + float(self.limits["max_seconds"])
        # the world logs the browser's requests, so each step knows the rows it wrote
        # (opened here, not at creation: an episode may come back with a fresh world)
        request_log_open(world=self.world)
        for attempt in (1, 2):
            try:
                self.session = session_open(world=self.world, start_page=self.instance.start_page,
                                            instruction=self.instance.instruction)
                break
            except PlaywrightTimeout:
                # nothing has happened in the world yet, so a start page that loaded too
                # slowly (a busy machine) is retried once rather than failing the episode
                if attempt == 2:
                    raise
                log.warning("episode %s: the start page timed out; opening it again", self.episode.pk)
        self.observation = self.session.observe()
        self._seen = requests_so_far(world=self.world)  # loading the start page is no step of the agent's
        return self.observation

    @property
    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    @property
    def out_of_steps(self) -> bool:
        return self.index >= int(self.limits["max_steps"])

    def step(self, action_text: str) -> tuple[object, bool]:
        """Execute one action; returns (observation, the action was a stop action)."""
        if self.out_of_steps:
            raise EpisodeError(f"the step limit of {self.limits['max_steps']} is reached")
        action_text = action_text if isinstance(action_text, str) else str(action_text)
        world_step(world=self.world, index=self.index)
        action, parsed = _parsed_action(action_text)
        started = time.perf_counter()
        result = self.session.step(action_text)
        measured = (time.perf_counter() - started) * 1000
        obs = _obs_get(result, "observation", result)
        self.world.refresh_from_db(fields=["clock"])
        # what fired before the step (step triggers) and during it (its requests)
        events = list(fault_events(world=self.world, since=self._since))
        if events:
            self._since = max(e["seq"] for e in events)
        # the requests the browser made during the step, and the rows they wrote
        requests = logged_requests(world=self.world, since=self._seen)
        if requests:
            self._seen = requests[-1].seq
        _record_step(episode=self.episode, index=self.index, action_text=action_text, parsed=parsed, result=result,
                     obs=obs, fault_events=events, timings=_timings(result, measured),
                     changed=_page_changed(self.observation, obs),
                     requests=[_request_doc(r) for r in requests], writes=[w for r in requests for w in r.writes])
        world_clock_advance(world=self.world, seconds=float(self.limits["step_seconds"]))
        self.index += 1
        self.observation = obs
        return obs, action is not None and _action_name(action) in STOP_ACTIONS

    def finish(self, *, status: str | None = None, error: str = "") -> Episode:
        """Read the final page and messages, close the browser context, verify and reward."""
        final_page, messages = None, []
        try:
            if self.session is not None and status != Episode.Status.ERRORED:
                final_page = self.session.final_page()
            messages = list(getattr(self.session, "messages", []) or [])
        except Exception as exc:
            status, error = self._failure(exc)
        finally:
            self.close()
        return episode_finish(episode=self.episode, messages=messages, final_page=final_page, status=status, error=error)

    def fail(self, exc: BaseException) -> Episode:
        """End the episode errored after `exc`, keeping the steps recorded so far."""
        status, error = self._failure(exc)
        messages = list(getattr(self.session, "messages", []) or []) if self.session is not None else []
        self.close()
        return episode_finish(episode=self.episode, messages=messages, final_page=None, status=status, error=error)

    def _failure(self, exc: BaseException) -> tuple[str, str]:
        if isinstance(exc, BrowserCrashed):
            # the next episode in this process gets a fresh browser (shutting the dead one down
            # makes the next session launch one); this one keeps its trajectory
            shutdown_browser()
            return Episode.Status.ERRORED, f"browser crashed: {exc}"
        log.error("episode %s errored", self.episode.pk, exc_info=exc)
        return Episode.Status.ERRORED, f"{type(exc).__name__}: {exc}"

    def close(self):
        if self.session is not None:
            session, self.session = self.session, None
            try:
                session.close()
            except Exception:  # a crashed browser may fail to close; the episode is already decided
                log.warning("closing the session of episode %s failed", self.episode.pk, exc_info=True)


def episode_run(*, episode_id: int, agent=None) -> Episode:
    """Run a claimed (running) episode to its end and finish it; returns the finished episode.

    `agent` overrides the one built from the episode's agent spec (used by episode_play).
    """
    episode = Episode.objects.select_related("task", "world").get(pk=episode_id)
    driver = EpisodeDriver(episode)
    try:
        agent = agent if agent is not None else agent_for(episode)
        obs = driver.open()
        while not driver.out_of_steps:
            if driver.out_of_time:
                break
            action_text = agent.act(obs)
            if action_text is None:  # the agent has nothing more to do
                break
            obs, stop = driver.step(action_text)
            if stop:
                break
    except Exception as exc:
        return driver.fail(exc)
    if driver.out_of_time:
        return driver.finish(status=Episode.Status.TIMED_OUT, error=f"episode time limit of {driver.limits['max_seconds']} s reached")
    # a remote agent that gave up (timeouts, bad replies) says why; the verdict still decides the status
    agent_error = getattr(agent, "last_error", "") or ""
    return driver.finish(error=f"agent: {agent_error}" if agent_error else "")


# --- finish -------------------------------------------------------------------

def _trajectory(episode) -> list[dict]:
    steps = []
    for s in episode.steps.order_by("index"):
        step = {"index": s.index, "action": s.action, "error": s.error, "url": s.url, "fault_events": s.fault_events}
        if s.changed is not None:  # what action_precision counts as an effective step
            step["changed"] = s.changed
        if s.writes is not None:  # rows the step wrote: error_recovery's repeat penalty compares them
            step["writes"] = s.writes
            step["state_changed"] = bool(s.writes)
        steps.append(step)
    return steps


def _jsonable(value):
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if hasattr(value, "as_dict"):
        return value.as_dict()
    return value


def verdict_compute(*, episode, final_doc: dict, messages: list[str], final_page: dict | None) -> tuple[dict, dict]:
    """(verdict, rewards) from the verifier, read-only over the inputs."""
    instance = episode.instance
    trajectory = _trajectory(episode)
    inputs = VerifierInputs(
        initial=episode.initial_state.doc,
        final=final_doc,
        diff=diff(episode.initial_state.doc, final_doc),
        final_page=final_page or {"url": "", "title": "", "html": ""},
        trajectory=trajectory,
        messages=list(messages),
        params=episode.params,
        clock=episode.world.clock.isoformat().replace("+00:00", "Z"),
        replica=episode.task.replica,
    )
    verdict = verify(instance.verifier, inputs)
    rewards = reward_signals(
        verdict=verdict, trajectory=trajectory, reference_steps=len(instance.reference_solution) or 1,
        weights=instance.reward_weights,
    )
    doc = _jsonable(verdict)
    if not isinstance(doc, dict):
        doc = {"passed": verdict.passed, "partial": verdict.partial, "assertions": verdict.assertions}
    doc.setdefault("passed", bool(verdict.passed))
    return doc, dict(rewards)


def episode_finish(*, episode, messages: list[str], final_page: dict | None, status: str | None = None,
                   error: str = "") -> Episode:
    """Final snapshot, verdict and rewards; the status follows the verdict unless already decided.

    Whatever fails here errors the episode with the reason; nothing leaves it running.
    """
    claimed_try = episode.tries  # the claim this finish belongs to (a lost worker's episode may run again)
    episode.refresh_from_db()
    world = episode.world
    verdict = rewards = None
    final = None
    try:
        if world is not None:
            world.refresh_from_db()
            final = snapshot_store(doc=snapshot(world))
    except Exception as exc:
        log.exception("final snapshot failed on episode %s", episode.pk)
        status, error = Episode.Status.ERRORED, f"final snapshot failed: {type(exc).__name__}: {exc}"
    if final is not None and status != Episode.Status.ERRORED:
        try:
            verdict, rewards = verdict_compute(episode=episode, final_doc=final.doc, messages=messages, final_page=final_page)
        except Exception as exc:  # the verifier must never take the episode record down with it
            log.exception("verifier failed on episode %s", episode.pk)
            status, error = Episode.Status.ERRORED, f"verifier failed: {type(exc).__name__}: {exc}"
    if status is None:
        status = Episode.Status.SUCCEEDED if verdict and verdict.get("passed") else Episode.Status.FAILED
    page = final_page or {}
    with transaction.atomic():
        updated = Episode.objects.filter(pk=episode.pk, status=Episode.Status.RUNNING, tries=claimed_try).update(
            status=status, error=error[:5000], verdict=verdict, rewards=rewards, final_state=final,
            messages=list(messages), final_url=(page.get("url") or "")[:2000], final_title=(page.get("title") or "")[:500],
            finished_at=timezone.now(), clock_end=world.clock if world else None,
        )
    if not updated:
        log.warning("episode %s was no longer running when it finished (swept?)", episode.pk)
    episode.refresh_from_db()
    return episode


def _request_doc(r) -> dict:
    return {"seq": r.seq, "method": r.method, "path": r.path, "fields": r.fields, "status": r.status,
            "clock": r.clock.isoformat().replace("+00:00", "Z")}


def _external_steps_record(episode) -> list[Step]:
    """The steps of an episode in the agent's own browser, from its world's request log.

    A step is one request of the agent's, with the redirect it answered followed (a
    form POST and the page it led to); requests refused as 'episode over' are none.
    Each step carries the fault events written while it was answered and the rows it
    wrote. It errored when its last answer was 4xx or 5xx; it changed something when it
    wrote rows, was accepted with a redirect or no content (a form or a dismissal), or
    (a GET) showed another page than the step before, or the same one after a write.
    """
    world = episode.world
    origin = world_origin(world)
    groups: dict[int, list] = {}
    for r in logged_requests(world=world):
        if not r.refused:
            groups.setdefault(r.step, []).append(r)
    events = fault_events(world=world, since=0) if world.faults else []
    steps, seen, previous_path, previous_wrote = [], 0, None, False
    for index, group in enumerate(groups.values()):
        first, last = group[0], group[-1]
        upto = max(seen, *(r.fault_seq for r in group))
        writes = [w for r in group for w in r.writes]
        if first.method in ("GET", "HEAD"):
            changed = bool(writes) or last.path != previous_path or previous_wrote
        else:
            changed = bool(writes) or 300 <= first.status < 400 or first.status == 204
        fields = f" [{', '.join(first.fields)}]" if first.fields else ""
        steps.append(Step(
            episode=episode, index=index, action=f"{first.method} {first.path}{fields}", parsed=None,
            error=f"HTTP {last.status}" if last.status >= 400 else "", url=(origin + last.path)[:2000],
            action_ms=sum(r.ms for r in group), fault_events=[e for e in events if seen < e["seq"] <= upto],
            changed=changed, requests=[_request_doc(r) for r in group], writes=writes,
        ))
        seen, previous_path, previous_wrote = upto, last.path, bool(writes)
    try:
        with transaction.atomic():
            return Step.objects.bulk_create(steps)
    except IntegrityError:
        raise EpisodeError(f"episode {episode.pk} is already being finished") from None


def episode_finish_external(*, episode, messages: list[str]) -> Episode:
    """Finish an episode driven by a client's own browser: verify and reward what its world recorded.

    The world first stops taking requests, so nothing changes between reading its log
    and the final snapshot. The steps are the world's log of the session; the final
    page is the last HTML page the world served it (as the agent saw it, signed in),
    never a page rendered afresh; no page at all if it was served none.
    """
    if episode.status != Episode.Status.RUNNING or not episode.claimed_by.startswith(API_CLAIM):
        raise EpisodeError(f"episode {episode.pk} is {episode.status}: only a running API episode can be finished")
    world = episode.world
    request_log_close(world=world, reason="the episode is finished")
    _external_steps_record(episode)
    served = last_page(world=world)
    page = {"url": world_origin(world) + served["path"], "title": served["title"], "html": served["html"]} if served else None
    status = None
    elapsed = (timezone.now() - episode.started_at).total_seconds() if episode.started_at else 0
    limit = float(episode.instance.limits["max_seconds"])
    if elapsed > limit:
        status = Episode.Status.TIMED_OUT
    return episode_finish(episode=episode, messages=messages, final_page=page, status=status,
                          error=f"finished after {elapsed:.0f} s, over the limit of {limit:.0f} s" if status else "")


# --- fixed action lists ---------------------------------------------------------

def episode_play(*, task_id, actions: list[str], seed: int | None = None) -> Episode:
    """Run a fixed action list on a task in this process (verify_tasks, tests); returns the finished episode."""
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise EpisodeError("actions must be a list of action strings")
    episode = episode_create(task=task_id, agent="script", seed=seed, status=Episode.Status.RUNNING)
    agent = ScriptedAgent(actions)
    agent.reset(task_info(episode.instance))
    return episode_run(episode_id=episode.pk, agent=agent)
